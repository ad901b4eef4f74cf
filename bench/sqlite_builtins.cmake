# bench/sqlite_builtins: sqlgrade's deadline-aware LIKE/GLOB/instr/replace/trim against SQLite's own
# built-ins on ordinary row-by-row workloads (docs/safety.md, "Engines and files").
add_executable(sqlite_builtins ${CMAKE_SOURCE_DIR}/bench/sqlite_builtins.cpp)
target_link_libraries(sqlite_builtins PRIVATE sqlgrade_engine)
