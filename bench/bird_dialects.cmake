# bench/bird_dialects_floor: the PostgreSQL / MySQL execution floor for `sqlgrade bird --sql_dialect`
# (see bench/bird_dialects.sh).
add_executable(bird_dialects_floor ${CMAKE_SOURCE_DIR}/bench/bird_dialects_floor.cpp)
target_link_libraries(bird_dialects_floor PRIVATE sqlgrade_engine_server sqlgrade::libpq sqlgrade::mariadb
                                                  nlohmann_json::nlohmann_json)
