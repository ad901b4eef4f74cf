#pragma once
// A pool of DuckDB connections shared by worker threads: a connection is not thread-safe, opening one
// costs far more than a query on a small gold table, and a run needs at most one per worker. lease()
// hands out an idle connection (or opens one with `connect`) and takes it back when the lease ends.
// The DuckDB counterpart of SqlitePool (sqlite.hpp), which keeps one connection per thread and file.
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "sqlgrade/engine/duckdb.hpp"

namespace sqlgrade {

class DuckPool {
 public:
  using Connect = std::function<std::unique_ptr<DuckConn>()>;
  explicit DuckPool(Connect connect) : connect_(std::move(connect)) {}
  explicit DuckPool(DuckDb& db) : connect_([&db] { return db.connect(); }) {}

  class Lease {
   public:
    Lease(DuckPool& pool, std::unique_ptr<DuckConn> c) : pool_(&pool), conn_(std::move(c)) {}
    Lease(Lease&& o) noexcept : pool_(o.pool_), conn_(std::move(o.conn_)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() {
      if (conn_) pool_->put(std::move(conn_));
    }
    DuckConn& operator*() const { return *conn_; }
    DuckConn* operator->() const { return conn_.get(); }

   private:
    DuckPool* pool_;
    std::unique_ptr<DuckConn> conn_;
  };

  Lease lease() { return Lease(*this, get()); }

  // An idle connection, else a new one (outside the lock: connecting may take a while).
  std::unique_ptr<DuckConn> get() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (!free_.empty()) {
        auto c = std::move(free_.back());
        free_.pop_back();
        return c;
      }
    }
    return connect_();
  }
  void put(std::unique_ptr<DuckConn> c) {
    std::lock_guard<std::mutex> lk(mu_);
    free_.push_back(std::move(c));
  }
  size_t idle() const {
    std::lock_guard<std::mutex> lk(mu_);
    return free_.size();
  }

 private:
  Connect connect_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<DuckConn>> free_;
};

}  // namespace sqlgrade
