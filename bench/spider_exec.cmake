# bench/spider_exec_floor: the SQLite execution floor for `sqlgrade spider` (see bench/spider_exec.sh).
add_executable(spider_exec_floor ${CMAKE_SOURCE_DIR}/bench/spider_exec_floor.cpp)
target_link_libraries(spider_exec_floor PRIVATE SQLite::SQLite3)
