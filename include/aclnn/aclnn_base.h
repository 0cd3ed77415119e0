/// @file aclnn_base.h
/// Common definitions of ACLNN operators.
#ifndef ACLNN_ACLNN_BASE_H_
#define ACLNN_ACLNN_BASE_H_

#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"

#ifndef ACLNN_API
#define ACLNN_API ACL_FUNC_VISIBILITY
#endif

#endif  // ACLNN_ACLNN_BASE_H_
