# The environment CANN's build files and programs expect, pointing at this install of the CPU
# library. Use from bash as a CANN toolkit's own script is used:
#   source <prefix>/set_env.sh
# The prefix is where this file lies, so the install can be moved.
_aclnn_cpu_prefix="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export ASCEND_HOME_PATH="${_aclnn_cpu_prefix}"     # ops-nn's build.sh: include/, lib64/
export ASCEND_CUSTOM_PATH="${_aclnn_cpu_prefix}"   # the "compile and run a sample" CMakeLists
export ASCEND_TOOLKIT_HOME="${_aclnn_cpu_prefix}"
export ASCEND_OPP_PATH="${_aclnn_cpu_prefix}/opp"  # build.sh links with -L ${ASCEND_OPP_PATH}/lib64
export LD_LIBRARY_PATH="${_aclnn_cpu_prefix}/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"
unset _aclnn_cpu_prefix
