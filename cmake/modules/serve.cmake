# Reward server + SQL extraction (module "serve": subcommands `serve` and `extract-sql`).
# The comparison modules (bird, spider, spider2) are linked when they exist. serve.cmake is included
# before spider.cmake and spider2.cmake (alphabetical), so the check is deferred to the end of the
# top-level directory; each linked module also defines SQLGRADE_HAVE_<NAME>.
file(GLOB SERVE_TESTS CONFIGURE_DEPENDS tests/unit/serve_*_test.cpp)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)  # SHA-256 keys of the gold cache
find_package(Boost 1.74 REQUIRED)                  # header-only Beast/Asio: the HTTP front end
find_package(ZLIB REQUIRED)                        # Content-Encoding gzip/deflate, inflated with a bound

sqlgrade_module(NAME serve
  SOURCES src/sqlgrade/sql/extract.cpp src/sqlgrade/suites/reward_server.cpp src/sqlgrade/suites/reward_wire.cpp
          src/sqlgrade/suites/reward_gold_cache.cpp src/sqlgrade/suites/reward_verdict.cpp
          src/sqlgrade/suites/reward_metrics.cpp src/sqlgrade/suites/reward_http.cpp
          src/sqlgrade/suites/reward_http_body.cpp
  COMMAND src/cli/serve_cmd.cpp
  TESTS ${SERVE_TESTS}
  LIBS Boost::headers ZLIB::ZLIB OpenSSL::Crypto Threads::Threads)
# The HTTP tests drive the server with cpp-httplib's client.
if(TARGET serve_tests)
  target_link_libraries(serve_tests PRIVATE sqlgrade_httplib ZLIB::ZLIB)
endif()

if(TARGET sqlgrade_serve)
  function(sqlgrade_serve_link_benchmarks)
    foreach(m spider2 spider bird)
      if(TARGET sqlgrade_${m})
        string(TOUPPER "${m}" M)
        target_link_libraries(sqlgrade_serve PUBLIC sqlgrade_${m})
        target_compile_definitions(sqlgrade_serve PUBLIC SQLGRADE_HAVE_${M}=1)
        message(STATUS "sqlgrade serve: ${m} verdicts enabled")
      else()
        message(STATUS "sqlgrade serve: ${m} module absent, its verdicts answer 400")
      endif()
    endforeach()
  endfunction()
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL sqlgrade_serve_link_benchmarks)
endif()
