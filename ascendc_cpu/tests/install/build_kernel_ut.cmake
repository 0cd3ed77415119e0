# cmake -P script of the install tests. Installs the twin (component ascendc_cpu) from the build in
# BUILD_DIR into PREFIX, then builds and runs the scale_add kernel UT against that install, either
# through find_package(tikicpulib) (MODE=cmake) or through the documented g++ line (MODE=gxx).
# Variables: BUILD_DIR, PREFIX, WORK_DIR, SOURCE_DIR (this folder), MODE, CXX_COMPILER, GENERATOR,
# MAKE_PROGRAM, SANITIZE.
cmake_minimum_required(VERSION 3.25)

function(run_step what)
  message(STATUS "${what}: ${ARGN}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
endfunction()

run_step("build the twin" ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ascendc_cpu)
file(REMOVE_RECURSE ${PREFIX} ${WORK_DIR})
run_step("install the twin" ${CMAKE_COMMAND} --install ${BUILD_DIR} --component ascendc_cpu --prefix ${PREFIX})

set(sanitize_flags)
if(SANITIZE)
  set(sanitize_flags -fsanitize=${SANITIZE} -fno-omit-frame-pointer)
endif()

if(MODE STREQUAL "cmake")
  set(configure_args -S ${SOURCE_DIR} -B ${WORK_DIR} -G ${GENERATOR} -DASCEND_DIR=${PREFIX}
      -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  if(MAKE_PROGRAM)
    list(APPEND configure_args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
  endif()
  if(SANITIZE)
    string(REPLACE ";" " " flags "${sanitize_flags}")
    list(APPEND configure_args "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
  endif()
  run_step("configure the kernel UT" ${CMAKE_COMMAND} ${configure_args})
  file(STRINGS ${WORK_DIR}/CMakeCache.txt package_line REGEX "^tikicpulib_DIR:")
  string(FIND "${package_line}" "${PREFIX}/tools/tikicpulib/lib/cmake" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "find_package(tikicpulib) did not find the install in ${PREFIX}: ${package_line}")
  endif()
  run_step("build the kernel UTs" ${CMAKE_COMMAND} --build ${WORK_DIR} -j 2)
  file(GLOB uts ${WORK_DIR}/scale_add_ut_*)
  list(LENGTH uts count)
  if(NOT count EQUAL 7)
    message(FATAL_ERROR "expected 7 kernel UTs, built ${count}")
  endif()
  foreach(ut ${uts})
    run_step("run" ${ut})
  endforeach()
else()
  file(MAKE_DIRECTORY ${WORK_DIR})
  # The documented line (README, "Building a kernel test"): C++17, the install's include folder,
  # the CPU debug definitions, the kernel and its UT, the twin's library, gtest and threads.
  set(root ${PREFIX}/tools/tikicpulib)
  foreach(dtype float half bfloat16_t)
    run_step("g++ the kernel UT (${dtype})" ${CXX_COMPILER} -std=c++17 -O1 ${sanitize_flags}
      -I${root}/include -D__CCE_KT_TEST__=1 -DASCENDC_CPU_DEBUG=1 -D__NPU_ARCH__=2201 -D__CCE_AICORE__=220
      -D__DAV_C220__ -D__DAV_C220_VEC__ -D__DAV_VEC__ -DDTYPE_X=${dtype}
      ${SOURCE_DIR}/scale_add/tests/ut/op_kernel/test_scale_add.cpp
      ${root}/lib/libascendc_cpu.a -lgtest -lgtest_main -pthread -o ${WORK_DIR}/scale_add_ut_${dtype})
    run_step("run" ${WORK_DIR}/scale_add_ut_${dtype})
  endforeach()
endif()
