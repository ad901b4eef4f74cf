# bench/spider_match: CPU time of Spider exact-set-match work (tokenize + parse + rebuild + hardness +
# components) for the 1034 dev pairs, after start-up (schemas loaded). See bench/spider_match.sh.
if(benchmark_FOUND AND TARGET sqlgrade_spider)
  add_executable(spider_match_bench ${CMAKE_SOURCE_DIR}/bench/spider_match.cpp)
  target_link_libraries(spider_match_bench PRIVATE sqlgrade_spider benchmark::benchmark)
endif()
