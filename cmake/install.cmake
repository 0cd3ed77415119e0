include(CMakePackageConfigHelpers)

install(TARGETS aclnn_bce EXPORT AclnnBceTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT AclnnBceTargets NAMESPACE AclnnBce:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/AclnnBce)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/AclnnBceConfig.cmake.in
  ${PROJECT_BINARY_DIR}/AclnnBceConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/AclnnBce)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/AclnnBceConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/AclnnBceConfig.cmake ${PROJECT_BINARY_DIR}/AclnnBceConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/AclnnBce)
include(${PROJECT_SOURCE_DIR}/cmake/cann_layout.cmake)
