# The layout of a CANN toolkit, added to the install so that CANN build files work unchanged
# against it (see README, "CANN build files"):
#   include/, include/aclnn/, include/aclnnop/   the headers (installed by install.cmake)
#   lib64/lib<name>.so                           CANN's library names, symlinks to our library
#   lib64/<our soname>                           so that the loader finds it through lib64 alone
#   opp/lib64 -> ../lib64                        where ops-nn's build.sh also looks
#   set_env.sh                                   ASCEND_HOME_PATH, ASCEND_CUSTOM_PATH, ...
# Symlinks rather than copies or linker scripts: a program linked with -lopapi_nn records our
# soname (DT_NEEDED), so it loads the one library whichever of the names it was linked with.
set(ACLNN_BCE_CANN_LIBRARY_NAMES ascendcl acl_rt nnopbase opapi opapi_nn opapi_math cust_opapi)

install(FILES ${PROJECT_SOURCE_DIR}/cmake/set_env.sh DESTINATION .)
install(CODE "
  set(prefix \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
  set(lib64 \"\${prefix}/lib64\")
  file(MAKE_DIRECTORY \"\${lib64}\" \"\${prefix}/opp\")
  file(RELATIVE_PATH libdir_from_lib64 \"\${lib64}\" \"\${prefix}/${CMAKE_INSTALL_LIBDIR}\")
  if(libdir_from_lib64 STREQUAL \"\")
    set(soname_target \"$<TARGET_SONAME_FILE_NAME:aclnn_bce>\")
  else()
    set(soname_target \"\${libdir_from_lib64}/$<TARGET_SONAME_FILE_NAME:aclnn_bce>\")
    file(CREATE_LINK \"\${soname_target}\" \"\${lib64}/$<TARGET_SONAME_FILE_NAME:aclnn_bce>\" SYMBOLIC)
    message(STATUS \"Installing: \${lib64}/$<TARGET_SONAME_FILE_NAME:aclnn_bce> -> \${soname_target}\")
  endif()
  foreach(name ${ACLNN_BCE_CANN_LIBRARY_NAMES})
    file(CREATE_LINK \"$<TARGET_SONAME_FILE_NAME:aclnn_bce>\" \"\${lib64}/lib\${name}.so\" SYMBOLIC)
    message(STATUS \"Installing: \${lib64}/lib\${name}.so -> $<TARGET_SONAME_FILE_NAME:aclnn_bce>\")
  endforeach()
  file(CREATE_LINK \"../lib64\" \"\${prefix}/opp/lib64\" SYMBOLIC)
")
