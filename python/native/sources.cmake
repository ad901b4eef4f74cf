# The native module's sources and the sqlgrade libraries it links, shared by the development build
# (python/CMakeLists.txt: sqlgrade_<module> targets) and the portable wheels (python/wheel/CMakeLists.txt:
# the same libraries imported from a build tree as sqlgrade::sqlgrade_<module>).
set(SQLGRADE_NATIVE_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/module.cpp ${CMAKE_CURRENT_LIST_DIR}/evaluate.cpp
    ${CMAKE_CURRENT_LIST_DIR}/spider_eval.cpp ${CMAKE_CURRENT_LIST_DIR}/runs.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tables.cpp)
set(SQLGRADE_NATIVE_LIBRARIES sqlgrade_verdict sqlgrade_verify sqlgrade_spider sqlgrade_bird sqlgrade_spider2 sqlgrade_uda)
