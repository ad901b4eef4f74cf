# BIRD (original + Mini-Dev): EX, Soft-F1, EM+F1, VES/R-VES; works_cycles subset and schema prompt.
file(GLOB BIRD_SOURCES CONFIGURE_DEPENDS
     src/sqlgrade/compare/bird.cpp src/sqlgrade/suites/bird*.cpp src/sqlgrade/report/bird*.cpp)
file(GLOB BIRD_TESTS CONFIGURE_DEPENDS tests/unit/bird_*_test.cpp)
sqlgrade_module(NAME bird SOURCES ${BIRD_SOURCES} COMMAND src/cli/bird_cmd.cpp TESTS ${BIRD_TESTS})
