# Reliability and security tests (issue 7, module "safety"): the adversarial corpus run through
# every benchmark mode, hostile input files, determinism across thread counts, fuzz-crash
# regressions. Tests only; the peak-RSS helper (src/sqlgrade/util/memory.cpp) is part of sqlgrade_core.
file(GLOB SAFETY_TESTS CONFIGURE_DEPENDS tests/unit/safety_*_test.cpp)
# The corpus tests measure wall-clock deadlines: they get their own binary whose tests run alone
# (RUN_SERIAL), so that ctest -j does not load the machine under them.
list(FILTER SAFETY_TESTS EXCLUDE REGEX "safety_corpus_test\\.cpp$")
# sqlgrade_module needs one library source: a one-line translation unit.
file(CONFIGURE OUTPUT "${CMAKE_BINARY_DIR}/generated/safety_module.cpp"
     CONTENT "// sqlgrade safety module: tests only (see cmake/modules/safety.cmake)\nnamespace sqlgrade { int safety_module_anchor = 0; }\n")
sqlgrade_module(NAME safety SOURCES "${CMAKE_BINARY_DIR}/generated/safety_module.cpp" TESTS ${SAFETY_TESTS})

# The benchmark modules it drives are defined by fragments included after this one (alphabetical),
# so they are linked at the end of the top-level directory.
if(TARGET sqlgrade_safety)
  add_executable(safety_corpus_tests tests/unit/safety_corpus_test.cpp)
  target_link_libraries(safety_corpus_tests PRIVATE sqlgrade_safety sqlgrade_testsupport)
  target_compile_definitions(safety_corpus_tests PRIVATE SQLGRADE_CLI="$<TARGET_FILE:sqlgrade>")
  add_dependencies(safety_corpus_tests sqlgrade)
  gtest_discover_tests(safety_corpus_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 900 RUN_SERIAL TRUE)

  function(sqlgrade_safety_link_modules)
    foreach(m spider bird spider2 uda serve)
      if(TARGET sqlgrade_${m})
        target_link_libraries(sqlgrade_safety PUBLIC sqlgrade_${m})
      else()
        message(WARNING "sqlgrade safety: module ${m} absent, its safety tests will not build")
      endif()
    endforeach()
  endfunction()
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL sqlgrade_safety_link_modules)
endif()
