// aclnnop/aclnn_binary_cross_entropy_backward.h by its bare name,
// for build files that put include/aclnn/ on the include path, as CANN's sample guide does.
#pragma once
#include "../aclnnop/aclnn_binary_cross_entropy_backward.h"
