# UDA-Bench / OpenQuest accuracy evaluator (module "uda"): statement splitting, query shape via
# DuckDB's parser, gold tables in DuckDB, row matching and cell scoring, cell judges.
file(GLOB UDA_SOURCES CONFIGURE_DEPENDS
     src/sqlgrade/sql/statements.cpp src/sqlgrade/sql/query_shape.cpp
     src/sqlgrade/compare/uda.cpp src/sqlgrade/judge/*.cpp
     src/sqlgrade/suites/uda.cpp src/sqlgrade/suites/uda_*.cpp)
file(GLOB UDA_TESTS CONFIGURE_DEPENDS tests/unit/uda_*_test.cpp)
sqlgrade_module(NAME uda SOURCES ${UDA_SOURCES} COMMAND src/cli/uda_cmd.cpp TESTS ${UDA_TESTS})
