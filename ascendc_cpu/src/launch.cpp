// ICPU_RUN_KF: one launch of a kernel on simulated cores, its findings and its summary.
//
// Note [One thread per core]
// Each simulated core runs on a thread of its own, so that SyncAll can suspend a core in the
// middle of the kernel. In the sequential orders (in order, reversed, seeded shuffle) a baton lets
// exactly one core run at a time: a core gives it up when it returns or waits at SyncAll, and the
// next core in the order that can run takes it. A core gets its thread when it first gets the
// baton: the thread of a core that returns runs the next core itself if that one has no thread
// yet (the launching thread runs the first), so a kernel without SyncAll runs on the launching
// thread alone, with no thread switch, and a launch never holds more threads than cores waiting
// at a barrier plus one. In the
// threaded order all cores run at once; that is the order for ThreadSanitizer and for finding races
// the other orders hide. Everything a core owns (UB, pipes, GM access records) is reached only from
// its thread; the findings and the scheduler state are shared under mutexes.
//
// Note [Reused cores]
// A launch of 48 cores would spend milliseconds creating threads and faulting in fresh UB pages,
// as much as a 1 Mi-element kernel computes. Threads and UB mappings are therefore kept for the
// next launch: idle threads wait in a pool (a forked child, as in a gtest death test, starts a pool
// of its own), and a UB comes back with its shadow cleared over the bytes buffers covered.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include <unistd.h>

#include "internal.h"

namespace ascendc_cpu {
namespace rt {
namespace {

thread_local Core* t_core = nullptr;

std::mutex g_launch_mutex;       // one launch at a time
std::mutex g_last_mutex;
std::vector<Finding> g_last_findings;
uint64_t g_tiling_key = 0;
KernelMode g_kernel_mode = KernelMode::AIV_MODE;
bool g_kernel_mode_set = false;

bool EnvFlag(const char* name)
{
    const char* value = std::getenv(name);
    return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0 && std::strcmp(value, "off") != 0;
}

constexpr const char* kSimdNames[] = {"baseline", "avx2", "avx512"};

/// The best element-loop instruction set the host (CPU and OS) has.
int HostSimdLevel()
{
#if ASCENDC_CPU_SIMD_DISPATCH
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
        return kSimdAvx512;
    }
    if (__builtin_cpu_supports("avx2")) {
        return kSimdAvx2;
    }
#endif
    return kSimdBaseline;
}

/// ASCENDC_CPU_SIMD: unset or `auto` (the host's best), `baseline`, `avx2`, `avx512`; never more
/// than the host has.
void ParseSimd(LaunchState& launch)
{
    static const int host = HostSimdLevel();
    const char* value = std::getenv("ASCENDC_CPU_SIMD");
    int wanted = host;
    if (value != nullptr && value[0] != '\0' && std::strcmp(value, "auto") != 0) {
        if (std::strcmp(value, "baseline") == 0) {
            wanted = kSimdBaseline;
        } else if (std::strcmp(value, "avx2") == 0) {
            wanted = kSimdAvx2;
        } else if (std::strcmp(value, "avx512") == 0) {
            wanted = kSimdAvx512;
        } else {
            std::fprintf(stderr,
                         "ascendc-cpu: ASCENDC_CPU_SIMD='%s' is not one of auto, baseline, avx2, avx512; using "
                         "auto\n",
                         value);
        }
    }
    launch.simd = std::min(wanted, host);
}

void ParseOrder(LaunchState& launch)
{
    const char* value = std::getenv("ASCENDC_CPU_ORDER");
    if (value == nullptr || value[0] == '\0' || std::strcmp(value, "in-order") == 0) {
        launch.order = RunOrder::kInOrder;
    } else if (std::strcmp(value, "reverse") == 0) {
        launch.order = RunOrder::kReversed;
    } else if (std::strncmp(value, "shuffle", 7) == 0) {
        launch.order = RunOrder::kShuffled;
        launch.seed = value[7] == ':' ? std::strtoull(value + 8, nullptr, 0) : 0;
    } else if (std::strcmp(value, "threads") == 0) {
        launch.order = RunOrder::kThreads;
    } else {
        std::fprintf(stderr,
                     "ascendc-cpu: ASCENDC_CPU_ORDER='%s' is not one of in-order, reverse, shuffle[:seed], "
                     "threads; running in order\n",
                     value);
        launch.order = RunOrder::kInOrder;
    }
}

const char* OrderName(const LaunchState& launch)
{
    switch (launch.order) {
        case RunOrder::kInOrder: return "in-order";
        case RunOrder::kReversed: return "reverse";
        case RunOrder::kShuffled: return "shuffle";
        case RunOrder::kThreads: return "threads";
    }
    return "?";
}

/// The text of each argument of ICPU_RUN_KF: `text` split at commas outside brackets and quotes.
std::vector<std::string> SplitArguments(const char* text)
{
    std::vector<std::string> parts;
    std::string current;
    int depth = 0;
    char quote = 0;
    for (const char* p = text; *p != '\0'; ++p) {
        const char c = *p;
        if (quote != 0) {
            current += c;
            if (c == '\\' && p[1] != '\0') {
                current += *++p;
            } else if (c == quote) {
                quote = 0;
            }
            continue;
        }
        if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
            --depth;
        } else if (c == ',' && depth == 0) {
            parts.push_back(current);
            current.clear();
            continue;
        }
        current += c;
    }
    parts.push_back(current);
    for (std::string& part : parts) {
        const size_t first = part.find_first_not_of(" \t\n");
        const size_t last = part.find_last_not_of(" \t\n");
        part = first == std::string::npos ? std::string() : part.substr(first, last - first + 1);
    }
    return parts;
}

void PrintFinding(const Finding& finding)
{
    std::fprintf(stderr, "%s\n", FormatFinding(finding).c_str());
}

// --- scheduling (Note [One thread per core]) ---------------------------------------------------------

/// Threads that run cores, kept between launches (Note [Reused cores]).
class WorkerPool {
public:
    static WorkerPool& Instance()
    {
        static WorkerPool pool;
        return pool;
    }

