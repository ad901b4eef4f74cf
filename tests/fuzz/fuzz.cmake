# libFuzzer targets (issue 7), built only with -DSQLGRADE_FUZZ=ON and clang:
#   cmake -S . -B build-fuzz -DSQLGRADE_FUZZ=ON -DSQLGRADE_SANITIZE=ON -DSQLGRADE_BENCH=OFF \
#         -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
#   cmake --build build-fuzz -j2 --target sqlgrade_fuzzers
# scripts/fuzz.sh builds and runs them (short CI run or long runs).
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "SQLGRADE_FUZZ needs clang (libFuzzer): -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang")
endif()

# Coverage instrumentation for the libraries the targets exercise (no libFuzzer main in them).
get_property(_sqlgrade_libs GLOBAL PROPERTY SQLGRADE_LIBRARIES)
foreach(_lib ${_sqlgrade_libs})
  get_target_property(_type ${_lib} TYPE)
  if(NOT _type STREQUAL "INTERFACE_LIBRARY")
    target_compile_options(${_lib} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endforeach()

add_custom_target(sqlgrade_fuzzers)
function(sqlgrade_fuzzer name)
  cmake_parse_arguments(F "" "" "LIBS" ${ARGN})
  foreach(_l ${F_LIBS})
    if(NOT TARGET ${_l})
      message(STATUS "sqlgrade fuzz: ${name} skipped (${_l} absent)")
      return()
    endif()
  endforeach()
  add_executable(${name} "${CMAKE_SOURCE_DIR}/tests/fuzz/${name}.cpp")
  target_link_libraries(${name} PRIVATE ${F_LIBS} sqlgrade_core)
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/fuzz")
  add_dependencies(sqlgrade_fuzzers ${name})
endfunction()

sqlgrade_fuzzer(fuzz_spider_parser LIBS sqlgrade_spider)
sqlgrade_fuzzer(fuzz_extract_sql LIBS sqlgrade_answer sqlgrade_uda)
sqlgrade_fuzzer(fuzz_csv)
sqlgrade_fuzzer(fuzz_json_readers LIBS sqlgrade_bird sqlgrade_spider2 sqlgrade_spider sqlgrade_serve)
sqlgrade_fuzzer(fuzz_run_record LIBS sqlgrade_runs)
