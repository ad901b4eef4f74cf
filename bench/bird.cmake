# bench/bird_floor: the SQLite execution floor for `sqlgrade bird` (see bench/bird.sh).
add_executable(bird_floor ${CMAKE_SOURCE_DIR}/bench/bird_floor.cpp)
target_link_libraries(bird_floor PRIVATE SQLite::SQLite3 nlohmann_json::nlohmann_json)
