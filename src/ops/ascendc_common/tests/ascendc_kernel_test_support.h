// Test pieces shared by the AscendC kernels' tests on the twin (the backward's and the forward's):
// exact-size GM buffers, seeded fills, the largest errors seen, the sweep switch and the dtype
// names. Header-only; includes the twin's tikicpulib.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <initializer_list>
#include <string>
#include <vector>

#include "tikicpulib.h"

namespace bce_ascendc_test {

/// The data types of the kernels: the name the summaries print and the smallest |reference| a
/// relative error is measured at (fp16: its smallest normal).
template <typename T>
struct DTypeName;
template <>
struct DTypeName<float> {
    static constexpr const char* kName = "fp32";
    static constexpr double kRelativeFloor = 1e-6;
};
template <>
struct DTypeName<half> {
    static constexpr const char* kName = "fp16";
    static constexpr double kRelativeFloor = 0x1p-14;
};
template <>
struct DTypeName<bfloat16_t> {
    static constexpr const char* kName = "bf16";
    static constexpr double kRelativeFloor = 1e-6;
};

/// Whether BCE_ASCENDC_FULL_SWEEP=1 asks for the full sweep (docs/npu_kernels.md).
inline bool FullSweep()
{
    const char* value = std::getenv("BCE_ASCENDC_FULL_SWEEP");
    return value != nullptr && value[0] == '1';
}

/// The counts of a count sweep: every count from 1 to 4096 in the full sweep; in the quick part
/// every count to @p quick_limit, then @p boundaries (counts around tiles and cores).
inline std::vector<uint64_t> SweepCounts(uint64_t quick_limit, std::initializer_list<uint64_t> boundaries)
{
    std::vector<uint64_t> counts;
    const uint64_t limit = FullSweep() ? 4096 : quick_limit;
    for (uint64_t n = 1; n <= limit; ++n) counts.push_back(n);
    if (!FullSweep()) counts.insert(counts.end(), boundaries);
    return counts;
}

/// The last dimension C of [n / C, C] in the count sweeps: a divisor of n (1 and n included),
/// a different one from one n to the next.
inline uint64_t RowLengthOf(uint64_t n)
{
    std::vector<uint64_t> divisors;
    for (uint64_t d = 1; d <= n; ++d) {
        if (n % d == 0) divisors.push_back(d);
    }
    return divisors[(n * 7) % divisors.size()];
}

/// A random large divisor of n (n / d for one of its 64 smallest divisors d > 1), or n when it
/// has none: the last dimension of the random sizes.
inline uint64_t RandomRowLengthOf(uint64_t n, std::mt19937_64& rng)
{
    std::vector<uint64_t> divisors;
    for (uint64_t d = 2; d * d <= n && divisors.size() < 64; ++d) {
        if (n % d == 0) divisors.push_back(n / d);
    }
    return divisors.empty() ? n : divisors[rng() % divisors.size()];
}

/// @p value with 9 significant digits (enough to tell two floats apart).
inline std::string Digits(double value)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%.9g", value);
    return text;
}

/// The largest errors seen, over every value judged.
struct ErrorStats {
    double max_error_over_bound = 0;  ///< max |got - reference| / bound
    double max_relative_error = 0;    ///< max |got - reference| / |reference| where |reference| >= the floor
    uint64_t elements = 0;
    void Merge(const ErrorStats& o)
    {
        max_error_over_bound = std::max(max_error_over_bound, o.max_error_over_bound);
        max_relative_error = std::max(max_relative_error, o.max_relative_error);
        elements += o.elements;
    }
};

/// `count` elements of T in GM, exactly count * sizeof(T) bytes (none when count is 0).
template <typename T>
class GmBuffer {
public:
    explicit GmBuffer(uint64_t count)
        : data_(count == 0 ? nullptr : static_cast<T*>(AscendC::GmAlloc(count * sizeof(T))))
    {
    }
    ~GmBuffer()
    {
        if (data_ != nullptr) AscendC::GmFree(data_);
    }
    GmBuffer(const GmBuffer&) = delete;
    GmBuffer& operator=(const GmBuffer&) = delete;
    T& operator[](uint64_t i) const { return data_[i]; }
    uint8_t* gm() const { return reinterpret_cast<uint8_t*>(data_); }

private:
    T* data_;
};

/// Fills @p buffer with @p count values of @p draw rounded to T.
template <typename T, typename Draw>
void Fill(GmBuffer<T>& buffer, uint64_t count, std::mt19937_64& rng, Draw draw)
{
    for (uint64_t i = 0; i < count; ++i) buffer[i] = static_cast<T>(draw(rng));
}

/// The BCE tests' inputs: logits in [-20, 20]; labels a third hard 0, a third hard 1, a third
/// soft in [0, 1]; weights in [0, 2]; pos_weights in [0.25, 4].
struct BceDraws {
    std::uniform_real_distribution<double> logits{-20.0, 20.0};
    std::uniform_real_distribution<double> unit{0.0, 1.0};
    std::uniform_real_distribution<double> weights{0.0, 2.0};
    std::uniform_real_distribution<double> pos_weights{0.25, 4.0};
    double Label(std::mt19937_64& r)
    {
        const double u = unit(r);
        return u < 1.0 / 3 ? 0.0 : u < 2.0 / 3 ? 1.0 : unit(r);
    }
};

}  // namespace bce_ascendc_test
