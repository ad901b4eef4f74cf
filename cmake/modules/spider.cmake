# Spider 1.0 exact set match + test-suite execution accuracy (module "spider").
# Sources are picked up by name so that the parser/match files and the execution files can grow
# independently: src/sqlgrade/{sql,compare,suites,report}/spider_*.cpp, suites/spider.cpp and
# compare/testsuite*.cpp (spider2*.cpp belong to the spider2 module).
file(GLOB SPIDER_SOURCES CONFIGURE_DEPENDS
     src/sqlgrade/sql/spider_*.cpp src/sqlgrade/compare/spider_*.cpp src/sqlgrade/compare/testsuite*.cpp
     src/sqlgrade/suites/spider.cpp src/sqlgrade/suites/spider_*.cpp src/sqlgrade/report/spider_*.cpp)
file(GLOB SPIDER_TESTS CONFIGURE_DEPENDS tests/unit/spider_*_test.cpp)
sqlgrade_module(NAME spider SOURCES ${SPIDER_SOURCES} COMMAND src/cli/spider_cmd.cpp TESTS ${SPIDER_TESTS})
