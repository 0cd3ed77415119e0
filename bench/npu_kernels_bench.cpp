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
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "sigmoid_cross_entropy_with_logits_grad_v2/op_host/a2/sigmoid_cross_entropy_with_logits_grad_v2_a2_tiling.h"
#include "sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/ascendc/sigmoid_cross_entropy_with_logits_grad_v2_ascendc.h"
#include "sigmoid_cross_entropy_with_logits_v2/op_host/a2/sigmoid_cross_entropy_with_logits_v2_a2_tiling.h"
#include "sigmoid_cross_entropy_with_logits_v2/op_kernel/ascendc/sigmoid_cross_entropy_with_logits_v2_ascendc.h"

namespace {

constexpr uint64_t kMi = 1ull << 20;
constexpr int64_t kClasses = 1000;  ///< C of the [N, C] cases with a pos_weight of shape [C]
/// argv[1]: only the cases whose row ("kernel operands dtype nMi", e.g. "loss none fp32 1Mi")
/// contains this text.
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

/// The operands of one case: self, target and gradOutput of shape [N, C] (N = n / C), a [C]
/// weight and pos_weight, and an output of self's shape (or one element).
template <typename T>
struct CaseOperands {
    CaseOperands(uint64_t n, aclDataType type, bool reduced_out)
        : shape{static_cast<int64_t>(n) / kClasses, kClasses},
          total(static_cast<uint64_t>(shape[0] * shape[1])),
          predict(Draw(total, -8.0f, 8.0f, 1), shape, type),
          target(Draw(total, 0.0f, 1.0f, 2), shape, type),
          dout(Draw(total, 0.0f, 1.0f, 3), shape, type),
          weight(Draw(kClasses, 0.0f, 1.0f, 4), {kClasses}, type),
          pos_weight(Draw(kClasses, 0.5f, 2.0f, 5), {kClasses}, type),
          out(std::vector<float>(reduced_out ? 1 : total, 0.0f), reduced_out ? std::vector<int64_t>{} : shape, type)
    {
    }
    std::vector<int64_t> shape;
    uint64_t total;
    Operand<T> predict, target, dout, weight, pos_weight, out;
};

/// GM of exactly @p bytes holding @p data (a TilingData), or zeros (a workspace); freed with the case.
class GmBlock {
public:
    GmBlock(const void* data, size_t bytes) : gm_(static_cast<uint8_t*>(AscendC::GmAlloc(bytes == 0 ? 32 : bytes)))
    {
        if (data != nullptr) std::memcpy(gm_, data, bytes);
    }
    ~GmBlock() { AscendC::GmFree(gm_); }
    GmBlock(const GmBlock&) = delete;
    GmBlock& operator=(const GmBlock&) = delete;
    uint8_t* gm() const { return gm_; }

private:
    uint8_t* gm_;
};

/// The gradients (SigmoidCrossEntropyWithLogitsGradV2 and its target variant): reduction none with
/// gradOutput alone, or mean with a [C] weight and pos_weight.
template <typename T>
void BenchGradient(bool of_target, uint64_t n, bool with_weights, aclDataType type, const char* dtype,
                   aclrtStream stream)
{
    namespace a2 = aclnn_cpu::bce_grad::a2;
    const char* kernel = of_target ? "target" : "backward";
    const char* form = with_weights ? "w[C] pw[C] mean" : "none";
    if (!Selected(std::string(kernel) + " " + form + " " + dtype + " " + std::to_string(n / kMi) + "Mi")) return;
    CaseOperands<T> c(n, type, false);
    a2::A2GradProblem problem;
    problem.total = c.total;
    problem.dtype_bytes = sizeof(T);
    problem.dout_count = c.total;
    problem.weight_count = with_weights ? kClasses : 0;
    problem.pos_weight_count = with_weights ? kClasses : 0;
    problem.scale = with_weights ? 1.0f / static_cast<float>(c.total) : 1.0f;
    problem.of_target = of_target;
    a2::A2GradTiling tiling;
    std::string error;
    if (!a2::TileGradForAtlasA2(aclnn_cpu::AtlasA2Platform(), problem, &tiling, &error)) Die(error);
    GmBlock tiling_gm(&tiling.data, sizeof(tiling.data)), workspace(nullptr, 0);
    uint8_t* x = c.predict.gm();
    uint8_t* y = of_target ? nullptr : c.target.gm();
    uint8_t* d = c.dout.gm();
    uint8_t* w = with_weights ? c.weight.gm() : nullptr;
    uint8_t* pw = with_weights ? c.pos_weight.gm() : nullptr;
    uint8_t* g = c.out.gm();
    uint8_t* ws = workspace.gm();
    uint8_t* tl = tiling_gm.gm();
    const auto twin = [&] {
        if (of_target) {
            ICPU_RUN_KF(sigmoid_cross_entropy_with_logits_grad_v2_of_target_typed<T>, tiling.block_dim, x, y, d, w,
                        pw, g, ws, tl);
        } else {
            ICPU_RUN_KF(sigmoid_cross_entropy_with_logits_grad_v2_typed<T>, tiling.block_dim, x, y, d, w, pw, g, ws,
                        tl);
        }
        ExpectNoFindings(kernel);
    };
    const int64_t reduction = with_weights ? 1 : 0;  // mean : none
    aclTensor* weight = with_weights ? c.weight.tensor() : nullptr;
    aclTensor* pos_weight = with_weights ? c.pos_weight.tensor() : nullptr;
    const auto library = [&] {
        if (of_target) {
            RunLibrary(
                [&](uint64_t* size, aclOpExecutor** executor) {
                    return aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
                        c.dout.tensor(), c.predict.tensor(), c.target.tensor(), weight, pos_weight, reduction,
                        c.out.tensor(), size, executor);
                },
                aclnnBinaryCrossEntropyWithLogitsTargetBackward, stream);
        } else {
            RunLibrary(
                [&](uint64_t* size, aclOpExecutor** executor) {
                    return aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
                        c.dout.tensor(), c.predict.tensor(), c.target.tensor(), weight, pos_weight, reduction,
                        c.out.tensor(), size, executor);
                },
                aclnnBinaryCrossEntropyWithLogitsBackward, stream);
        }
    };
    PrintRow(kernel, form, dtype, n, Measure(twin, library, c.total, n > kMi ? 3 : 7));
}

