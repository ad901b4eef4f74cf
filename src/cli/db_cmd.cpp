// `sqlgrade db load`: create a PostgreSQL or MySQL database from a dump, with a login that can only read
// (engine/server_admin.hpp) — the only command that writes to a database, and only into one it creates.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/engine/server_admin.hpp"

void register_db_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("db", "PostgreSQL / MySQL databases for BIRD's other dialects");
  cmd->require_subcommand(1);
  auto opt = std::make_shared<sqlgrade::DbLoadOptions>();
  auto* load = cmd->add_subcommand(
      "load", "create a database from a plain SQL dump, and a login that can only read it (prints its URI)");
  load->add_option("--admin-dsn", opt->admin_dsn,
                   "a login that may create databases and roles: postgresql://postgres@host:port/postgres or "
                   "mysql://root@localhost/mysql?socket=/run/mysqld/mysqld.sock")
      ->required();
  load->add_option("--database", opt->database, "the database to create (refused if it exists)")->required();
  sqlgrade::cli::path_role(load->add_option("--dump", opt->dump, "plain SQL dump: bird/minidev_postgresql/BIRD_dev.sql, bird/minidev_mysql/BIRD_dev.sql"), sqlgrade::cli::PathRole::ReadsFile)
      ->required();
  load->add_option("--reader", opt->reader, "the read-only login to create (or check)")->capture_default_str();
  load->add_option("--reader-password", opt->reader_password, "its password (default: none)");
  sqlgrade::cli::path_role(load->add_option("--client-dir", opt->client_dir, "folder of psql / mariadb (default: PATH)"), sqlgrade::cli::PathRole::ReadsFolder);
  load->callback([opt] {
    const sqlgrade::DbLoadResult r = sqlgrade::load_database(*opt);
    for (const std::string& n : r.notes) std::fprintf(stderr, "sqlgrade: note: %s\n", n.c_str());
    std::fprintf(stderr, "sqlgrade: %s: %zu tables loaded in %.1f s\n", opt->database.c_str(), r.tables, r.seconds);
    std::printf("%s\n", r.reader_dsn.c_str());
  });
  sqlgrade::cli::example(load, "sqlgrade db load --admin-dsn postgresql://postgres@localhost:5432/postgres --database bird "
                               "--dump BIRD_dev.sql");
  sqlgrade::cli::example(cmd, "sqlgrade db load --admin-dsn postgresql://postgres@localhost:5432/postgres --database bird "
                              "--dump BIRD_dev.sql");
}
