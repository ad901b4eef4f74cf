# Spider 2.0-Lite: official evaluate.py (exec_result and sql modes) and the tolerant "v2" evaluator
# (module "spider2").
set(SPIDER2_SOURCES
    src/sqlgrade/compare/spider2.cpp)
foreach(_f src/sqlgrade/compare/spider2_v2.cpp src/sqlgrade/suites/spider2.cpp src/sqlgrade/report/spider2.cpp)
  if(EXISTS "${CMAKE_SOURCE_DIR}/${_f}")
    list(APPEND SPIDER2_SOURCES ${_f})
  endif()
endforeach()
file(GLOB SPIDER2_TESTS CONFIGURE_DEPENDS tests/unit/spider2_*_test.cpp)

# The "spider" fragment (included before this one) globs compare/spider*.cpp and report/spider*.cpp,
# which also matches this module's files. Keep them out of sqlgrade_spider so each object is built
# and linked once (only our own files are removed; nothing else of that target is touched).
if(TARGET sqlgrade_spider)
  get_target_property(_sp_src sqlgrade_spider SOURCES)
  set(_sp_keep "")
  foreach(_s ${_sp_src})
    if(NOT _s MATCHES "(compare|report|suites)/spider2[^/]*\\.cpp$")
      list(APPEND _sp_keep ${_s})
    endif()
  endforeach()
  if(_sp_keep)
    set_property(TARGET sqlgrade_spider PROPERTY SOURCES ${_sp_keep})
  endif()
endif()

sqlgrade_module(NAME spider2 SOURCES ${SPIDER2_SOURCES} COMMAND src/cli/spider2_cmd.cpp TESTS ${SPIDER2_TESTS})
