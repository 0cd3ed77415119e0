// TransDataTo5HD: a 16x16 half transpose (LocalTensor lists), the documented NCHW -> NC1HWC0
// conversion (GetPhyAddr lists, repeats and strides) and the 1-byte halves, against references
// written here; 4-byte types and addresses outside UB are reported.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernel_operator.h"
#include "twin_test_util.h"

using namespace AscendC;

namespace {

constexpr uint32_t kBytes = 32768;  // source and destination bytes in UB

enum TransMode : uint32_t { kTranspose16, kNchwTo5hd, kBytesHighHalves, kFloat, kForeignAddress, kAddressTensor };

struct TransTiling {
    uint32_t mode;
};

}  // namespace

/// out = the destination after TransDataTo5HD over `in` (the destination starts as `init`).
template <typename T>
__global__ __aicore__ void transdata_kernel(GM_ADDR in, GM_ADDR init, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(TransTiling, t, tiling);
    constexpr uint32_t kN = kBytes / sizeof(T);
    GlobalTensor<T> inGm;
    GlobalTensor<T> initGm;
    GlobalTensor<T> outGm;
    inGm.SetGlobalBuffer((__gm__ T*)in, kN);
    initGm.SetGlobalBuffer((__gm__ T*)init, kN);
    outGm.SetGlobalBuffer((__gm__ T*)out, kN);
    TPipe pipe;
    TBuf<TPosition::VECCALC> a;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> lists;
    pipe.InitBuffer(a, kBytes);
    pipe.InitBuffer(b, kBytes);
    pipe.InitBuffer(lists, 2 * 16 * sizeof(uint64_t));
    LocalTensor<T> src = a.Get<T>();
    LocalTensor<T> dst = b.Get<T>();
    DataCopy(src, inGm, kN);
    DataCopy(dst, initGm, kN);
    PipeBarrier<PIPE_ALL>();
    constexpr uint32_t kPerBlock = 32 / sizeof(T);
    if (t.mode == kTranspose16 || t.mode == kFloat) {
        LocalTensor<T> dstList[16];
        LocalTensor<T> srcList[16];
        for (int i = 0; i < 16; ++i) {
            dstList[i] = dst[i * kPerBlock];
            srcList[i] = src[i * kPerBlock];
        }
        TransDataTo5HD<T>(dstList, srcList, TransDataTo5HDParams{false, false, 1, 0, 0});
    } else if (t.mode == kNchwTo5hd || t.mode == kAddressTensor) {
        // The documentation's example: NCHW (2, 32, 16, 16) -> NC1HWC0 (2, 2, 16, 16, 16).
        const TransDataTo5HDParams params{false, false, 16, 16, 1};
        for (int j = 0; j < 4; ++j) {
            uint64_t dstList[16];
            uint64_t srcList[16];
            for (int i = 0; i < 16; ++i) {
                dstList[i] = reinterpret_cast<uint64_t>(dst[j * 16 * 16 * 16 + 16 * i].GetPhyAddr());
                srcList[i] = reinterpret_cast<uint64_t>(src[j * 16 * 16 * 16 + 16 * 16 * i].GetPhyAddr());
            }
            if (t.mode == kNchwTo5hd) {
                TransDataTo5HD<T>(dstList, srcList, params);
            } else {
                LocalTensor<uint64_t> l = lists.Get<uint64_t>();
                for (int i = 0; i < 16; ++i) {
                    l.SetValue(i, dstList[i]);
                    l.SetValue(16 + i, srcList[i]);
                }
                TransDataTo5HD<T>(l, l[16], params);
            }
        }
    } else if (t.mode == kBytesHighHalves) {
        uint64_t dstList[16];
        uint64_t srcList[16];
        for (int i = 0; i < 16; ++i) {
            dstList[i] = reinterpret_cast<uint64_t>(dst[i * kPerBlock].GetPhyAddr());
            srcList[i] = reinterpret_cast<uint64_t>(src[i * kPerBlock].GetPhyAddr());
        }
        TransDataTo5HD<T>(dstList, srcList, TransDataTo5HDParams{true, true, 1, 0, 0});
    } else {
        uint64_t dstList[16];
        uint64_t srcList[16];
        for (int i = 0; i < 16; ++i) {
            dstList[i] = reinterpret_cast<uint64_t>(dst[i * kPerBlock].GetPhyAddr());
            srcList[i] = i == 5 ? 12345u : reinterpret_cast<uint64_t>(src[i * kPerBlock].GetPhyAddr());
        }
        TransDataTo5HD<T>(dstList, srcList, TransDataTo5HDParams{false, false, 1, 0, 0});
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(outGm, dst, kN);
}

namespace {

using twin_test::Describe;
using twin_test::Findings;
using twin_test::GmArray;

/// transdata_kernel<T>: its random input, the random initial destination and the result.
template <typename T>
struct TransResult {
    std::vector<T> in;
    std::vector<T> init;
    std::vector<T> out;
};

template <typename T>
TransResult<T> Transform(uint32_t mode)
{
    constexpr uint32_t kN = kBytes / sizeof(T);
    GmArray<T> in(kN);
    GmArray<T> init(kN);
    GmArray<T> out(kN);
    GmArray<TransTiling> tiling(1);
    tiling[0].mode = mode;
    std::mt19937 generator(mode + 1);
    TransResult<T> r{std::vector<T>(kN), std::vector<T>(kN), std::vector<T>(kN)};
    for (uint32_t i = 0; i < kN; ++i) {
        r.in[i] = in[i] = static_cast<T>(generator() % 1000);
        r.init[i] = init[i] = static_cast<T>(generator() % 1000);
    }
    ICPU_RUN_KF(transdata_kernel<T>, 1, in.gm(), init.gm(), out.gm(), tiling.gm());
    for (uint32_t i = 0; i < kN; ++i) {
        r.out[i] = out[i];
    }
    return r;
}

TEST(TransDataTo5HD, HalfBlocksTransposeSixteenBySixteen)
{
    const TransResult<int16_t> r = Transform<int16_t>(kTranspose16);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    for (uint32_t j = 0; j < 16; ++j) {
        for (uint32_t i = 0; i < 16; ++i) {
            ASSERT_EQ(r.out[j * 16 + i], r.in[i * 16 + j]) << j << " " << i;
        }
    }
    EXPECT_EQ(r.out[256], r.init[256]);  // past the 16 destination blocks: untouched
}

TEST(TransDataTo5HD, DocumentedNchwToNc1hwc0WithAddressLists)
{
    for (uint32_t mode : {kNchwTo5hd, kAddressTensor}) {
        const TransResult<uint16_t> r = Transform<uint16_t>(mode);
        ASSERT_TRUE(Findings().empty()) << Describe(Findings());
        // out[n][c1][h][w][c0] = in[n][c1 * 16 + c0][h][w]; N = 2, C = 32, H = W = 16.
        for (uint32_t n = 0; n < 2; ++n) {
            for (uint32_t c = 0; c < 32; ++c) {
                for (uint32_t hw = 0; hw < 256; ++hw) {
                    const uint32_t from = (n * 32 + c) * 256 + hw;
                    const uint32_t to = ((n * 2 + c / 16) * 256 + hw) * 16 + c % 16;
                    ASSERT_EQ(r.out[to], r.in[from]) << mode << ": n " << n << " c " << c << " hw " << hw;
                }
            }
        }
    }
}

TEST(TransDataTo5HD, BytesReadAndWriteTheChosenHalves)
{
    const TransResult<uint8_t> r = Transform<uint8_t>(kBytesHighHalves);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    for (uint32_t j = 0; j < 16; ++j) {
        for (uint32_t i = 0; i < 16; ++i) {
            ASSERT_EQ(r.out[j * 32 + 16 + i], r.in[i * 32 + 16 + j]) << j << " " << i;  // high halves
            ASSERT_EQ(r.out[j * 32 + i], r.init[j * 32 + i]) << j << " " << i;         // low halves kept
        }
    }
}

TEST(TransDataTo5HD, FourByteTypesAndForeignAddressesAreReported)
{
    const TransResult<float> f = Transform<float>(kFloat);
    EXPECT_TRUE(twin_test::OnlyCheck("unsupported")) << Describe(Findings());
    EXPECT_EQ(f.out[1], f.init[1]);
    const TransResult<half> h = Transform<half>(kForeignAddress);
    EXPECT_TRUE(twin_test::OnlyCheck("invalid-argument")) << Describe(Findings());
    EXPECT_EQ(h.out[1].bits, h.init[1].bits);
}

}  // namespace
