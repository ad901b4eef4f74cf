# bench/sqlite_needs: what real predictions need inside SQLite (memory, temporary files, time), the
# figures the engine's default bounds are sized from (docs/safety.md, "Bounds that keep every official number").
add_executable(sqlite_needs ${CMAKE_SOURCE_DIR}/bench/sqlite_needs.cpp)
target_link_libraries(sqlite_needs PRIVATE sqlgrade_spider)
