// The twin's internal state: a launch, its cores, each core's UB, pipe buffers, queues, pipes in
// flight and GM accesses. See Note [Pipes as vector clocks] in sync.cpp.
#ifndef ASCENDC_CPU_SRC_INTERNAL_H
#define ASCENDC_CPU_SRC_INTERNAL_H

#include <array>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ascendc_cpu/runtime.h"

namespace ascendc_cpu {
namespace rt {

/// Bytes of UB backing each core: the 192 KiB UB and room behind it, so that a kernel whose
/// buffers overflow UB (reported) still runs; touched pages only cost memory.
constexpr uint64_t kUbBackingBytes = 4ull << 20;
/// The byte that fills UB at the start of a launch and GM reads outside any buffer: 0xff makes
/// float, half and bfloat16 NaN and integers -1.
constexpr uint8_t kPoisonByte = 0xff;
/// CANN's aclrtMalloc rounds every allocation up to 32 bytes and adds 32; an overrun inside that
/// slack works on the NPU (a warning here), past it is an error.
constexpr uint64_t kAclrtMallocExtraBytes = 32;
/// V-pipe instructions remembered for missing-sync checks against DMA issued later.
constexpr size_t kVectorLogLimit = 512;
/// Event IDs per HardEvent that SetFlag/WaitFlag accept.
constexpr int32_t kEventIds = 8;

using Clock = std::array<uint64_t, kPipeCount>;

struct Range {
    uint64_t begin = 0;
    uint64_t end = 0;
    bool Overlaps(const Range& other) const { return begin < other.end && other.begin < end; }
    bool Empty() const { return begin >= end; }
};

struct GmBuffer {
    uint8_t* base = nullptr;
    uint64_t size = 0;          // as requested from GmAlloc
    uint64_t tolerated = 0;     // size rounded up to 32 bytes, plus 32 (aclrtMalloc's slack)
    uint64_t mapped = 0;        // bytes mapped
    uint64_t id = 0;
};

enum class BufferState : uint8_t { kTBuf, kFree, kAllocated, kQueued, kDequeued, kReleased };

struct UbBuffer {
    uint32_t start = 0;
    uint32_t bytes = 0;
    AscendC::TPosition position = AscendC::TPosition::VECCALC;
    int32_t queue = -1;  // -1: a TBuf
    int32_t pipe = -1;
    uint32_t generation = 0;
    BufferState state = BufferState::kFree;
    bool free_event_set = false;
    Pipe last_consumer = kPipeV;  // the pipe its DeQue handed it to (FreeTensor orders after it)
    Clock free_event{};
    Clock enque_event{};
};

struct Queue {
    int32_t pipe = -1;
    Pipe producer = kPipeV;
    Pipe consumer = kPipeV;
    int32_t depth = 1;
    std::vector<int32_t> buffers;
    std::deque<int32_t> queued;
    size_t next = 0;
};

struct PipeState {
    void* object = nullptr;
    bool alive = false;
    uint32_t cursor = 0;        // next free UB byte
    uint32_t buffer_count = 0;  // queue buffers and TBufs initialised
    std::vector<int32_t> queues;
    std::vector<int32_t> buffers;
};

/// One block of a DMA: `bytes` from `src` to `dst` (UB offsets from UB's start, GM offsets from
/// the GM buffer's base).
struct DmaBlock {
    uint64_t src = 0;
    uint64_t dst = 0;
    uint64_t bytes = 0;
};

/// A UB fill of DataCopyPad GM->UB: padding or the dummy data up to 32 bytes.
struct DmaFill {
    enum class Kind : uint8_t { kValue, kFirstElement, kUndefined };
    uint64_t ub = 0;
    uint64_t bytes = 0;
    Kind kind = Kind::kUndefined;
    uint64_t value = 0;      // kValue: the element's bits
    uint64_t first = 0;      // kFirstElement: UB offset of the block's first element
};

/// A DMA in flight (or done and kept for missing-sync checks).
struct DmaOp {
    Pipe pipe = kPipeMte2;
    uint64_t seq = 0;
    const char* api = "";
    const GmBuffer* gm = nullptr;
    uint64_t gm_offset_base = 0;  // offset of the GlobalTensor's address from gm->base
    bool gm_known = false;        // the address is inside a GmAlloc buffer
    std::vector<DmaBlock> blocks;
    std::vector<DmaFill> fills;
    uint32_t element_bytes = 1;
    std::vector<Range> ub_ranges;  // UB bytes written (MTE2) or read (MTE3)
    std::vector<Range> gm_ranges;  // GM bytes read (MTE2) or written (MTE3), buffer offsets
    uint64_t stamp = 0;  // issue order across the DMA pipes
    bool done = false;
    int atomic = kAtomicNone;  // MTE3: the core's atomic mode at the copy's issue
    int atomic_type = kAtomicTypeNone;
};

struct VectorAccess {
    uint64_t seq = 0;
    const char* api = "";
    std::array<Range, VectorOp::kMaxOperands> reads{};
    Range write;
    int read_count = 0;
};

/// Byte ranges a core read or wrote in one GM buffer between two SyncAlls (merged).
class IntervalSet {
public:
    void Add(uint64_t begin, uint64_t end);
    const std::map<uint64_t, uint64_t>& Intervals() const { return intervals_; }

private:
    std::map<uint64_t, uint64_t> intervals_;
};

struct GmAccess {
    IntervalSet reads;
    IntervalSet writes;
    IntervalSet atomic_writes;
};

struct LaunchState;

/// Anonymous memory mapped on demand (pages cost only once touched).
class MappedBytes {
public:
    MappedBytes() = default;
    MappedBytes(const MappedBytes&) = delete;
    MappedBytes& operator=(const MappedBytes&) = delete;
    ~MappedBytes();
    /// Maps `bytes` zero bytes; false if the system refuses.
    bool Map(uint64_t bytes);
    uint8_t* Data() const { return data_; }

private:
    uint8_t* data_ = nullptr;
    uint64_t bytes_ = 0;
};

/// A core's UB and its shadow, kept across launches (Note [Reused cores] in launch.cpp).
struct UbMemory {
    MappedBytes ub;
    MappedBytes shadow;
    uint64_t used = 0;  // bytes from UB's start that buffers have covered since the shadow was clear
};

struct Core {
    LaunchState* launch = nullptr;
    int64_t index = 0;
    std::unique_ptr<UbMemory> memory;
    uint8_t* ub = nullptr;      // kUbBackingBytes
    uint8_t* shadow = nullptr;  // one byte per UB byte: 0xff written, 0 never written

