# The libraries sqlgrade links, found the same way by the build (CMakeLists.txt) and by the installed
# package config (sqlgradeConfig.cmake), so that `find_package(sqlgrade)` in another project gets the
# targets the exported libraries name. Expects:
#   SQLGRADE_WITH_CURL   the LLM judge was built with libcurl
# Defines the imported target utf8proc::utf8proc (unless it already exists).
if(COMMAND find_dependency)
  set(_sqlgrade_find find_dependency)
else()
  set(_sqlgrade_find find_package)
endif()
macro(_sqlgrade_need)
  if(_sqlgrade_find STREQUAL "find_dependency")
    find_dependency(${ARGN})
  else()
    find_package(${ARGN} REQUIRED)
  endif()
endmacro()

_sqlgrade_need(Threads)
_sqlgrade_need(SQLite3)
# sqlgrade::sqlite3 — sqlgrade's private SQLite: the static archive of the same library (Debian's
# libsqlite3.a), linked into the binary and the Python module (whose symbols it hides), so that no other
# user of SQLite in the process can initialise it before sqlgrade installs its allocator and VFS
# (src/sqlgrade/engine/sqlite_runtime.hpp; docs/safety.md, "Execution bounds: mechanism"). Without the
# archive the shared library is used, and then the memory cap and the allocator's deadline check hold
# only when sqlgrade initialises SQLite first.
if(NOT TARGET sqlgrade::sqlite3)
  find_library(SQLGRADE_SQLITE3_ARCHIVE NAMES libsqlite3.a HINTS ${SQLite3_LIBRARY_DIRS})
  if(NOT SQLGRADE_SQLITE3_ARCHIVE AND SQLite3_LIBRARIES)
    get_filename_component(_sqlgrade_sqlite_dir "${SQLite3_LIBRARIES}" DIRECTORY)
    find_library(SQLGRADE_SQLITE3_ARCHIVE NAMES libsqlite3.a HINTS "${_sqlgrade_sqlite_dir}" NO_DEFAULT_PATH)
  endif()
  if(SQLGRADE_SQLITE3_ARCHIVE)
    add_library(sqlgrade::sqlite3 STATIC IMPORTED)
    set_target_properties(sqlgrade::sqlite3 PROPERTIES
      IMPORTED_LOCATION "${SQLGRADE_SQLITE3_ARCHIVE}"
      INTERFACE_INCLUDE_DIRECTORIES "${SQLite3_INCLUDE_DIRS}"
      INTERFACE_LINK_LIBRARIES "m;${CMAKE_DL_LIBS};Threads::Threads")
  else()
    add_library(sqlgrade::sqlite3 INTERFACE IMPORTED)
    set_target_properties(sqlgrade::sqlite3 PROPERTIES INTERFACE_LINK_LIBRARIES SQLite::SQLite3)
  endif()
endif()
_sqlgrade_need(nlohmann_json 3)
_sqlgrade_need(fmt)                         # header-only in the files that use it (sqlgrade_use_fmt): no libfmt.so
_sqlgrade_need(OpenSSL COMPONENTS Crypto)  # SHA-256: run-record inputs, shards, the reward server's gold cache
_sqlgrade_need(Boost 1.74)                  # headers only: Beast/Asio (HTTP), Boost.Math (McNemar)
_sqlgrade_need(ZLIB)                        # the reward server inflates gzip/deflate bodies with a bound
if(SQLGRADE_WITH_CURL)
  _sqlgrade_need(CURL)                      # the UDA LLM judge's HTTP client
endif()

# utf8proc (Debian libutf8proc-dev, no CMake package): Unicode normalisation (NFKC, case folding,
# marks) for the UDA text rules. pkg-config first, then a plain header + library lookup; its static
# archive when there is one (Debian ships it), so that no binary needs libutf8proc.so at run time
# (header-only fmt likewise): the portable wheels (scripts/wheels.sh) link the same libraries as the
# development build and bundle only libcurl and OpenSSL.
if(NOT TARGET utf8proc::utf8proc)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(SQLGRADE_UTF8PROC QUIET libutf8proc)
  endif()
  find_path(SQLGRADE_UTF8PROC_INCLUDE utf8proc.h HINTS ${SQLGRADE_UTF8PROC_INCLUDE_DIRS})
  find_library(SQLGRADE_UTF8PROC_LIB NAMES libutf8proc.a utf8proc HINTS ${SQLGRADE_UTF8PROC_LIBRARY_DIRS})
  if(NOT SQLGRADE_UTF8PROC_INCLUDE OR NOT SQLGRADE_UTF8PROC_LIB)
    message(FATAL_ERROR "utf8proc not found (Debian: libutf8proc-dev)")
  endif()
  add_library(utf8proc::utf8proc UNKNOWN IMPORTED)
  set_target_properties(utf8proc::utf8proc PROPERTIES IMPORTED_LOCATION "${SQLGRADE_UTF8PROC_LIB}"
                                                      INTERFACE_INCLUDE_DIRECTORIES "${SQLGRADE_UTF8PROC_INCLUDE}")
endif()

# libpq (Debian libpq-dev) and MariaDB Connector/C (libmariadb-dev): the PostgreSQL and MySQL engines
# (src/sqlgrade/engine/postgres.cpp, mariadb.cpp). Imported targets sqlgrade::libpq, sqlgrade::mariadb.
foreach(_sqlgrade_server IN ITEMS "libpq;libpq;libpq-fe.h;pq;postgresql" "mariadb;libmariadb;mysql.h;mariadb;mariadb")
  list(GET _sqlgrade_server 0 _name)
  list(GET _sqlgrade_server 1 _pc)
  list(GET _sqlgrade_server 2 _header)
  list(GET _sqlgrade_server 3 _lib)
  list(GET _sqlgrade_server 4 _suffix)
  if(NOT TARGET sqlgrade::${_name})
    find_package(PkgConfig QUIET)
    if(PkgConfig_FOUND)
      pkg_check_modules(SQLGRADE_PC_${_name} QUIET ${_pc})
    endif()
    find_path(SQLGRADE_${_name}_INCLUDE ${_header} HINTS ${SQLGRADE_PC_${_name}_INCLUDE_DIRS} PATH_SUFFIXES ${_suffix})
    find_library(SQLGRADE_${_name}_LIBRARY ${_lib} HINTS ${SQLGRADE_PC_${_name}_LIBRARY_DIRS})
    if(NOT SQLGRADE_${_name}_INCLUDE OR NOT SQLGRADE_${_name}_LIBRARY)
      message(FATAL_ERROR "${_pc} not found (Debian: libpq-dev, libmariadb-dev)")
    endif()
    add_library(sqlgrade::${_name} UNKNOWN IMPORTED)
    set_target_properties(sqlgrade::${_name} PROPERTIES IMPORTED_LOCATION "${SQLGRADE_${_name}_LIBRARY}"
                                                        INTERFACE_INCLUDE_DIRECTORIES "${SQLGRADE_${_name}_INCLUDE}")
  endif()
endforeach()

# DuckDB is not linked: sqlgrade dlopens libduckdb on first use (src/sqlgrade/engine/duckdb_loader.cpp),
# at the absolute path it was built against, or $SQLGRADE_DUCKDB_LIBRARY.
