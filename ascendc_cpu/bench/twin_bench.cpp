// The twin's speed (issue 30, point 7; a benchmark, not a test): the BCE gradient test kernel
// (tests/kernels/bce_grad_kernel.h) over 1 Mi and 16 Mi elements of float and bfloat16_t on 48
// cores, checks off and on, beside this library's own CPU kernel (aclnnBinaryCrossEntropyWithLogits-
// Backward, reduction none) when the benchmark is built in the project. Times are the process's
// CPU time per element (robust on a shared, loaded machine), the best of a few runs; both run one
// thread at a time (the twin in order, the library with ACLNN_CPU_NUM_THREADS=1) unless
// ASCENDC_CPU_ORDER / ACLNN_CPU_NUM_THREADS say otherwise.
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/bce_grad_kernel.h"
#include "tikicpulib.h"

#ifdef ASCENDC_CPU_BENCH_WITH_ACLNN
#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#endif

namespace {

constexpr uint64_t kCores = 48;
constexpr uint64_t kMi = 1ull << 20;

double Seconds()
{
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

/// The largest tile (a multiple of 16) whose buffers fit GetCoreMemSize(UB): 4 queues of 2
/// buffers of the element type and 4 float work tiles.
template <typename T>
uint32_t TileFor()
{
    const uint64_t per_element = 4 * 2 * sizeof(T) + 4 * sizeof(float);
    return static_cast<uint32_t>(ascendc_cpu::kUbBudgetBytes / per_element / 16 * 16);
}

struct Inputs {
    std::vector<float> predict;
    std::vector<float> target;
    std::vector<float> dout;
};

Inputs MakeInputs(uint64_t n)
{
    Inputs in{std::vector<float>(n), std::vector<float>(n), std::vector<float>(n)};
    std::mt19937 generator(1);
    std::uniform_real_distribution<float> logits(-8.0f, 8.0f);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    for (uint64_t i = 0; i < n; ++i) {
        in.predict[i] = logits(generator);
        in.target[i] = unit(generator);
        in.dout[i] = unit(generator);
    }
    return in;
}

template <typename T>
T* GmCopy(const std::vector<float>& values)
{
    T* gm = static_cast<T*>(AscendC::GmAlloc(values.size() * sizeof(T)));
    for (size_t i = 0; i < values.size(); ++i) {
        gm[i] = static_cast<T>(values[i]);
    }
    return gm;
}

/// Seconds per element of the best of `repeats` launches of the twin.
template <typename T, typename Entry>
double TimeTwin(Entry entry, const Inputs& in, bool checks, int repeats)
{
    const uint64_t n = in.predict.size();
    T* predict = GmCopy<T>(in.predict);
    T* target = GmCopy<T>(in.target);
    T* dout = GmCopy<T>(in.dout);
    T* gradient = static_cast<T*>(AscendC::GmAlloc(n * sizeof(T)));
    auto* tiling = static_cast<BceGradTiling*>(AscendC::GmAlloc(sizeof(BceGradTiling)));
    *tiling = MakeBceGradTiling(n, kCores, TileFor<T>(), 1.0f);
    setenv("ASCENDC_CPU_CHECKS", checks ? "1" : "0", 1);
    double best = 1e30;
    uint8_t* p = reinterpret_cast<uint8_t*>(predict);
    uint8_t* t = reinterpret_cast<uint8_t*>(target);
    uint8_t* d = reinterpret_cast<uint8_t*>(dout);
    uint8_t* g = reinterpret_cast<uint8_t*>(gradient);
    uint8_t* tl = reinterpret_cast<uint8_t*>(tiling);
    for (int r = 0; r < repeats; ++r) {
        const double start = Seconds();
        ICPU_RUN_KF(entry, kCores, p, t, d, g, tl);
        best = std::min(best, Seconds() - start);
    }
    if (!ascendc_cpu::LastRunFindings().empty()) {
        std::fprintf(stderr, "twin_bench: the kernel had findings\n");
        std::exit(1);
    }
    unsetenv("ASCENDC_CPU_CHECKS");
    AscendC::GmFree(predict);
    AscendC::GmFree(target);
    AscendC::GmFree(dout);
    AscendC::GmFree(gradient);
    AscendC::GmFree(tiling);
    return best / static_cast<double>(n);
}

#ifdef ASCENDC_CPU_BENCH_WITH_ACLNN
template <typename T>
aclTensor* DeviceTensor(const std::vector<float>& values, aclDataType type, void** device)
{
    const int64_t n = static_cast<int64_t>(values.size());
    std::vector<T> host(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        host[i] = static_cast<T>(values[i]);
    }
    aclrtMalloc(device, n * sizeof(T), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(*device, n * sizeof(T), host.data(), n * sizeof(T), ACL_MEMCPY_HOST_TO_DEVICE);
    const int64_t shape[1] = {n};
    const int64_t strides[1] = {1};
    return aclCreateTensor(shape, 1, type, strides, 0, ACL_FORMAT_ND, shape, 1, *device);
}

/// Seconds per element of the best of `repeats` calls of the library's kernel.
template <typename T>
double TimeLibrary(const Inputs& in, aclDataType type, aclrtStream stream, int repeats)
{
    void* buffers[4] = {};
    aclTensor* predict = DeviceTensor<T>(in.predict, type, &buffers[0]);
    aclTensor* target = DeviceTensor<T>(in.target, type, &buffers[1]);
    aclTensor* dout = DeviceTensor<T>(in.dout, type, &buffers[2]);
    aclTensor* out = DeviceTensor<T>(in.dout, type, &buffers[3]);
    double best = 1e30;
    for (int r = 0; r < repeats; ++r) {
        uint64_t workspace_size = 0;
        aclOpExecutor* executor = nullptr;
        const double start = Seconds();
        if (aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(dout, predict, target, nullptr, nullptr, 0, out,
                                                                      &workspace_size, &executor) != ACL_SUCCESS) {
            std::fprintf(stderr, "twin_bench: %s\n", aclGetRecentErrMsg());
            std::exit(1);
        }
        void* workspace = nullptr;
        if (workspace_size > 0) {
            aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
        }
        aclnnBinaryCrossEntropyWithLogitsBackward(workspace, workspace_size, executor, stream);
        aclrtSynchronizeStream(stream);
        best = std::min(best, Seconds() - start);
        if (workspace != nullptr) {
            aclrtFree(workspace);
        }
    }
    for (aclTensor* tensor : {predict, target, dout, out}) {
        aclDestroyTensor(tensor);
    }
    for (void* buffer : buffers) {
        aclrtFree(buffer);
    }
    return best / static_cast<double>(in.predict.size());
}
#endif

}  // namespace

int main()
{
    if (std::getenv("ACLNN_CPU_NUM_THREADS") == nullptr) {
        setenv("ACLNN_CPU_NUM_THREADS", "1", 1);
    }
#ifdef ASCENDC_CPU_BENCH_WITH_ACLNN
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
#endif
    const char* order = std::getenv("ASCENDC_CPU_ORDER");
    std::printf("BCE gradient kernel, %llu cores, twin order %s; CPU ns per element, best of runs\n",
                static_cast<unsigned long long>(kCores), order != nullptr ? order : "in-order");
    std::printf("%-10s %9s %12s %12s %12s %10s %10s\n", "dtype", "elements", "checks off", "checks on", "library",
                "off/lib", "on/lib");
    for (uint64_t n : {kMi, 16 * kMi}) {
        const Inputs in = MakeInputs(n);
        const int repeats = n == kMi ? 10 : 3;
        for (int type = 0; type < 2; ++type) {
            const bool bf16 = type == 1;
            const double off = bf16 ? TimeTwin<bfloat16_t>(&bce_grad_bfloat16, in, false, repeats)
                                    : TimeTwin<float>(&bce_grad_float, in, false, repeats);
            const double on = bf16 ? TimeTwin<bfloat16_t>(&bce_grad_bfloat16, in, true, repeats)
                                   : TimeTwin<float>(&bce_grad_float, in, true, repeats);
            double library = 0.0;
#ifdef ASCENDC_CPU_BENCH_WITH_ACLNN
            library = bf16 ? TimeLibrary<bfloat16_t>(in, ACL_BF16, stream, repeats)
                           : TimeLibrary<float>(in, ACL_FLOAT, stream, repeats);
#endif
            std::printf("%-10s %8lluMi %12.2f %12.2f %12.2f %10.1f %10.1f\n", bf16 ? "bfloat16" : "float32",
                        static_cast<unsigned long long>(n / kMi), off * 1e9, on * 1e9, library * 1e9,
                        library > 0 ? off / library : 0.0, library > 0 ? on / library : 0.0);
            std::fflush(stdout);
        }
    }
#ifdef ASCENDC_CPU_BENCH_WITH_ACLNN
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
#endif
    return 0;
}