    std::vector<UbBuffer> buffers;
    std::vector<Queue> queues;
    std::vector<PipeState> pipes;
    int32_t current_pipe = -1;

    Clock seen[kPipeCount]{};
    uint64_t issued[kPipeCount]{};
    std::deque<DmaOp> dma[kPipeCount];
    uint64_t dma_stamp = 0;
    std::deque<VectorAccess> vector_log;
    std::map<std::pair<int, int>, std::deque<Clock>> flags;
    std::map<int, uint32_t> allocated_event_ids;

    uint32_t epoch = 0;  // SyncAlls passed
    std::unordered_map<const GmBuffer*, std::vector<GmAccess>> gm_access;

    bool mask_counter = false;
    uint64_t mask_high = ~0ull;
    uint64_t mask_low = ~0ull;

    int atomic = kAtomicNone;  // SetAtomicAdd/Max/Min, SetAtomicNone
    int atomic_type = kAtomicTypeNone;  // SetAtomic*<T>, SetAtomicType<T>

    alignas(64) uint8_t scratch[64];
};

enum class CoreStatus : uint8_t { kWaiting, kRunning, kAtBarrier, kDone };

struct LaunchState {
    std::string kernel;
    int64_t block_dim = 0;
    bool checks = true;
    bool verbose = false;
    int simd = kSimdBaseline;  // ASCENDC_CPU_SIMD, capped by the host
    RunOrder order = RunOrder::kInOrder;
    uint64_t seed = 0;
    uint64_t tiling_key = 0;
    int32_t core_type = 2;
    std::unordered_map<const GmBuffer*, std::string> names;
    std::vector<std::unique_ptr<Core>> cores;

