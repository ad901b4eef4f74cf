# Spider 2.0-Lite: official evaluate.py (exec_result and sql modes) and the tolerant "v2" evaluator
# (module "spider2").
set(SPIDER2_SOURCES
    src/sqlgrade/compare/spider2.cpp src/sqlgrade/compare/spider2_v2.cpp
    src/sqlgrade/suites/spider2.cpp src/sqlgrade/report/spider2.cpp)
file(GLOB SPIDER2_TESTS CONFIGURE_DEPENDS tests/unit/spider2_*_test.cpp)
sqlgrade_module(NAME spider2 SOURCES ${SPIDER2_SOURCES} COMMAND src/cli/spider2_cmd.cpp TESTS ${SPIDER2_TESTS})
