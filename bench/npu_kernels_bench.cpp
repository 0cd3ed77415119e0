// The NPU kernels' speed on the AscendC CPU twin (issue 32, point 7; a benchmark, not a test): each
// AscendC kernel of this library (op_kernel/ascendc/) tiled by its Atlas A2 tiling (op_host/a2/),
// run on the twin with its checks off and on, beside the library's own CPU kernel of the same
// operator through the ACLNN API, at 1 Mi and 16 Mi elements of float and bfloat16_t.
//
// Times are the process's CPU time per element (robust on a shared, loaded machine), the best of a
// few runs, measured case by case in one process so that the ratios compare like with like. Both
// sides run one thread at a time: the twin in order (its default; ASCENDC_CPU_ORDER says
// otherwise), the library with ACLNN_CPU_NUM_THREADS=1 unless that variable is set. The twin runs
// the A2 launch (up to 48 simulated cores of 192 KiB UB each), so its time is what a kernel
// developer waits for on the CPU, not a prediction of the NPU's.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tikicpulib.h"

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "op_host/a2/sigmoid_cross_entropy_with_logits_grad_v2_a2_tiling.h"
#include "op_kernel/ascendc/sigmoid_cross_entropy_with_logits_grad_v2_ascendc.h"

namespace {

constexpr uint64_t kMi = 1ull << 20;
constexpr int64_t kClasses = 1000;  ///< C of the [N, C] cases with a pos_weight of shape [C]
/// argv[1]: only the cases whose row ("kernel operands dtype nMi") contains this text.
const char* g_filter = nullptr;

bool Selected(const std::string& row)
{
    return g_filter == nullptr || row.find(g_filter) != std::string::npos;
}

double CpuSeconds()
{
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

/// Seconds of the best of @p repeats calls of @p run.
double Best(const std::function<void()>& run, int repeats)
{
    double best = 1e30;
    for (int r = 0; r < repeats; ++r) {
        const double start = CpuSeconds();
        run();
        best = std::min(best, CpuSeconds() - start);
    }
    return best;
}

[[noreturn]] void Die(const std::string& what)
{
    std::fprintf(stderr, "npu_kernels_bench: %s\n", what.c_str());
    std::exit(1);
}

/// Values of one operand, drawn once per case (logits in [-8, 8], the others in [0, 1]).
std::vector<float> Draw(uint64_t n, float low, float high, uint64_t seed)
{
    std::vector<float> values(n);
    std::mt19937_64 generator(seed);
    std::uniform_real_distribution<float> draw(low, high);
    for (float& v : values) v = draw(generator);
    return values;
}

/// One operand in the twin's GM, exactly its elements, and the same values in device memory
/// behind an aclTensor of @p shape for the library.
template <typename T>
class Operand {
public:
    Operand(const std::vector<float>& values, std::vector<int64_t> shape, aclDataType type)
        : bytes_(values.size() * sizeof(T))
    {
        std::vector<T> host(values.size());
        for (size_t i = 0; i < values.size(); ++i) host[i] = static_cast<T>(values[i]);
        gm_ = static_cast<uint8_t*>(AscendC::GmAlloc(bytes_));
        std::memcpy(gm_, host.data(), bytes_);
        if (aclrtMalloc(&device_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
            aclrtMemcpy(device_, bytes_, host.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) {
            Die("device memory");
        }
        std::vector<int64_t> strides(shape.size(), 1);
        for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
        tensor_ = aclCreateTensor(shape.data(), shape.size(), type, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                                  shape.size(), device_);
    }
    ~Operand()
    {
        aclDestroyTensor(tensor_);
        aclrtFree(device_);
        AscendC::GmFree(gm_);
    }
    Operand(const Operand&) = delete;
    Operand& operator=(const Operand&) = delete;
    uint8_t* gm() const { return gm_; }
    aclTensor* tensor() const { return tensor_; }

private:
    size_t bytes_;
    uint8_t* gm_ = nullptr;
    void* device_ = nullptr;
    aclTensor* tensor_ = nullptr;
};

/// Runs the library's two phases once (the workspace allocated per call, as a CANN program does).
template <typename FirstPhase, typename SecondPhase>
void RunLibrary(FirstPhase first, SecondPhase second, aclrtStream stream)
{
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    if (first(&workspace_size, &executor) != ACL_SUCCESS) Die(aclGetRecentErrMsg());
    void* workspace = nullptr;
    if (workspace_size > 0 && aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        Die("workspace");
    }
    if (second(workspace, workspace_size, executor, stream) != ACL_SUCCESS) Die(aclGetRecentErrMsg());
    aclrtSynchronizeStream(stream);
    if (workspace != nullptr) aclrtFree(workspace);
}

/// Fails unless the twin's last run was clean: a benchmark of a kernel with findings means nothing.
void ExpectNoFindings(const char* kernel)
{
    if (!ascendc_cpu::LastRunFindings().empty()) {
        Die(std::string(kernel) + ": the twin reported " + std::to_string(ascendc_cpu::LastRunFindings().size()) +
            " finding(s), first: " + ascendc_cpu::FormatFinding(ascendc_cpu::LastRunFindings().front()));
    }
}

/// The times of one case: ns per element of the twin with checks off and on, and of the library.
struct Times {
    double off = 0, on = 0, library = 0;
};

/// Times @p twin with ASCENDC_CPU_CHECKS=0 and =1 and @p library, each the best of @p repeats.
Times Measure(const std::function<void()>& twin, const std::function<void()>& library, uint64_t n, int repeats)
{
    Times t;
    setenv("ASCENDC_CPU_CHECKS", "0", 1);
    t.off = Best(twin, repeats) / static_cast<double>(n) * 1e9;
    setenv("ASCENDC_CPU_CHECKS", "1", 1);
    t.on = Best(twin, repeats) / static_cast<double>(n) * 1e9;
    unsetenv("ASCENDC_CPU_CHECKS");
    t.library = Best(library, repeats) / static_cast<double>(n) * 1e9;
    return t;
}

void PrintRow(const char* kernel, const char* form, const char* dtype, uint64_t n, const Times& t)
{
    std::printf("%-9s %-24s %-5s %5lluMi %10.2f %10.2f %10.2f %9.1f %9.1f\n", kernel, form, dtype,
                static_cast<unsigned long long>(n / kMi), t.off, t.on, t.library, t.off / t.library,
                t.on / t.library);
    std::fflush(stdout);
}

/// The backward (SigmoidCrossEntropyWithLogitsGradV2): gradOutput, self, target of shape [N, C],
/// either alone (reduction none) or with a [C] weight and pos_weight (reduction mean).
template <typename T>
void BenchBackward(uint64_t n, bool with_weights, aclDataType type, const char* dtype, aclrtStream stream)
{
    namespace a2 = aclnn_cpu::bce_grad::a2;
    const char* form = with_weights ? "w[C] pw[C] mean" : "none";
    if (!Selected(std::string("backward ") + form + " " + dtype + " " + std::to_string(n / kMi) + "Mi")) return;
    const std::vector<int64_t> shape{static_cast<int64_t>(n) / kClasses, kClasses};
    const uint64_t total = static_cast<uint64_t>(shape[0] * shape[1]);
    Operand<T> predict(Draw(total, -8.0f, 8.0f, 1), shape, type);
    Operand<T> target(Draw(total, 0.0f, 1.0f, 2), shape, type);
    Operand<T> dout(Draw(total, 0.0f, 1.0f, 3), shape, type);
    Operand<T> gradient(std::vector<float>(total, 0.0f), shape, type);
    Operand<T> weight(Draw(kClasses, 0.0f, 1.0f, 4), {kClasses}, type);
    Operand<T> pos_weight(Draw(kClasses, 0.5f, 2.0f, 5), {kClasses}, type);

    a2::A2GradProblem problem;
    problem.total = total;
    problem.dtype_bytes = sizeof(T);
    problem.dout_count = total;
    problem.weight_count = with_weights ? kClasses : 0;
    problem.pos_weight_count = with_weights ? kClasses : 0;
    problem.scale = with_weights ? 1.0f / static_cast<float>(total) : 1.0f;
    a2::A2GradTiling tiling;
    std::string error;
    if (!a2::TileGradForAtlasA2(aclnn_cpu::AtlasA2Platform(), problem, &tiling, &error)) Die(error);
    auto* tiling_gm = static_cast<uint8_t*>(AscendC::GmAlloc(sizeof(tiling.data)));
    std::memcpy(tiling_gm, &tiling.data, sizeof(tiling.data));
    auto* workspace_gm = static_cast<uint8_t*>(AscendC::GmAlloc(32));
    uint8_t* x = predict.gm();
    uint8_t* y = target.gm();
    uint8_t* d = dout.gm();
    uint8_t* w = with_weights ? weight.gm() : nullptr;
    uint8_t* pw = with_weights ? pos_weight.gm() : nullptr;
    uint8_t* g = gradient.gm();
    const auto twin = [&] {
        ICPU_RUN_KF(sigmoid_cross_entropy_with_logits_grad_v2_typed<T>, tiling.block_dim, x, y, d, w, pw, g,
                    workspace_gm, tiling_gm);
        ExpectNoFindings("backward");
    };
    const int64_t reduction = with_weights ? 1 : 0;  // mean : none
    const auto library = [&] {
        RunLibrary(
            [&](uint64_t* size, aclOpExecutor** executor) {
                return aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
                    dout.tensor(), predict.tensor(), target.tensor(), with_weights ? weight.tensor() : nullptr,
                    with_weights ? pos_weight.tensor() : nullptr, reduction, gradient.tensor(), size, executor);
            },
            aclnnBinaryCrossEntropyWithLogitsBackward, stream);
    };
    PrintRow("backward", form, dtype, n,
             Measure(twin, library, total, n > kMi ? 3 : 7));
    AscendC::GmFree(tiling_gm);
    AscendC::GmFree(workspace_gm);
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc > 1) g_filter = argv[1];
    if (std::getenv("ACLNN_CPU_NUM_THREADS") == nullptr) setenv("ACLNN_CPU_NUM_THREADS", "1", 1);
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) Die("aclInit");
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    const char* order = std::getenv("ASCENDC_CPU_ORDER");
    std::printf("AscendC kernels on the twin (A2 tiling, order %s) beside the library's CPU kernels (%s thread(s));\n"
                "CPU ns per element, best of runs\n",
                order != nullptr ? order : "in-order", std::getenv("ACLNN_CPU_NUM_THREADS"));
    std::printf("%-9s %-24s %-5s %7s %10s %10s %10s %9s %9s\n", "kernel", "operands", "dtype", "elems", "twin off",
                "twin on", "library", "off/lib", "on/lib");
    for (uint64_t n : {kMi, 16 * kMi}) {
        for (bool with_weights : {false, true}) {
            BenchBackward<float>(n, with_weights, ACL_FLOAT, "fp32", stream);
            BenchBackward<bfloat16_t>(n, with_weights, ACL_BF16, "bf16", stream);
        }
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