    /// Runs `task` on an idle thread, or on a new one.
    void Run(std::function<void()> task)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (owner_ != getpid()) {
            // A forked child has none of the parent's threads: forget them (never join them).
            for (auto& worker : workers_) {
                worker.release();
            }
            workers_.clear();
            idle_.clear();
            owner_ = getpid();
        }
        Worker* worker = nullptr;
        if (!idle_.empty()) {
            worker = idle_.back();
            idle_.pop_back();
        } else {
            workers_.push_back(std::make_unique<Worker>());
            worker = workers_.back().get();
            worker->thread = std::thread(&WorkerPool::Loop, this, worker);
        }
        worker->task = std::move(task);
        worker->wake.notify_one();
    }

    ~WorkerPool()
    {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (owner_ != getpid()) {
                for (auto& worker : workers_) {
                    worker.release();
                }
                return;
            }
            for (auto& worker : workers_) {
                worker->stop = true;
                worker->wake.notify_one();
            }
        }
        for (auto& worker : workers_) {
            worker->thread.join();
        }
    }

private:
    struct Worker {
        std::thread thread;
        std::function<void()> task;
        std::condition_variable wake;
        bool stop = false;
    };

    WorkerPool() : owner_(getpid()) {}

    void Loop(Worker* worker)
    {
        for (;;) {
            std::function<void()> task;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                worker->wake.wait(lock, [&] { return worker->task != nullptr || worker->stop; });
                if (worker->task == nullptr) {
                    return;
                }
                task = std::move(worker->task);
                worker->task = nullptr;
            }
            task();
            std::lock_guard<std::mutex> lock(mutex_);
            idle_.push_back(worker);
        }
    }

    std::mutex mutex_;
    pid_t owner_;
    std::vector<std::unique_ptr<Worker>> workers_;
    std::vector<Worker*> idle_;
};

struct LaunchRun {
    LaunchState* launch;
    KernelBody body;
    void* context;
    std::vector<bool> started;
    int64_t threads_running = 0;  // under launch->mutex
};

void RunCoreThread(LaunchRun* run, int64_t index);
int64_t RunCore(LaunchRun* run, int64_t index);

bool Sequential(const LaunchState& launch)
{
    return launch.order != RunOrder::kThreads;
}

/// Under launch.mutex: wakes whoever may go on now. In the sequential orders that is the core that
/// holds the baton (one thread: waking all of them at every hand-over cost O(cores^2) wake-ups a
/// launch, the most of a SyncAll kernel's time on 48 cores), with threads every core (a barrier
/// released); and the launching thread, which waits for the last core.
void WakeCores(LaunchState& launch)
{
    if (Sequential(launch)) {
        if (launch.running >= 0) {
            launch.core_wake[static_cast<size_t>(launch.running)]->notify_one();
        }
    } else {
        for (auto& wake : launch.core_wake) {
            wake->notify_one();
        }
    }
    launch.wake.notify_all();
}

