# The twin's install: the layout of tikicpulib in a CANN toolkit, so that
#   list(APPEND CMAKE_PREFIX_PATH <prefix>/tools/tikicpulib/lib/cmake)
#   find_package(tikicpulib REQUIRED)
#   target_link_libraries(t PRIVATE tikicpulib::ascend910B1 gtest)
# works against <prefix>. Part of the top-level install when built from the project.
include(CMakePackageConfigHelpers)

install(TARGETS ascendc_cpu ${ASCENDC_CPU_SOC_TARGETS} EXPORT tikicpulibTargets COMPONENT ascendc_cpu
        ARCHIVE DESTINATION ${ASCENDC_CPU_INSTALL_ROOT}/lib
        INCLUDES DESTINATION ${ASCENDC_CPU_INSTALL_ROOT}/include)
install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${ASCENDC_CPU_INSTALL_ROOT}/include
        COMPONENT ascendc_cpu)
install(EXPORT tikicpulibTargets NAMESPACE tikicpulib::
        DESTINATION ${ASCENDC_CPU_INSTALL_ROOT}/lib/cmake/tikicpulib COMPONENT ascendc_cpu)
configure_package_config_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/tikicpulibConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tikicpulibConfig.cmake
  INSTALL_DESTINATION ${ASCENDC_CPU_INSTALL_ROOT}/lib/cmake/tikicpulib)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tikicpulibConfigVersion.cmake
  VERSION 0.1.0 COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tikicpulibConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/tikicpulibConfigVersion.cmake
        DESTINATION ${ASCENDC_CPU_INSTALL_ROOT}/lib/cmake/tikicpulib COMPONENT ascendc_cpu)