/// The loss (SigmoidCrossEntropyWithLogitsV2): reduction none without weights, or mean (summed
/// across cores through the workspace) with a [C] weight and pos_weight.
template <typename T>
void BenchLoss(uint64_t n, bool with_weights, aclDataType type, const char* dtype, aclrtStream stream)
{
    namespace a2 = aclnn_cpu::bce_loss::a2;
    const char* form = with_weights ? "w[C] pw[C] mean" : "none";
    if (!Selected(std::string("loss ") + form + " " + dtype + " " + std::to_string(n / kMi) + "Mi")) return;
    CaseOperands<T> c(n, type, with_weights);
    a2::A2LossProblem problem;
    problem.total = c.total;
    problem.dtype = sizeof(T) == 4 ? a2::A2LossDType::kFloat : a2::A2LossDType::kBFloat16;
    problem.weight_count = with_weights ? kClasses : 0;
    problem.pos_weight_count = with_weights ? kClasses : 0;
    problem.reduction = with_weights ? BCE_LOSS_REDUCTION_MEAN : BCE_LOSS_REDUCTION_NONE;
    a2::A2LossTiling tiling;
    std::string error;
    if (!a2::TileLossForAtlasA2(aclnn_cpu::AtlasA2Platform(), problem, &tiling, &error)) Die(error);
    GmBlock tiling_gm(&tiling.data, sizeof(tiling.data)), workspace(nullptr, tiling.workspace_bytes);
    uint8_t* x = c.predict.gm();
    uint8_t* y = c.target.gm();
    uint8_t* w = with_weights ? c.weight.gm() : nullptr;
    uint8_t* pw = with_weights ? c.pos_weight.gm() : nullptr;
    uint8_t* loss = c.out.gm();
    uint8_t* ws = workspace.gm();
    uint8_t* tl = tiling_gm.gm();
    const auto twin = [&] {
        ICPU_RUN_KF(sigmoid_cross_entropy_with_logits_v2_typed<T>, tiling.block_dim, x, y, w, pw, loss, ws, tl);
        ExpectNoFindings("loss");
    };
    const int64_t reduction = with_weights ? 1 : 0;
    aclTensor* weight = with_weights ? c.weight.tensor() : nullptr;
    aclTensor* pos_weight = with_weights ? c.pos_weight.tensor() : nullptr;
    const auto library = [&] {
        RunLibrary(
            [&](uint64_t* size, aclOpExecutor** executor) {
                return aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(c.predict.tensor(), c.target.tensor(), weight,
                                                                         pos_weight, reduction, c.out.tensor(), size,
                                                                         executor);
            },
            aclnnBinaryCrossEntropyWithLogits, stream);
    };
    PrintRow("loss", form, dtype, n, Measure(twin, library, c.total, n > kMi ? 3 : 7));
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
            BenchLoss<float>(n, with_weights, ACL_FLOAT, "fp32", stream);
            BenchLoss<bfloat16_t>(n, with_weights, ACL_BF16, "bf16", stream);
            for (bool of_target : {false, true}) {
                BenchGradient<float>(of_target, n, with_weights, ACL_FLOAT, "fp32", stream);
                BenchGradient<bfloat16_t>(of_target, n, with_weights, ACL_BF16, "bf16", stream);
            }
        }
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