/// Under launch.mutex: gives the core a thread unless it has one.
void StartThread(LaunchRun& run, int64_t index)
{
    if (!run.started[static_cast<size_t>(index)]) {
        run.started[static_cast<size_t>(index)] = true;
        ++run.threads_running;
        LaunchRun* shared = &run;
        WorkerPool::Instance().Run([shared, index] { RunCoreThread(shared, index); });
    }
}

/// Under launch.mutex: hands the baton to the first core in the order that can run. With
/// `take_unstarted`, a core that has no thread yet is returned for the calling thread to run
/// (Note [One thread per core]); otherwise, and for a core with a thread, -1.
int64_t PassBaton(LaunchRun& run, bool take_unstarted = false)
{
    LaunchState& launch = *run.launch;
    launch.running = -1;
    for (int64_t index : launch.order_of_cores) {
        if (launch.status[static_cast<size_t>(index)] == CoreStatus::kWaiting) {
            launch.running = index;
            if (take_unstarted && !run.started[static_cast<size_t>(index)]) {
                run.started[static_cast<size_t>(index)] = true;
                return index;  // no one else waits for this core's baton
            }
            StartThread(run, index);
            break;
        }
    }
    WakeCores(launch);
    return -1;
}

/// Under launch.mutex: every live core is at the barrier; let them all pass.
void ReleaseBarrier(LaunchState& launch)
{
    ++launch.barrier_generation;
    launch.at_barrier = 0;
    for (CoreStatus& status : launch.status) {
        if (status == CoreStatus::kAtBarrier) {
            status = CoreStatus::kWaiting;
        }
    }
}

LaunchRun* g_run = nullptr;  // the launch in progress (set under g_launch_mutex)

/// Runs core `index`, then, in the sequential orders, each next core that has no thread yet.
void RunCoreThread(LaunchRun* run, int64_t index)
{
    while (index >= 0) {
        index = RunCore(run, index);
    }
}

/// Runs core `index` on this thread; returns the core this thread runs next, or -1.
int64_t RunCore(LaunchRun* run, int64_t index)
{
    LaunchState& launch = *run->launch;
    Core* core = launch.cores[static_cast<size_t>(index)].get();
    SetThisCore(core);
    PrepareCore(*core);
    {
        std::unique_lock<std::mutex> lock(launch.mutex);
        launch.core_wake[static_cast<size_t>(index)]->wait(
            lock, [&] { return !Sequential(launch) || launch.running == index; });
        launch.status[static_cast<size_t>(index)] = CoreStatus::kRunning;
    }
    try {
        run->body(run->context);
    } catch (const CoreStopped&) {
        // Trap(): the core ends; what it issued still lands.
    }
    FinishCoreSync(*core);
    ReleaseCore(*core);
    SetThisCore(nullptr);
    {
        std::unique_lock<std::mutex> lock(launch.mutex);
        launch.status[static_cast<size_t>(index)] = CoreStatus::kDone;
        --launch.live;
        if (launch.at_barrier > 0 && launch.at_barrier == launch.live) {
            lock.unlock();
            ReportFor(core, Check::kMissingSync, Severity::kError, "SyncAll",
                      "the core returned while " + std::to_string(launch.at_barrier) +
                          " other core(s) wait at SyncAll: the launch would hang on the NPU",
                      std::string());
            lock.lock();
            ReleaseBarrier(launch);
        }
        const int64_t next = Sequential(launch) ? PassBaton(*run, true) : -1;
        if (next < 0) {
            --run->threads_running;  // the last touch of the launch
            WakeCores(launch);
        }
        return next;
    }
}

}  // namespace

Core* ThisCore()
{
    return t_core;
}

void SetThisCore(Core* core)
{
    t_core = core;
}

std::string Hex(uint64_t value)
{
    char text[32];
    std::snprintf(text, sizeof(text), "0x%" PRIx64, value);
    return text;
}

std::string RangeText(uint64_t begin, uint64_t end)
{
    // One snprintf, not "[" + Hex(...) + ...: GCC 12 at -O3 reports a false -Wrestrict in the
    // inlined std::string operator+ (GCC bug 105329), which -Werror turns into a build failure.
    char text[64];
    std::snprintf(text, sizeof(text), "[0x%" PRIx64 ", 0x%" PRIx64 ")", begin, end);
    return text;
}

