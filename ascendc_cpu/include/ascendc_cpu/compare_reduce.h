// Compare/Compares/CompareScalar (a bit per element), Select (choose by those bits), and the
// whole-tensor reductions ReduceSum/ReduceMax/ReduceMin ("tensor前n个数据计算" forms).
#ifndef ASCENDC_CPU_COMPARE_REDUCE_H
#define ASCENDC_CPU_COMPARE_REDUCE_H

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ascendc_cpu/runtime.h"
#include "ascendc_cpu/tensor.h"
#include "ascendc_cpu/vector.h"

namespace AscendC {
namespace detail {

template <typename W>
inline bool CompareValues(W a, W b, CMPMODE mode)
{
    switch (mode) {
        case CMPMODE::LT: return a < b;
        case CMPMODE::GT: return a > b;
        case CMPMODE::EQ: return a == b;
        case CMPMODE::LE: return a <= b;
        case CMPMODE::GE: return a >= b;
        case CMPMODE::NE: return a != b;
    }
    return false;
}

/// Compare/Compares: bit i of dst (little-endian within each byte) is src0[i] <mode> rhs(i).
template <typename T, typename U, typename Rhs>
inline void CompareBits(const char* api, const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                        const LocalTensor<T>* src1, CMPMODE mode, uint32_t count, Rhs rhs)
{
    namespace rt = ::ascendc_cpu::rt;
    if (count == 0) {
        return;
    }
    const bool supported = kOneOf<T, half, float> || (std::is_same<T, int32_t>::value && mode == CMPMODE::EQ);
    if (!supported) {
        rt::ReportUnsupportedType(api, TypeName<T>());
        return;
    }
    uint64_t n = count;
    const uint64_t per_repeat = ::ascendc_cpu::kRepeatBytes / sizeof(T);
    if (n % per_repeat != 0) {
        rt::ReportCountNotWholeRepeats(api, count, static_cast<uint32_t>(per_repeat));
        n -= n % per_repeat;  // only whole 256-byte repeats are compared
        if (n == 0) {
            return;
        }
    }
    rt::VectorOp op(api);
    uint8_t* out = op.Write(dst.UbView(), n / 8, 1);
    const uint8_t* a = op.Read(src0.UbView(), n * sizeof(T), sizeof(T));
    const uint8_t* b = src1 != nullptr ? op.Read(src1->UbView(), n * sizeof(T), sizeof(T)) : nullptr;
    if (!op.Issue()) {
        return;
    }
    if (op.Tracking()) {
        const uint8_t* shadows[] = {op.Shadow(a), b != nullptr ? op.Shadow(b) : nullptr};
        rt::ShadowPackBits(op.Shadow(out), shadows, b != nullptr ? 2 : 1, sizeof(T), n);
    }
    const T* x = reinterpret_cast<const T*>(a);
    const T* y = reinterpret_cast<const T*>(b);
    for (uint64_t byte = 0; byte < n / 8; ++byte) {
        uint8_t bits = 0;
        for (uint32_t bit = 0; bit < 8; ++bit) {
            const uint64_t i = byte * 8 + bit;
            const bool r = CompareValues(Lane<T>::Load(x[i]), rhs(y, i), mode);
            bits = static_cast<uint8_t>(bits | (static_cast<uint8_t>(r) << bit));
        }
        out[byte] = bits;
    }
}

/// Select: dst[i] = bit i of the mask ? src0[i] : (src1 tensor or scalar)[i].
template <typename T, typename U, typename Other>
inline void SelectBits(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                       const LocalTensor<T>* src1, SELMODE selMode, uint32_t count, Other other)
{
    namespace rt = ::ascendc_cpu::rt;
    constexpr const char* api = "Select";
    if (count == 0) {
        return;
    }
    if (!kOneOf<T, half, float>) {
        rt::ReportUnsupportedType(api, TypeName<T>());
        return;
    }
    const bool scalar_mode = src1 == nullptr;
    if (scalar_mode != (selMode == SELMODE::VSEL_TENSOR_SCALAR_MODE)) {
        rt::CheckArgument(api, "selMode (VSEL_TENSOR_SCALAR_MODE exactly when src1 is a scalar)", 1, 0, 0);
        return;
    }
    // Mode 0 reuses the first 256/sizeof(T) mask bits in every repeat; modes 1 and 2 consume the
    // mask continuously.
    const uint64_t period = selMode == SELMODE::VSEL_CMPMASK_SPR ? ::ascendc_cpu::kRepeatBytes / sizeof(T) : 0;
    const uint64_t mask_bits = period != 0 ? (count < period ? count : period) : count;
    rt::VectorOp op(api);
    uint8_t* out = op.Write(dst.UbView(), static_cast<uint64_t>(count) * sizeof(T), sizeof(T));
    const uint8_t* mask = op.Read(selMask.UbView(), (mask_bits + 7) / 8, 1);
    const uint8_t* a = op.Read(src0.UbView(), static_cast<uint64_t>(count) * sizeof(T), sizeof(T));
    const uint8_t* b =
        src1 != nullptr ? op.Read(src1->UbView(), static_cast<uint64_t>(count) * sizeof(T), sizeof(T)) : nullptr;
    if (!op.Issue()) {
        return;
    }
    if (op.Tracking()) {
        rt::ShadowSelect(op.Shadow(out), sizeof(T), op.Shadow(mask), op.Shadow(a), b != nullptr ? op.Shadow(b) : nullptr,
                         period, count);
    }
    T* d = reinterpret_cast<T*>(out);
    const T* x = reinterpret_cast<const T*>(a);
    const T* y = reinterpret_cast<const T*>(b);
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t bit = period != 0 ? i % period : i;
        const bool take_src0 = ((mask[bit / 8] >> (bit % 8)) & 1u) != 0;
        d[i] = take_src0 ? x[i] : other(y, i);
    }
}

/// Sums in a fixed tree: consecutive pairs, then pairs of pairs (README, "Numbers").
template <typename Get>
inline float TreeSum(Get get, uint64_t begin, uint64_t n)
{
    if (n <= 8) {
        float s = 0.0f;
        for (uint64_t i = 0; i < n; ++i) {
            s += get(begin + i);
        }
        return s;
    }
    const uint64_t left = n / 2;
    return TreeSum(get, begin, left) + TreeSum(get, begin + left, n - left);
}

enum class ReduceKind { kSum, kMax, kMin };

template <typename T>
inline void Reduce(const char* api, ReduceKind kind, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                   const LocalTensor<T>& work, int32_t count, bool calIndex)
{
    namespace rt = ::ascendc_cpu::rt;
    if (count <= 0) {
        return;  // a count of 0 is a NOP
    }
    if (!kOneOf<T, half, float>) {
        rt::ReportUnsupportedType(api, TypeName<T>());
        return;
    }
    const uint64_t n = static_cast<uint64_t>(count);
    const uint64_t results = calIndex ? 2 : 1;
    rt::VectorOp op(api);
    op.AllowOverlap();  // dst may share its buffer with src or the work area
    uint8_t* out = op.Write(dst.UbView(), results * sizeof(T), sizeof(T), sizeof(T));
    const uint8_t* in = op.Read(src.UbView(), n * sizeof(T), sizeof(T));
    op.Read(work.UbView(), 0, sizeof(T));
    if (!op.Issue()) {
        return;
    }
    if (op.Tracking()) {
        rt::ShadowFill(op.Shadow(out), results * sizeof(T), rt::ShadowAll(op.Shadow(in), n * sizeof(T)));
    }
    const T* x = reinterpret_cast<const T*>(in);
    T* d = reinterpret_cast<T*>(out);
    if (kind == ReduceKind::kSum) {
        const float sum = TreeSum([x](uint64_t i) { return static_cast<float>(x[i]); }, 0, n);
        d[0] = static_cast<T>(sum);
        return;
    }
    uint64_t best = 0;
    for (uint64_t i = 1; i < n; ++i) {
        const float v = static_cast<float>(x[i]);
        const float b = static_cast<float>(x[best]);
        if (IsNan(b)) {
            break;
        }
        if (IsNan(v) || (kind == ReduceKind::kMax ? v > b : v < b)) {
            best = i;  // the first extreme value wins
        }
    }
    d[0] = x[best];
    if (calIndex) {
        // The index is stored as an integer in the element's bits.
        if constexpr (sizeof(T) == 4) {
            const uint32_t index = static_cast<uint32_t>(best);
            std::memcpy(&d[1], &index, sizeof(index));
        } else {
            const uint16_t index = static_cast<uint16_t>(best);
            std::memcpy(&d[1], &index, sizeof(index));
        }
    }
}

}  // namespace detail

