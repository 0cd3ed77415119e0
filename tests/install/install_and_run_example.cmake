# cmake -P script of the "install" test; see CMakeLists.txt beside it for the variables.
cmake_minimum_required(VERSION 3.25)

foreach(var PROJECT_BUILD_DIR INSTALL_PREFIX EXAMPLES_SOURCE_DIR EXAMPLES_BINARY_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "install_and_run_example.cmake: ${var} is not set")
  endif()
endforeach()

function(run_step what)
  message(STATUS "${what}: ${ARGN}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
endfunction()

set(config_args)
if(BUILD_CONFIG)
  set(config_args --config ${BUILD_CONFIG})
endif()

# 1. The library as this build makes it (a no-op right after a full build).
run_step("build the library" ${CMAKE_COMMAND} --build ${PROJECT_BUILD_DIR} --target aclnn_bce ${config_args})

# 2. A fresh install into a prefix of our own.
file(REMOVE_RECURSE ${INSTALL_PREFIX} ${EXAMPLES_BINARY_DIR})
run_step("install" ${CMAKE_COMMAND} --install ${PROJECT_BUILD_DIR} --prefix ${INSTALL_PREFIX} ${config_args})

# 3. examples/ as a separate project that finds the package only through CMAKE_PREFIX_PATH.
set(configure_args -S ${EXAMPLES_SOURCE_DIR} -B ${EXAMPLES_BINARY_DIR} -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${INSTALL_PREFIX} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(MAKE_PROGRAM)
  list(APPEND configure_args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()
if(BUILD_CONFIG)
  list(APPEND configure_args -DCMAKE_BUILD_TYPE=${BUILD_CONFIG})
endif()
if(SANITIZE)
  # An instrumented library needs an instrumented program (the sanitizer runtime comes first).
  list(APPEND configure_args "-DCMAKE_CXX_FLAGS=-fsanitize=${SANITIZE} -fno-omit-frame-pointer"
       "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${SANITIZE}")
endif()
run_step("configure examples" ${CMAKE_COMMAND} ${configure_args})

# The package must come from the prefix, not from the build tree or the system.
file(STRINGS ${EXAMPLES_BINARY_DIR}/CMakeCache.txt package_dir_line REGEX "^AclnnBce_DIR:")
string(REGEX REPLACE "^AclnnBce_DIR:[A-Z]+=" "" package_dir "${package_dir_line}")
file(REAL_PATH "${INSTALL_PREFIX}" real_prefix)
file(REAL_PATH "${package_dir}" real_package_dir)
string(FIND "${real_package_dir}" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "find_package(AclnnBce) found '${package_dir}', not the package installed in ${INSTALL_PREFIX}")
endif()
message(STATUS "find_package(AclnnBce) found ${package_dir}")

run_step("build examples" ${CMAKE_COMMAND} --build ${EXAMPLES_BINARY_DIR} ${config_args})

# 4. The CANN samples exit non-zero unless their results are the expected ones.
run_step("run the gradient sample" ${EXAMPLES_BINARY_DIR}/test_aclnn_sigmoid_cross_entropy_with_logits_grad_v2)
run_step("run the loss sample" ${EXAMPLES_BINARY_DIR}/test_aclnn_binary_cross_entropy_with_logits)
