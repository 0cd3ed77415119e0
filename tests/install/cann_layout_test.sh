#!/usr/bin/env bash
# The install as a CANN toolkit: CANN's own build files and commands, unchanged but for the install
# path, build the CANN sample against it and the sample passes.
#   cann_layout_test.sh <build dir> <source dir> <work dir>
# 1. cmake --install into <work dir>/prefix; check the layout (lib64 names, set_env.sh, headers).
# 2. source set_env.sh; the guide's CMakeLists (cann_guide/) with the guide's commands:
#    cmake ../ -DCMAKE_CXX_COMPILER=g++ -DCMAKE_SKIP_RPATH=TRUE; make; cd bin; ./opapi_test
#    and again with the sample's include by bare name ("x.h", found in include/aclnn/);
# 3. the g++ lines of ops-nn's build.sh --run_example (built-in and custom-vendor forms), with
#    the sample's include written both as "aclnnop/x.h" and as "x.h".
# 4. with a fourth argument "ascendc" (a build with the twin), each sample built by the
#    guide's commands runs again with ACLNN_BCE_KERNELS=ascendc: API -> A2 tiling -> AscendC kernel
#    on the twin (Note [AscendC route]), its findings fatal, and the twin's summary line shows it ran.
set -euo pipefail
build_dir=$1 source_dir=$2 work=$3 route=${4:-}
samples=(test_aclnn_sigmoid_cross_entropy_with_logits_grad_v2.cpp test_aclnn_binary_cross_entropy_with_logits.cpp)
headers=(aclnn_binary_cross_entropy_with_logits_backward.h aclnn_binary_cross_entropy_with_logits.h)
# The AscendC kernel each sample's operator runs in the ascendc mode (as the twin's summary names it).
kernels=(sigmoid_cross_entropy_with_logits_grad_v2_typed sigmoid_cross_entropy_with_logits_v2_typed)
# Every public operator header, the two above with a CANN sample each and the four without one.
all_headers=("${headers[@]}" aclnn_binary_cross_entropy_with_logits_target_backward.h
             aclnn_binary_cross_entropy_with_logits_fused.h
             aclnn_binary_cross_entropy.h aclnn_binary_cross_entropy_backward.h)

rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
cmake --build "$build_dir" --target aclnn_bce > "$work/build.log"  # a no-op after a full build
cmake --install "$build_dir" --prefix "$prefix" > "$work/install.log"

for name in ascendcl acl_rt nnopbase opapi opapi_nn opapi_math cust_opapi; do
  [ -e "$prefix/lib64/lib$name.so" ] || { echo "missing lib64/lib$name.so"; exit 1; }
done
for f in set_env.sh include/acl/acl.h include/aclnn/acl_meta.h "${all_headers[@]/#/include/aclnnop/}" \
         "${all_headers[@]/#/include/aclnn/}"; do
  [ -e "$prefix/$f" ] || { echo "missing $f"; exit 1; }
done

# A clean environment: nothing of a real toolkit, nothing of the build tree.
unset ASCEND_HOME_PATH ASCEND_CUSTOM_PATH ASCEND_OPP_PATH ASCEND_TOOLKIT_HOME
export LD_LIBRARY_PATH=""
# shellcheck disable=SC1091
source "$prefix/set_env.sh"
[ "$ASCEND_HOME_PATH" = "$(cd "$prefix" && pwd)" ] || { echo "set_env.sh: ASCEND_HOME_PATH=$ASCEND_HOME_PATH"; exit 1; }

for k in 0 1; do
sample=${samples[$k]} header=${headers[$k]}
echo "== $sample: the guide's CMakeLists (the source file named) and commands"
guide="$work/guide_$k"
mkdir -p "$guide"
sed "s|test_aclnn_sigmoid_cross_entropy_with_logits_grad_v2.cpp|$sample|" \
  "$source_dir/tests/install/cann_guide/CMakeLists.txt" > "$guide/CMakeLists.txt"
cp "$source_dir/examples/$sample" "$guide/"
(cd "$guide" && mkdir -p build && cd build &&
  cmake ../ -DCMAKE_CXX_COMPILER=g++ -DCMAKE_SKIP_RPATH=TRUE > cmake.log && make > make.log &&
  cd bin && ./opapi_test)
if [ "$route" = ascendc ]; then
  echo "== $sample: the same program with ACLNN_BCE_KERNELS=ascendc (the AscendC kernel on the twin)"
  (cd "$guide/build/bin" &&
    ACLNN_BCE_KERNELS=ascendc ASCENDC_CPU_FATAL=1 ASCENDC_CPU_VERBOSE=1 ./opapi_test 2> twin.log &&
    cat twin.log &&
    grep -q "^ascendc-cpu: ${kernels[$k]}<float>: .* 0 errors, 0 warnings" twin.log) ||
    { echo "the sample did not run the AscendC kernel cleanly on the twin"; exit 1; }
fi

echo "== $sample: the guide's CMakeLists with the sample's include by bare name (\"$header\")"
flat_guide="$work/guide_flat_$k"
mkdir -p "$flat_guide"
cp "$guide/CMakeLists.txt" "$flat_guide/"
sed "s|#include \"aclnnop/$header\"|#include \"$header\"|" "$source_dir/examples/$sample" > "$flat_guide/$sample"
grep -q "#include \"$header\"" "$flat_guide/$sample" || { echo "the bare include was not written"; exit 1; }
(cd "$flat_guide" && mkdir -p build && cd build &&
  cmake ../ -DCMAKE_CXX_COMPILER=g++ -DCMAKE_SKIP_RPATH=TRUE > cmake.log && make > make.log &&
  cd bin && ./opapi_test)

echo "== $sample: ops-nn build.sh --run_example, built-in operators"
INCLUDE_PATH="${ASCEND_HOME_PATH}/include"
ACLNN_INCLUDE_PATH="${INCLUDE_PATH}/aclnn"
EAGER_LIBRARY_OPP_PATH="${ASCEND_OPP_PATH}/lib64"
EAGER_LIBRARY_PATH="${ASCEND_HOME_PATH}/lib64"
run="$work/run_example_$k"
mkdir -p "$run"
cp "$source_dir/examples/$sample" "$run/$sample"
sed "s|#include \"aclnnop/$header\"|#include \"$header\"|" "$source_dir/examples/$sample" > "$run/flat_$sample"
grep -q "#include \"$header\"" "$run/flat_$sample" || { echo "the flat include was not written"; exit 1; }
(cd "$run" &&
for file in "$sample" "flat_$sample"; do
  g++ ${file} -I ${INCLUDE_PATH} -I ${INCLUDE_PATH}/aclnnop -I ${ACLNN_INCLUDE_PATH} -L ${EAGER_LIBRARY_OPP_PATH} -L ${EAGER_LIBRARY_PATH} -lopapi_nn -lopapi_math -lascendcl -lnnopbase -o test_aclnn_example
  ./test_aclnn_example
done

echo "== $sample: ops-nn build.sh --run_example, a custom vendor package (libcust_opapi, libacl_rt)"
g++ "flat_$sample" -I ${INCLUDE_PATH} -I ${INCLUDE_PATH}/aclnnop -L ${EAGER_LIBRARY_PATH} -lcust_opapi -lopapi_math -lacl_rt -lnnopbase -o test_aclnn_cust
./test_aclnn_cust)
done
echo "cann layout: all samples passed"