void ReportFor(Core* core, Check check, Severity severity, const char* api, const std::string& detail,
               const std::string& tensor)
{
    LaunchState* launch = core != nullptr ? core->launch : nullptr;
    Finding finding;
    finding.severity = severity;
    finding.check = CheckName(check);
    finding.kernel = launch != nullptr ? launch->kernel : "host";
    finding.core = core != nullptr ? core->index : -1;
    finding.api = api;
    finding.detail = detail;
    finding.tensor = tensor;
    if (launch == nullptr) {
        PrintFinding(finding);
        return;
    }
    std::lock_guard<std::mutex> lock(launch->findings_mutex);
    const std::string key = finding.check + '\x1f' + std::to_string(finding.core) + '\x1f' + finding.api + '\x1f' +
                            finding.tensor + '\x1f' + (severity == Severity::kError ? "e" : "w");
    const auto found = launch->finding_index.find(key);
    if (found != launch->finding_index.end()) {
        ++launch->findings[found->second].repeats;
        return;
    }
    launch->finding_index.emplace(key, launch->findings.size());
    launch->findings.push_back(finding);
    PrintFinding(finding);
}

void Report(Check check, Severity severity, const char* api, const std::string& detail, const char* tensor)
{
    ReportFor(ThisCore(), check, severity, api, detail, tensor != nullptr ? std::string(tensor) : std::string());
}

Core* CoreOrReport(const char* api)
{
    Core* core = ThisCore();
    if (core == nullptr) {
        ReportFor(nullptr, Check::kInvalidArgument, Severity::kError, api,
                  "called outside a kernel run by ICPU_RUN_KF; nothing was done", std::string());
    }
    return core;
}

bool InKernel()
{
    return ThisCore() != nullptr;
}

int64_t BlockIdx()
{
    const Core* core = ThisCore();
    return core != nullptr ? core->index : 0;
}

int64_t BlockNum()
{
    const Core* core = ThisCore();
    return core != nullptr ? core->launch->block_dim : 1;
}

uint64_t TilingKey()
{
    const Core* core = ThisCore();
    return core != nullptr ? core->launch->tiling_key : g_tiling_key;
}

int32_t CoreType()
{
    const Core* core = ThisCore();
    return core != nullptr ? core->launch->core_type : AscendC::AIV;
}

bool ChecksOn()
{
    const Core* core = ThisCore();
    return core == nullptr || core->launch->checks;
}

int SimdLevel()
{
    const Core* core = ThisCore();
    return core == nullptr ? kSimdBaseline : core->launch->simd;
}

void SetTilingKey(uint64_t key)
{
    g_tiling_key = key;
}

void SetKernelMode(KernelMode mode)
{
    g_kernel_mode = mode;
    g_kernel_mode_set = true;
}

void NoteKernelType(int type)
{
    if (type == KERNEL_TYPE_AIC_ONLY) {
        Report(Check::kUnsupported, Severity::kError, "KERNEL_TASK_TYPE_DEFAULT",
               "KERNEL_TYPE_AIC_ONLY: the twin models the vector cores only", nullptr);
    }
}

void KernelTrap()
{
    Report(Check::kInvalidArgument, Severity::kError, "Trap", "the kernel trapped; this core stopped here", nullptr);
    throw CoreStopped{};
}

void KernelAssert(bool condition, const char* text, const char* file, int line)
{
    if (!condition) {
        Report(Check::kInvalidArgument, Severity::kError, "ASSERT",
               std::string("assertion '") + text + "' failed at " + file + ":" + std::to_string(line), nullptr);
    }
}

bool CheckArgument(const char* api, const char* what, uint64_t value, uint64_t lo, uint64_t hi)
{
    if (value >= lo && value <= hi) {
        return true;
    }
    Report(Check::kInvalidArgument, Severity::kError, api,
           std::string(what) + " is " + std::to_string(value) + ", outside its documented range [" +
               std::to_string(lo) + ", " + std::to_string(hi) + "]",
           nullptr);
    return false;
}

bool CheckMultiple(const char* api, const char* what, uint64_t value, uint64_t unit)
{
    if (unit == 0 || value % unit == 0) {
        return true;
    }
    Report(Check::kInvalidArgument, Severity::kError, api,
           std::string(what) + " is " + std::to_string(value) + ", not a multiple of " + std::to_string(unit), nullptr);
    return false;
}

void ReportUnsupportedType(const char* api, const char* type)
{
    Report(Check::kUnsupported, Severity::kError, api,
           std::string("Atlas A2 has no ") + api + " for " + type + "; the instruction was not executed", nullptr);
}

