# ctest install.consumer: cmake -DBUILD=<sqlgrade build> -DSRC=<tests/consumer> -DUDA=<a UDA dataset folder>
#                          -DWORK=<temp> -P check.cmake
# Installs the build into WORK/prefix, configures and builds the consumer project against it with
# find_package(sqlgrade), runs it, and checks what it prints.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(step_out "${out}" PARENT_SCOPE)
endfunction()
step(${CMAKE_COMMAND} --install "${BUILD}" --prefix "${WORK}/prefix")
foreach(f bin/sqlgrade include/sqlgrade/spider2.hpp include/sqlgrade/uda.hpp include/sqlgrade/errors.hpp
          include/sqlgrade/version.hpp lib/cmake/sqlgrade/sqlgradeConfig.cmake lib/cmake/sqlgrade/sqlgradeConfigVersion.cmake)
  if(NOT EXISTS "${WORK}/prefix/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
# The public headers use the standard library only: every #include is <sqlgrade/...> or a standard
# header (a name without a dot or a slash: <string>, <optional>, ...).
file(GLOB public_headers "${WORK}/prefix/include/sqlgrade/*.hpp")
foreach(h ${public_headers})
  file(STRINGS "${h}" includes REGEX "^[ \t]*#[ \t]*include")
  foreach(line ${includes})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"].*" "\\1" name "${line}")
    if(NOT name MATCHES "^sqlgrade/[a-z0-9_]+\\.hpp$" AND NOT name MATCHES "^[a-z_]+$")
      message(FATAL_ERROR "${h}: includes <${name}>, which is neither a public sqlgrade header nor the standard library")
    endif()
  endforeach()
endforeach()
step(${CMAKE_COMMAND} -S "${SRC}" -B "${WORK}/build" -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release)
step(${CMAKE_COMMAND} --build "${WORK}/build")
step("${WORK}/build/consumer" "${WORK}/data" "${UDA}")
message(STATUS "consumer printed:\n${step_out}")
set(expected "local001 1 equal\nlocal002 0 different\nFinal score: 0.5, Correct examples: 1, Total examples: 2\n")
string(FIND "${step_out}" "${expected}" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "unexpected scores; expected to start with:\n${expected}")
endif()
foreach(needle "InputError: result directory not found" "memory size 512MiB: 1, 12 parsecs: 0"
               "6 statements in 1 dataset(s), 6 gold results, 0 gold errors" "uda: 6 scored, f1 1.000"
               "verdict 1.0 equal\nverdict 0.0 different\nverdict 0.0 pred_failed\nverdict 0.0 no_sql\n"
               "gold rows 1.0 equal\n" "rules 0.0 0.25 wrong_result 0\n" "execute ok n 1 1\n" "sqlgrade ")
  string(FIND "${step_out}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "missing from the output: ${needle}")
  endif()
endforeach()
# The installed binary runs too.
step("${WORK}/prefix/bin/sqlgrade" --version)
