# The libraries sqlgrade links, found the same way by the build (CMakeLists.txt) and by the installed
# package config (sqlgradeConfig.cmake), so that `find_package(sqlgrade)` in another project gets the
# targets the exported libraries name. Expects:
#   SQLGRADE_WITH_CURL   the LLM judge was built with libcurl
# Defines the imported target utf8proc::utf8proc (unless it already exists).
if(COMMAND find_dependency)
  set(_sqlgrade_find find_dependency)
else()
  set(_sqlgrade_find find_package)
endif()
macro(_sqlgrade_need)
  if(_sqlgrade_find STREQUAL "find_dependency")
    find_dependency(${ARGN})
  else()
    find_package(${ARGN} REQUIRED)
  endif()
endmacro()

_sqlgrade_need(Threads)
_sqlgrade_need(SQLite3)
_sqlgrade_need(nlohmann_json 3)
_sqlgrade_need(fmt)
_sqlgrade_need(OpenSSL COMPONENTS Crypto)  # SHA-256: run-record inputs, shards, the reward server's gold cache
_sqlgrade_need(Boost 1.74)                  # headers only: Beast/Asio (HTTP), Boost.Math (McNemar)
_sqlgrade_need(ZLIB)                        # the reward server inflates gzip/deflate bodies with a bound
if(SQLGRADE_WITH_CURL)
  _sqlgrade_need(CURL)                      # the UDA LLM judge's HTTP client
endif()

# utf8proc (Debian libutf8proc-dev, no CMake package): Unicode normalisation (NFKC, case folding,
# marks) for the UDA text rules. pkg-config first, then a plain header + library lookup.
if(NOT TARGET utf8proc::utf8proc)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(SQLGRADE_UTF8PROC QUIET libutf8proc)
  endif()
  find_path(SQLGRADE_UTF8PROC_INCLUDE utf8proc.h HINTS ${SQLGRADE_UTF8PROC_INCLUDE_DIRS})
  find_library(SQLGRADE_UTF8PROC_LIBRARY utf8proc HINTS ${SQLGRADE_UTF8PROC_LIBRARY_DIRS})
  if(NOT SQLGRADE_UTF8PROC_INCLUDE OR NOT SQLGRADE_UTF8PROC_LIBRARY)
    message(FATAL_ERROR "utf8proc not found (Debian: libutf8proc-dev)")
  endif()
  add_library(utf8proc::utf8proc UNKNOWN IMPORTED)
  set_target_properties(utf8proc::utf8proc PROPERTIES IMPORTED_LOCATION "${SQLGRADE_UTF8PROC_LIBRARY}"
                                                      INTERFACE_INCLUDE_DIRECTORIES "${SQLGRADE_UTF8PROC_INCLUDE}")
endif()

# DuckDB is not linked: sqlgrade dlopens libduckdb on first use (src/sqlgrade/engine/duckdb_loader.cpp),
# at the absolute path it was built against, or $SQLGRADE_DUCKDB_LIBRARY.