void ReportNotModelled(const char* api, const char* type)
{
    Report(Check::kUnsupported, Severity::kError, api,
           std::string("the twin does not model ") + api + " for " + type + "; the instruction was not executed", nullptr);
}

void ReportUnsupportedCast(const char* api, const char* from, const char* to, int round_mode, bool no_such_pair)
{
    static const char* const kModes[] = {"CAST_NONE",  "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                         "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
    const std::string mode = round_mode >= 0 && round_mode < 7 ? kModes[round_mode] : std::to_string(round_mode);
    std::string detail = std::string("Atlas A2 has no Cast from ") + from + " to " + to;
    if (!no_such_pair) {
        detail += " in " + mode;
    }
    Report(Check::kUnsupported, Severity::kError, api, detail + "; the instruction was not executed", nullptr);
}

void ReportCountNotWholeRepeats(const char* api, uint32_t count, uint32_t per_repeat)
{
    Report(Check::kInvalidArgument, Severity::kError, api,
           "count " + std::to_string(count) + " is not a multiple of " + std::to_string(per_repeat) +
               " elements (256 bytes); the elements after the last whole 256 bytes were not compared",
           nullptr);
}

void SyncAll(const char* api)
{
    Core* core = ThisCore();
    if (core == nullptr) {
        return;
    }
    CompleteAll(*core);  // the barrier orders this core's GM writes before the other cores' reads
    LaunchState& launch = *core->launch;
    std::unique_lock<std::mutex> lock(launch.mutex);
    const uint64_t generation = launch.barrier_generation;
    launch.status[static_cast<size_t>(core->index)] = CoreStatus::kAtBarrier;
    ++launch.at_barrier;
    if (launch.at_barrier == launch.live) {
        ReleaseBarrier(launch);
    }
    if (Sequential(launch)) {
        PassBaton(*g_run);  // after a release the first core in the order goes on first
    }
    WakeCores(launch);
    const int64_t index = core->index;
    launch.core_wake[static_cast<size_t>(index)]->wait(lock, [&] {
        return launch.barrier_generation != generation && (!Sequential(launch) || launch.running == index);
    });
    launch.status[static_cast<size_t>(index)] = CoreStatus::kRunning;
    lock.unlock();
    ++core->epoch;
    (void)api;
}

void Launch(const char* kernel, int64_t block_dim, const char* arguments_text, const void* const* pointers,
            size_t pointer_count, KernelBody body, void* context)
{
    std::lock_guard<std::mutex> launch_lock(g_launch_mutex);
    LaunchState launch;
    launch.kernel = kernel;
    launch.block_dim = block_dim;
    launch.checks = !(std::getenv("ASCENDC_CPU_CHECKS") != nullptr && !EnvFlag("ASCENDC_CPU_CHECKS"));
    launch.verbose = EnvFlag("ASCENDC_CPU_VERBOSE");
    ParseSimd(launch);
    launch.tiling_key = g_tiling_key;
    ParseOrder(launch);
    launch.core_type = AscendC::AIV;

    Core host_view;  // findings of the launch itself (core -1)
    host_view.launch = &launch;
    host_view.index = -1;

    if (g_kernel_mode_set && g_kernel_mode != KernelMode::AIV_MODE) {
        ReportFor(&host_view, Check::kUnsupported, Severity::kWarning, "SetKernelMode",
                  "only AIV_MODE is modelled: the kernel runs on vector cores alone", std::string());
    }
    const std::vector<std::string> texts = SplitArguments(arguments_text);
    for (size_t i = 0; i < pointer_count; ++i) {
        if (pointers[i] == nullptr) {
            continue;
        }
        const GmBuffer* buffer = FindGmStrict(pointers[i]);
        const std::string text = i < texts.size() ? texts[i] : "argument " + std::to_string(i);
        if (buffer == nullptr) {
            ReportFor(&host_view, Check::kInvalidArgument, Severity::kError, "ICPU_RUN_KF",
                      "argument " + std::to_string(i + 1) + " is not memory from GmAlloc", text);
            continue;
        }
        launch.names.emplace(buffer, text);
    }

    if (block_dim < 1 || block_dim > 65535) {
        ReportFor(&host_view, Check::kInvalidArgument, Severity::kError, "ICPU_RUN_KF",
                  "blockDim " + std::to_string(block_dim) + " is outside [1, 65535]; nothing ran", std::string());
    } else {
        launch.cores.reserve(static_cast<size_t>(block_dim));
        for (int64_t i = 0; i < block_dim; ++i) {
            auto core = std::make_unique<Core>();
            core->launch = &launch;
            core->index = i;
            launch.cores.push_back(std::move(core));
        }
        launch.status.assign(static_cast<size_t>(block_dim), CoreStatus::kWaiting);
        launch.core_wake.clear();
        for (int64_t i = 0; i < block_dim; ++i) {
            launch.core_wake.push_back(std::make_unique<std::condition_variable>());
        }
        launch.live = block_dim;
        launch.order_of_cores.resize(static_cast<size_t>(block_dim));
        for (int64_t i = 0; i < block_dim; ++i) {
            launch.order_of_cores[static_cast<size_t>(i)] = i;
        }
        if (launch.order == RunOrder::kReversed) {
            std::reverse(launch.order_of_cores.begin(), launch.order_of_cores.end());
        } else if (launch.order == RunOrder::kShuffled) {
            std::mt19937_64 generator(launch.seed);
            std::shuffle(launch.order_of_cores.begin(), launch.order_of_cores.end(), generator);
        }

        LaunchRun run;
        run.launch = &launch;
        run.body = body;
        run.context = context;
        run.started.assign(static_cast<size_t>(block_dim), false);
        g_run = &run;
        {
            std::unique_lock<std::mutex> lock(launch.mutex);
            if (Sequential(launch)) {
                // The launching thread runs the cores itself until one waits at SyncAll.
                const int64_t first = PassBaton(run, true);
                if (first >= 0) {
                    ++run.threads_running;
                    lock.unlock();
                    RunCoreThread(&run, first);
                    lock.lock();
                }
            } else {
                for (int64_t i = 0; i < block_dim; ++i) {
                    StartThread(run, i);
                }
            }
            launch.wake.wait(lock, [&] { return launch.live == 0 && run.threads_running == 0; });
        }
        g_run = nullptr;
        CheckGmRaces(launch);
    }

    uint64_t errors = 0;
    uint64_t warnings = 0;
    for (const Finding& finding : launch.findings) {
        (finding.severity == Severity::kError ? errors : warnings) += 1;
    }
    if (errors + warnings > 0 || launch.verbose) {
        std::fprintf(stderr, "ascendc-cpu: %s: %" PRId64 " cores, %" PRIu64 " errors, %" PRIu64 " warnings%s\n",
                     kernel, block_dim, errors, warnings,
                     launch.verbose ? (std::string(" (order ") + OrderName(launch) + ", checks " +
                                       (launch.checks ? "on" : "off") + ", simd " +
                                       kSimdNames[launch.simd] + ")")
                                          .c_str()
                                    : "");
    }
    {
        std::lock_guard<std::mutex> lock(g_last_mutex);
        g_last_findings = launch.findings;
    }
    if (errors > 0 && EnvFlag("ASCENDC_CPU_FATAL")) {
        std::fflush(stdout);
        std::fflush(stderr);
        std::exit(1);
    }
}

}  // namespace rt

