#pragma once
// Test helpers for the server tests: skip unless the throwaway server (and the Mini-Dev data) is there.
#include <gtest/gtest.h>

#include "test_servers.hpp"

// Declares DSN (the read-only login's URI of the Mini-Dev database on the shared server of `kind`) and
// SERVER (the shared TestServer). Skips the test when the server binaries or the data are not installed;
// fails it when they are and the server does not start or the dump does not load.
#define SQLGRADE_REQUIRE_SERVER_DB(kind)                                                      \
  std::string WHY_;                                                                           \
  bool SKIP_ = false;                                                                         \
  const std::string DSN = ::sqlgrade::testing::minidev_dsn((kind), WHY_, SKIP_);              \
  if (DSN.empty() && SKIP_) GTEST_SKIP() << WHY_;                                             \
  ASSERT_FALSE(DSN.empty()) << WHY_;                                                          \
  ::sqlgrade::testing::TestServer* SERVER = ::sqlgrade::testing::shared_server((kind), WHY_, SKIP_); \
  ASSERT_NE(SERVER, nullptr)
