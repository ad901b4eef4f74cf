# `cmake --install`: the sqlgrade binary, the module libraries, the public headers (include/sqlgrade/)
# and a package config, so that another CMake project can
#     find_package(sqlgrade REQUIRED)
#     target_link_libraries(app PRIVATE sqlgrade::sqlgrade)
# sqlgrade::sqlgrade is an interface target over every module library (sqlgrade::sqlgrade_core, ...,
# also exported one by one). The libraries' own dependencies (SQLite, fmt, OpenSSL, ...) are found
# again by sqlgradeConfig.cmake through the same cmake/SqlgradeDependencies.cmake; DuckDB is not a
# link dependency (engine/duckdb_loader.cpp dlopens it on first use).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(_sqlgrade_modules GLOBAL PROPERTY SQLGRADE_LIBRARIES)
add_library(sqlgrade_all INTERFACE)
set_target_properties(sqlgrade_all PROPERTIES EXPORT_NAME sqlgrade)
target_link_libraries(sqlgrade_all INTERFACE ${_sqlgrade_modules})
add_library(sqlgrade::sqlgrade ALIAS sqlgrade_all)

install(TARGETS sqlgrade RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS sqlgrade_all ${_sqlgrade_modules} EXPORT sqlgradeTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/sqlgrade DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
install(FILES "${PROJECT_BINARY_DIR}/generated/include/sqlgrade/version.hpp"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sqlgrade)

set(_cfg_dir ${CMAKE_INSTALL_LIBDIR}/cmake/sqlgrade)
install(EXPORT sqlgradeTargets NAMESPACE sqlgrade:: DESTINATION ${_cfg_dir})
configure_package_config_file(cmake/sqlgradeConfig.cmake.in "${PROJECT_BINARY_DIR}/sqlgradeConfig.cmake"
                              INSTALL_DESTINATION ${_cfg_dir})
write_basic_package_version_file("${PROJECT_BINARY_DIR}/sqlgradeConfigVersion.cmake"
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/sqlgradeConfig.cmake" "${PROJECT_BINARY_DIR}/sqlgradeConfigVersion.cmake"
              cmake/SqlgradeDependencies.cmake
        DESTINATION ${_cfg_dir})