const char* CheckName(Check check)
{
    switch (check) {
        case Check::kGmOutOfBounds: return "gm-out-of-bounds";
        case Check::kGmRace: return "gm-race";
        case Check::kUbOverflow: return "ub-overflow";
        case Check::kUbMisaligned: return "ub-misaligned";
        case Check::kDataCopyUnaligned: return "datacopy-unaligned";
        case Check::kQueueMisuse: return "queue-misuse";
        case Check::kUseAfterFree: return "use-after-free";
        case Check::kUbOutOfBounds: return "ub-out-of-bounds";
        case Check::kUninitialized: return "uninitialized";
        case Check::kMissingSync: return "missing-sync";
        case Check::kUnsupported: return "unsupported";
        case Check::kInvalidArgument: return "invalid-argument";
    }
    return "unknown";
}

const std::vector<Finding>& LastRunFindings()
{
    return rt::g_last_findings;
}

std::string FormatFinding(const Finding& finding)
{
    std::string line = "ascendc-cpu: ";
    line += finding.severity == Severity::kError ? "error: " : "warning: ";
    line += finding.check + ": " + finding.kernel;
    if (finding.core >= 0) {
        line += " core " + std::to_string(finding.core);
    }
    line += ": " + finding.api + ": " + finding.detail;
    if (!finding.tensor.empty()) {
        line += " ('" + finding.tensor + "')";
    }
    return line;
}

}  // namespace ascendc_cpu
