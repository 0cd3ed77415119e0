// A correct kernel (the BCE gradient of kernels/bce_grad_kernel.h) over float, half and
// bfloat16_t: tails, multi-core splits and double-buffered queues give no findings, results agree
// with a float64 reference within the stated error, and every run order gives the same bits.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/bce_grad_kernel.h"
#include "twin_test_util.h"

namespace {

using twin_test::Describe;
using twin_test::Findings;
using twin_test::GmArray;

struct Case {
    uint64_t elements;
    uint64_t cores;
    uint32_t tile;
};

std::string Name(const Case& c)
{
    return std::to_string(c.elements) + " on " + std::to_string(c.cores) + " cores, tiles of " +
           std::to_string(c.tile);
}

template <typename T>
struct Kernel;
template <>
struct Kernel<float> {
    static constexpr auto* kEntry = &bce_grad_float;
    static constexpr double kOutputUlp = 0.0;  // float output: no extra rounding
    static constexpr double kOutputSubnormal = 0.0;
};
template <>
struct Kernel<half> {
    static constexpr auto* kEntry = &bce_grad_half;
    static constexpr double kOutputUlp = 0x1p-11;
    static constexpr double kOutputSubnormal = 0x1p-25;  // half of half's smallest subnormal
};
template <>
struct Kernel<bfloat16_t> {
    static constexpr auto* kEntry = &bce_grad_bfloat16;
    static constexpr double kOutputUlp = 0x1p-8;
    static constexpr double kOutputSubnormal = 0x1p-134;
};

/// Runs the kernel on random inputs; returns the gradient as float.
template <typename T>
std::vector<float> Run(const Case& c, float scale, std::vector<double>* reference, std::vector<double>* bound)
{
    GmArray<T> predict(c.elements);
    GmArray<T> target(c.elements);
    GmArray<T> dout(c.elements);
    GmArray<T> gradient(c.elements);
    GmArray<BceGradTiling> tiling(1);
    tiling[0] = MakeBceGradTiling(c.elements, c.cores, c.tile, scale);
    std::mt19937 generator(static_cast<uint32_t>(c.elements * 31 + c.cores));
    std::uniform_real_distribution<float> logits(-12.0f, 12.0f);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::uniform_real_distribution<float> grads(-2.0f, 2.0f);
    for (uint64_t i = 0; i < c.elements; ++i) {
        predict[i] = static_cast<T>(logits(generator));
        target[i] = static_cast<T>(unit(generator));
        dout[i] = static_cast<T>(grads(generator));
    }
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(Kernel<T>::kEntry, c.cores, predict.gm(), target.gm(), dout.gm(), gradient.gm(), tl);
    std::vector<float> out(c.elements);
    for (uint64_t i = 0; i < c.elements; ++i) {
        out[i] = static_cast<float>(gradient[i]);
        const double x = static_cast<float>(predict[i]);
        const double y = static_cast<float>(target[i]);
        const double d = static_cast<float>(dout[i]);
        const double sigmoid = 1.0 / (1.0 + std::exp(-x));
        const double g = (sigmoid - y) * d * scale;
        reference->push_back(g);
        // float: a few roundings of operands of magnitude |sigmoid| + |y| (README, "Numbers");
        // half and bfloat16_t add the rounding of the output.
        bound->push_back(8 * 0x1p-24 * (sigmoid + std::fabs(y)) * std::fabs(d * scale) +
                         Kernel<T>::kOutputUlp * std::fabs(g) + Kernel<T>::kOutputSubnormal);
    }
    return out;
}

template <typename T>
class BceGrad : public testing::Test {};

using Types = testing::Types<float, half, bfloat16_t>;
TYPED_TEST_SUITE(BceGrad, Types);

const Case kCases[] = {
    {1, 1, 256},      {15, 1, 256},    {16, 1, 256},     {17, 1, 256},    {1000, 3, 256},
    {4099, 8, 1024},  {40000, 48, 512}, {5, 8, 256},     {12345, 7, 2048},
};

TYPED_TEST(BceGrad, MatchesTheFloat64ReferenceWithoutFindings)
{
    for (const Case& c : kCases) {
        std::vector<double> reference;
        std::vector<double> bound;
        const std::vector<float> out = Run<TypeParam>(c, 1.0f / 3.0f, &reference, &bound);
        ASSERT_TRUE(Findings().empty()) << Name(c) << "\n" << Describe(Findings());
        for (size_t i = 0; i < out.size(); ++i) {
            ASSERT_LE(std::fabs(out[i] - reference[i]), bound[i])
                << Name(c) << " element " << i << ": " << out[i] << " vs " << reference[i];
        }
    }
}

TYPED_TEST(BceGrad, EveryRunOrderGivesTheSameBits)
{
    const Case c{20000, 16, 512};
    std::vector<double> reference;
    std::vector<double> bound;
    const std::vector<float> first = Run<TypeParam>(c, 1.0f, &reference, &bound);
    for (const char* order : {"reverse", "shuffle:11", "shuffle:12"}) {
        twin_test::ScopedEnv env("ASCENDC_CPU_ORDER", order);
        const std::vector<float> again = Run<TypeParam>(c, 1.0f, &reference, &bound);
        ASSERT_TRUE(Findings().empty()) << order << "\n" << Describe(Findings());
        ASSERT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)), 0) << order;
    }
}

TYPED_TEST(BceGrad, ChecksOffGiveTheSameBits)
{
    const Case c{9999, 5, 1024};
    std::vector<double> reference;
    std::vector<double> bound;
    const std::vector<float> on = Run<TypeParam>(c, 1.0f, &reference, &bound);
    twin_test::ScopedEnv env("ASCENDC_CPU_CHECKS", "0");
    const std::vector<float> off = Run<TypeParam>(c, 1.0f, &reference, &bound);
    ASSERT_EQ(std::memcmp(on.data(), off.data(), on.size() * sizeof(float)), 0);
}

}  // namespace
