/// @file acl.h
/// The CANN runtime entry header: aclInit/aclFinalize, the runtime (acl_rt.h), the recent error
/// message, and the tensor API (aclnn/acl_meta.h) used by ACLNN operators.
#ifndef ACL_ACL_H_
#define ACL_ACL_H_

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Initialises the runtime. @p configPath may be null (it is not read on the CPU device).
/// @return ACL_SUCCESS, or ACL_ERROR_REPEAT_INITIALIZE when already initialised.
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
/// Waits for every stream, then releases the runtime. @return ACL_ERROR_UNINITIALIZE if not initialised.
ACL_FUNC_VISIBILITY aclError aclFinalize(void);
/// The reason for the calling thread's most recent failure ("" if none). The string stays valid
/// until the thread's next failing call; reading it clears nothing. At most 2047 bytes (a longer
/// message is cut and ends in "...").
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif  // ACL_ACL_H_