    std::mutex findings_mutex;
    std::vector<Finding> findings;
    std::map<std::string, size_t> finding_index;

    // Scheduling (Note [One thread per core] in launch.cpp).
    std::mutex mutex;
    std::condition_variable wake;  ///< the launching thread waits here for the cores to finish
    /// Each core's thread waits on its own (for the baton, or at SyncAll), so that handing the
    /// baton wakes one thread, not all of them (WakeCores in launch.cpp).
    std::vector<std::unique_ptr<std::condition_variable>> core_wake;
    std::vector<CoreStatus> status;
    std::vector<int64_t> order_of_cores;
    int64_t running = -1;
    int64_t at_barrier = 0;
    int64_t live = 0;
    uint64_t barrier_generation = 0;
};

/// The core running on this thread (null outside a launch).
Core* ThisCore();
void SetThisCore(Core* core);

/// Offset of a UB pointer from UB's start.
inline uint64_t UbOffset(const Core& core, const uint8_t* p)
{
    return static_cast<uint64_t>(p - core.ub);
}

// sync.cpp
Clock Snapshot(Core& core, Pipe pipe);
void WaitOn(Core& core, Pipe pipe, const Clock& clock);
void InheritScalar(Core& core, Pipe pipe);
void CompleteAll(Core& core);
/// Makes the scalar pipe wait for DMA touching these UB / GM bytes (the compiler's automatic
/// synchronisation of GetValue/SetValue).
void ScalarWaitUb(Core& core, const Range& ub, bool write);
void ScalarWaitGm(Core& core, const GmBuffer* gm, const Range& bytes, bool write);
void CheckVectorAgainstDma(Core& core, const VectorAccess& access);
void LogVector(Core& core, VectorAccess access);
void FinishCoreSync(Core& core);

// gm.cpp
/// The GmAlloc buffer `address` lies in (its end included), or null: ICPU_RUN_KF's arguments.
const GmBuffer* FindGmStrict(const void* address);
void RecordGm(Core& core, const GmBuffer* gm, const Range& bytes, bool write, bool atomic);
void CheckGmRaces(LaunchState& launch);
std::string GmNameOf(const LaunchState* launch, const GmBuffer* buffer);

// ub.cpp
/// Gives the core a UB and its shadow: the shadow clear, UB filled with poison when checks are on.
void PrepareCore(Core& core);
/// Returns the core's UB for the next launch.
void ReleaseCore(Core& core);
void CheckHeldBuffers(Core& core, int32_t pipe);
/// The first byte of `bytes` bytes of the view, checked (bound, not freed, aligned to
/// `alignment`, inside its buffer), or null after reporting why not.
uint8_t* ResolveUb(Core& core, const char* api, const UbRef& ref, uint64_t bytes, uint32_t element_bytes,
                   uint32_t alignment);

// launch.cpp
/// Thrown by Trap() to end the kernel on its core.
struct CoreStopped {};
/// The core running on this thread, or null after reporting that `api` ran outside a kernel.
Core* CoreOrReport(const char* api);
void ReportFor(Core* core, Check check, Severity severity, const char* api, const std::string& detail,
               const std::string& tensor);

std::string Hex(uint64_t value);
/// "[0x.., 0x..)": a byte range in reports.
std::string RangeText(uint64_t begin, uint64_t end);

}  // namespace rt
}  // namespace ascendc_cpu

#endif  // ASCENDC_CPU_SRC_INTERNAL_H