template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    uint32_t count)
{
    detail::CompareBits("Compare", dst, src0, &src1, cmpMode, count,
                        [](const T* y, uint64_t i) { return detail::Lane<T>::Load(y[i]); });
}

template <typename T, typename U, typename S, typename = std::enable_if_t<detail::kScalarLike<S>>>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const S src1Scalar, CMPMODE cmpMode,
                     uint32_t count)
{
    const auto s = detail::Lane<T>::Load(static_cast<T>(src1Scalar));
    detail::CompareBits("Compares", dst, src0, static_cast<const LocalTensor<T>*>(nullptr), cmpMode, count, [s](const T*, uint64_t) { return s; });
}

template <typename T, typename U, typename S, typename = std::enable_if_t<detail::kScalarLike<S>>>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const S src1Scalar, CMPMODE cmpMode,
                          uint32_t count)
{
    const auto s = detail::Lane<T>::Load(static_cast<T>(src1Scalar));
    detail::CompareBits("CompareScalar", dst, src0, static_cast<const LocalTensor<T>*>(nullptr), cmpMode, count, [s](const T*, uint64_t) { return s; });
}

template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint32_t count)
{
    detail::SelectBits(dst, selMask, src0, &src1, selMode, count, [](const T* y, uint64_t i) { return y[i]; });
}

template <typename T, typename U, typename S, typename = std::enable_if_t<detail::kScalarLike<S>>>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, S src1,
                   SELMODE selMode, uint32_t count)
{
    const T value = static_cast<T>(src1);
    detail::SelectBits(dst, selMask, src0, static_cast<const LocalTensor<T>*>(nullptr), selMode, count, [value](const T*, uint64_t) { return value; });
}

template <typename T>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count)
{
    detail::Reduce("ReduceSum", detail::ReduceKind::kSum, dst, src, sharedTmpBuffer, count, false);
}

template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, bool calIndex = false)
{
    detail::Reduce("ReduceMax", detail::ReduceKind::kMax, dst, src, sharedTmpBuffer, count, calIndex);
}

template <typename T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, bool calIndex = false)
{
    detail::Reduce("ReduceMin", detail::ReduceKind::kMin, dst, src, sharedTmpBuffer, count, calIndex);
}

}  // namespace AscendC

#endif  // ASCENDC_CPU_COMPARE_REDUCE_H
