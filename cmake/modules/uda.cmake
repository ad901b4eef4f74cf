# UDA-Bench / OpenQuest accuracy evaluator (module "uda"): statement splitting, query shape via
# DuckDB's parser, gold tables in DuckDB, row matching and cell scoring, cell judges.
file(GLOB UDA_SOURCES CONFIGURE_DEPENDS
     src/sqlgrade/sql/statements.cpp src/sqlgrade/sql/query_shape.cpp
     src/sqlgrade/compare/uda.cpp src/sqlgrade/judge/*.cpp
     src/sqlgrade/suites/uda_*.cpp)
file(GLOB UDA_TESTS CONFIGURE_DEPENDS tests/unit/uda_*_test.cpp)

# The LLM judge's HTTP client needs libcurl; without it `--judge llm` reports that it is unavailable.
find_package(CURL QUIET)
set(UDA_LIBS "")
if(CURL_FOUND)
  list(APPEND UDA_LIBS CURL::libcurl)
else()
  message(STATUS "sqlgrade uda: libcurl not found, the LLM judge is disabled")
endif()

sqlgrade_module(NAME uda SOURCES ${UDA_SOURCES} COMMAND src/cli/uda_cmd.cpp TESTS ${UDA_TESTS} LIBS ${UDA_LIBS})

if(TARGET sqlgrade_uda AND CURL_FOUND)
  target_compile_definitions(sqlgrade_uda PRIVATE SQLGRADE_HAVE_CURL=1)
endif()

# Scripted chat-completions server on loopback for the LLM judge's tests (cpp-httplib).
if(TARGET uda_tests)
  add_executable(fake_llm_server tests/tools/fake_llm_server.cpp)
  target_link_libraries(fake_llm_server PRIVATE sqlgrade_httplib nlohmann_json::nlohmann_json Threads::Threads)
  add_dependencies(uda_tests fake_llm_server)
  target_link_libraries(uda_tests PRIVATE sqlgrade_httplib)
  target_compile_definitions(uda_tests PRIVATE SQLGRADE_FAKE_LLM="$<TARGET_FILE:fake_llm_server>"
                                               $<$<BOOL:${CURL_FOUND}>:SQLGRADE_HAVE_CURL=1>)
endif()
