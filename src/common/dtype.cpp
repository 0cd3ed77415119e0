#include "common/dtype.h"

namespace aclnn_cpu {

size_t DTypeSize(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    case ACL_COMPLEX32: return 4;
    default: return 0;
  }
}

const char* DTypeShortName(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT: return "fp32";
    case ACL_FLOAT16: return "fp16";
    case ACL_BF16: return "bf16";
    case ACL_DOUBLE: return "fp64";
    default: return "?";
  }
}

const char* DTypeName(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT: return "FLOAT";
    case ACL_FLOAT16: return "FLOAT16";
    case ACL_BF16: return "BF16";
    case ACL_DOUBLE: return "DOUBLE";
    case ACL_INT8: return "INT8";
    case ACL_INT16: return "INT16";
    case ACL_INT32: return "INT32";
    case ACL_INT64: return "INT64";
    case ACL_UINT8: return "UINT8";
    case ACL_UINT16: return "UINT16";
    case ACL_UINT32: return "UINT32";
    case ACL_UINT64: return "UINT64";
    case ACL_BOOL: return "BOOL";
    case ACL_STRING: return "STRING";
    case ACL_COMPLEX32: return "COMPLEX32";
    case ACL_COMPLEX64: return "COMPLEX64";
    case ACL_COMPLEX128: return "COMPLEX128";
    case ACL_DT_UNDEFINED: return "UNDEFINED";
    default: return kUnknownDTypeName;
  }
}

const char* FormatName(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_UNDEFINED: return "UNDEFINED";
    case ACL_FORMAT_NCHW: return "NCHW";
    case ACL_FORMAT_NHWC: return "NHWC";
    case ACL_FORMAT_ND: return "ND";
    case ACL_FORMAT_NC1HWC0: return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z: return "FRACTAL_Z";
    case ACL_FORMAT_NC1HWC0_C04: return "NC1HWC0_C04";
    case ACL_FORMAT_HWCN: return "HWCN";
    case ACL_FORMAT_NDHWC: return "NDHWC";
    case ACL_FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
    case ACL_FORMAT_NCDHW: return "NCDHW";
    case ACL_FORMAT_NDC1HWC0: return "NDC1HWC0";
    case ACL_FRACTAL_Z_3D: return "FRACTAL_Z_3D";
    case ACL_FORMAT_NC: return "NC";
    case ACL_FORMAT_NCL: return "NCL";
    default: return "UNKNOWN";
  }
}

bool IsSupportedFloat(aclDataType dtype) {
  return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16 || dtype == ACL_DOUBLE;
}

aclDataType PromoteFloat(aclDataType a, aclDataType b) {
  if (a == b) return a;
  if (a == ACL_DOUBLE || b == ACL_DOUBLE) return ACL_DOUBLE;
  // Any other mix (fp16+bf16, fp16+fp32, bf16+fp32) meets in fp32.
  return ACL_FLOAT;
}

bool CanCast(aclDataType from, aclDataType to) { return IsSupportedFloat(from) && IsSupportedFloat(to); }

double LoadAsDouble(const void* data, aclDataType dtype, int64_t index) {
  switch (dtype) {
    case ACL_FLOAT: return static_cast<const float*>(data)[index];
    case ACL_DOUBLE: return static_cast<const double*>(data)[index];
    case ACL_FLOAT16: return HalfToFloat(static_cast<const Half*>(data)[index]);
    case ACL_BF16: return BFloat16ToFloat(static_cast<const BFloat16*>(data)[index]);
    default: return 0.0;
  }
}

void StoreFromDouble(void* data, aclDataType dtype, int64_t index, double value) {
  switch (dtype) {
    case ACL_FLOAT: static_cast<float*>(data)[index] = static_cast<float>(value); break;
    case ACL_DOUBLE: static_cast<double*>(data)[index] = value; break;
    case ACL_FLOAT16:
      static_cast<Half*>(data)[index] = FloatToHalf(DoubleToFloatRoundToOdd(value));
      break;
    case ACL_BF16:
      static_cast<BFloat16*>(data)[index] = FloatToBFloat16(DoubleToFloatRoundToOdd(value));
      break;
    default: break;
  }
}

}  // namespace aclnn_cpu
