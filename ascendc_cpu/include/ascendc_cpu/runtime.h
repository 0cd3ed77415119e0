// The twin's runtime as the inline AscendC headers see it: findings, the GM registry, the running
// core's UB, pipes and queues. Everything here lives in namespace ascendc_cpu; kernels never call
// it directly. Implemented in src/.
#ifndef ASCENDC_CPU_RUNTIME_H
#define ASCENDC_CPU_RUNTIME_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ascendc_cpu/base.h"

namespace ascendc_cpu {

/// The checks, named as in findings (README, "Checks").
enum class Check : uint8_t {
    kGmOutOfBounds,
    kGmRace,
    kUbOverflow,
    kUbMisaligned,
    kDataCopyUnaligned,
    kQueueMisuse,
    kUseAfterFree,
    kUbOutOfBounds,
    kUninitialized,
    kMissingSync,
    kUnsupported,
    kInvalidArgument,
};

/// "gm-out-of-bounds", "gm-race", ...
const char* CheckName(Check check);

enum class Severity : uint8_t { kWarning, kError };

/// One finding of a run. `tensor` is the argument expression ICPU_RUN_KF was given for the GM
/// buffer involved, or "ub:<position>#<buffer>" for a finding about a UB buffer alone, or empty.
struct Finding {
    Severity severity = Severity::kError;
    std::string check;
    std::string kernel;
    int64_t core = -1;
    std::string api;
    std::string detail;
    std::string tensor;
    /// How often the same check fired again on the same core, API and tensor (printed once).
    uint64_t repeats = 0;
};

/// The findings of the last ICPU_RUN_KF of this process, in the order they were first seen
/// (for gtest assertions). Valid until the next ICPU_RUN_KF.
const std::vector<Finding>& LastRunFindings();

/// The line printed on stderr for `finding`, without the newline.
std::string FormatFinding(const Finding& finding);

/// How the cores of one ICPU_RUN_KF are ordered (environment variable ASCENDC_CPU_ORDER).
enum class RunOrder : uint8_t { kInOrder, kReversed, kShuffled, kThreads };

namespace rt {

enum Pipe : uint8_t { kPipeS = 0, kPipeV, kPipeMte2, kPipeMte3, kPipeCount };

/// A LocalTensor's view of UB: which pipe buffer (with the generation it was allocated in), and
/// the byte range [offset, offset + bytes) of the view, offsets from the start of UB.
struct UbRef {
    int32_t buffer = -1;
    uint32_t generation = 0;
    uint32_t offset = 0;
    uint32_t bytes = 0;
};

/// A GmAlloc'd buffer (opaque).
struct GmBuffer;

/// A GlobalTensor's address and the GmAlloc buffer it was set into (null if none).
struct GmRef {
    uint8_t* address = nullptr;
    const GmBuffer* buffer = nullptr;
};

// --- the running core -------------------------------------------------------------------------
bool InKernel();
int64_t BlockIdx();
int64_t BlockNum();
uint64_t TilingKey();
int32_t CoreType();
/// The current TPipe of this core (GetTPipePtr), or null.
void* CurrentPipe();
/// True when checks are on for this run (ASCENDC_CPU_CHECKS, default on).
bool ChecksOn();

/// The instruction set the element loops of vector instructions use in this run: the best the
/// host has, or less if ASCENDC_CPU_SIMD says so (README, "Running"). The results are the same.
enum SimdLevelKind : int { kSimdBaseline = 0, kSimdAvx2 = 1, kSimdAvx512 = 2 };
int SimdLevel();

/// Records a finding of the running core. `tensor` may be null.
void Report(Check check, Severity severity, const char* api, const std::string& detail, const char* tensor = nullptr);
/// The name findings give a GM buffer ("'x'" of ICPU_RUN_KF), or "gm@<address>" if unnamed.
std::string GmName(const GmBuffer* buffer);
/// The name findings give a UB buffer: "ub:<position>#<index>".
std::string UbName(const UbRef& ref);

// --- GM -----------------------------------------------------------------------------------------
void* GmAllocate(size_t bytes);
void GmRelease(void* address);
/// The GmAlloc buffer holding `address` (its end included), or null.
const GmBuffer* FindGm(const void* address);

/// Scalar GM access (GlobalTensor::GetValue / SetValue): bounds-checked, synchronised with the
/// core's pending DMA as the compiler's automatic synchronisation does; out of bounds a read gives
/// poison bytes and a write is dropped.
void GmScalarRead(const char* api, const GmRef& ref, uint64_t byte_offset, void* out, uint32_t bytes);
void GmScalarWrite(const char* api, const GmRef& ref, uint64_t byte_offset, const void* in, uint32_t bytes);
/// A reference for GlobalTensor::operator(): the GM bytes if in bounds, else a per-core scratch slot.
void* GmScalarReference(const char* api, const GmRef& ref, uint64_t byte_offset, uint32_t bytes);
/// Copies tiling data out of GM (GET_TILING_DATA*), bounds-checked.
void LoadTiling(void* out, size_t bytes, const void* tiling, const char* api);

// --- UB buffers of the TPipe ---------------------------------------------------------------------
int32_t PipeCreate(void* pipe);
void PipeDestroy(int32_t pipe);
/// TPipe::InitBuffer for a queue: `num` buffers of `len` bytes; returns the queue id, -1 on failure.
int32_t QueueInit(int32_t pipe, AscendC::TPosition src, AscendC::TPosition dst, int32_t depth, uint32_t num, uint32_t len);
/// TPipe::InitBuffer for a TBuf; returns the buffer id, -1 on failure.
int32_t TBufInit(int32_t pipe, AscendC::TPosition pos, uint32_t len);
UbRef QueueAlloc(int32_t queue, const char* api);
/// EnQue/DeQue; `src_position`/`dst_position` (a TPosition, -1: the queue's own) name the pipe
/// that produced the tensor and the one that will consume it (EnQue<srcUserPos, dstUserPos>).
bool QueueEnQue(int32_t queue, const UbRef& ref, const char* api, int src_position = -1);
UbRef QueueDeQue(int32_t queue, const char* api, int dst_position = -1);
void QueueFree(int32_t queue, const UbRef& ref, const char* api);
bool QueueHasTensor(int32_t queue);
bool QueueHasIdleBuffer(int32_t queue);
int32_t QueueTensorCount(int32_t queue);
UbRef TBufGet(int32_t buffer, uint32_t bytes, uint32_t byte_offset, const char* api);
uint32_t TBufLength(int32_t buffer);
/// The host address of a view (GetPhyAddr); null when the view is invalid.
uint8_t* UbAddress(const UbRef& ref);
/// The view of `bytes` bytes at a host address GetPhyAddr gave (address-list forms such as
/// TransDataTo5HD's); reports invalid-argument and returns an unbound view if no UB buffer of
/// the core holds it.
UbRef UbRefAt(const char* api, uint64_t address, uint32_t bytes);

// --- scalar UB access (LocalTensor::GetValue / SetValue / operator()) -----------------------------
void UbScalarRead(const char* api, const UbRef& ref, uint64_t byte_offset, void* out, uint32_t bytes);
void UbScalarWrite(const char* api, const UbRef& ref, uint64_t byte_offset, const void* in, uint32_t bytes);
void* UbScalarReference(const char* api, const UbRef& ref, uint64_t byte_offset, uint32_t bytes);

// --- vector instructions (PIPE_V) ------------------------------------------------------------------
/// One vector instruction: declare its operands, then Issue(); compute only when Issue() is true.
/// Operands are checked (bound, not freed, 32-byte aligned, inside their buffer) and the
/// instruction is checked against the core's DMA in flight (missing-sync).
class VectorOp {
public:
    explicit VectorOp(const char* api);
    /// The operand's first byte, or null (then Issue() returns false). `required_alignment` is the
    /// documented start alignment (32 bytes for vector operands).
    uint8_t* Read(const UbRef& ref, uint64_t bytes, uint32_t element_bytes, uint32_t required_alignment = kBlockBytes);
    uint8_t* Write(const UbRef& ref, uint64_t bytes, uint32_t element_bytes, uint32_t required_alignment = kBlockBytes);
    /// False if an operand was unusable or the instruction cannot run; reports overlaps and hazards.
    bool Issue();
    /// Operands may overlap partially (reductions writing into their source or work area).
    void AllowOverlap() { allow_overlap_ = true; }
    /// Whether UB initialisation is tracked (checks on).
    bool Tracking() const { return tracking_; }
    /// The initialisation shadow of a UB byte (0xff: written, 0: never written).
    uint8_t* Shadow(const uint8_t* data) const;
    const char* Api() const { return api_; }

    static constexpr int kMaxOperands = 4;

private:
    struct Operand {
        UbRef ref;
        uint64_t bytes;
        uint32_t element_bytes;
        bool write;
    };
    uint8_t* Add(const UbRef& ref, uint64_t bytes, uint32_t element_bytes, uint32_t required_alignment, bool write);
    const char* api_;
    bool tracking_;
    bool usable_ = true;
    bool allow_overlap_ = false;
    int count_ = 0;
    Operand operands_[kMaxOperands];
};

/// Reports an instruction A2 does not have for this element type.
void ReportUnsupportedType(const char* api, const char* type);
/// Reports an instruction A2 has for this type but the twin does not model (so does not compute).
void ReportNotModelled(const char* api, const char* type);
/// Reports a Cast A2 does not have (no such pair, or not in this round mode).
void ReportUnsupportedCast(const char* api, const char* from, const char* to, int round_mode, bool no_such_pair);

/// Reports an element count that is not a whole number of 256-byte repeats where A2 needs one.
void ReportCountNotWholeRepeats(const char* api, uint32_t count, uint32_t per_repeat);
/// Compare: dst byte j is written iff elements 8j..8j+7 of every source are.
void ShadowPackBits(uint8_t* dst, const uint8_t* const* sources, int source_count, uint32_t element_bytes,
                    uint64_t count);
/// Select: dst element i is written iff its mask bit's byte and element i of the sources are;
/// `period` != 0 reuses the first `period` mask bits for every repeat (mode 0).
void ShadowSelect(uint8_t* dst, uint32_t element_bytes, const uint8_t* mask, const uint8_t* src0,
                  const uint8_t* src1, uint64_t period, uint64_t count);

/// dst element i is written iff element i of every source is (element sizes may differ).
void ShadowElementwise(uint8_t* dst, uint32_t dst_element_bytes, const uint8_t* const* sources,
                       const uint32_t* source_element_bytes, int source_count, uint64_t count);
/// Marks `bytes` shadow bytes as written or not.
void ShadowFill(uint8_t* shadow, uint64_t bytes, bool written);
/// True if all `bytes` shadow bytes are written.
bool ShadowAll(const uint8_t* shadow, uint64_t bytes);

// --- the vector mask registers (mask/repeat instructions with isSetMask = false) -------------------
void SetVectorMaskBits(uint64_t high, uint64_t low);
void SetVectorMaskLength(uint64_t elements, uint32_t element_bytes);
void SetMaskCounterMode(bool counter);
/// Normal mode: the mask bits; counter mode: the element count in `low`.
void VectorMaskState(bool* counter, uint64_t* high, uint64_t* low);

// --- DMA (PIPE_MTE2 GM->UB, PIPE_MTE3 UB->GM) ------------------------------------------------------
/// One copy of `block_count` blocks of `block_bytes` data bytes; a block's start advances by
/// `src_step` bytes in the source and `dst_step` bytes in the destination. With `whole_blocks`
/// (DataCopy) a length that is not a multiple of 32 bytes is rounded down, as the hardware does.
struct DmaShape {
    uint32_t block_count = 1;
    uint64_t block_bytes = 0;
    uint64_t src_step = 0;
    uint64_t dst_step = 0;
    bool whole_blocks = false;
};
/// Padding of a GM->UB block in UB (DataCopyPad): left/right padding bytes around the data, the
/// fill up to the next 32-byte boundary, and what they hold.
struct DmaPadding {
    uint32_t left_bytes = 0;
    uint32_t right_bytes = 0;
    bool align_block = false;  // fill each block up to a 32-byte multiple
    bool pad_value_given = false;
    uint64_t pad_value = 0;    // the element's bytes, little-endian
    uint32_t element_bytes = 1;
};
void DmaGmToUb(const char* api, const UbRef& dst, const GmRef& src, const DmaShape& shape, const DmaPadding& pad);
void DmaUbToGm(const char* api, const GmRef& dst, const UbRef& src, const DmaShape& shape);
/// DataCopy inside UB: a vector-pipe instruction.
void UbCopy(const char* api, const UbRef& dst, const UbRef& src, const DmaShape& shape);

/// Reports invalid-argument unless lo <= value <= hi.
bool CheckArgument(const char* api, const char* what, uint64_t value, uint64_t lo, uint64_t hi);
/// Reports invalid-argument unless value is a multiple of `unit`.
bool CheckMultiple(const char* api, const char* what, uint64_t value, uint64_t unit);

// --- synchronisation --------------------------------------------------------------------------------
void PipeBarrier(pipe_t pipe);
void SetFlag(AscendC::HardEvent event, int32_t id);
void WaitFlag(AscendC::HardEvent event, int32_t id);
int32_t FetchEventId(AscendC::HardEvent event, bool allocate);
void ReleaseEventId(AscendC::HardEvent event, int32_t id);
void SyncAll(const char* api);
/// The DMA atomic mode of UB->GM copies (SetAtomicAdd/Max/Min/None) and its element type.
enum AtomicKind : int { kAtomicNone = 0, kAtomicAdd, kAtomicMax, kAtomicMin };
enum AtomicType : int {
    kAtomicTypeNone = 0,  // a type A2 has no atomics for
    kAtomicF32,
    kAtomicF16,
    kAtomicBf16,
    kAtomicS8,
    kAtomicS16,
    kAtomicS32,
};
/// `kind` < 0 keeps the mode and sets the type (SetAtomicType); `type_name` names T in findings.
void SetAtomic(const char* api, int kind, int type, const char* type_name);

// --- launches ----------------------------------------------------------------------------------------
using KernelBody = void (*)(void* context);
/// Runs `body(context)` on `block_dim` simulated cores; `arguments_text` is the text of the
/// arguments (split at top-level commas to name each GM buffer), `pointers` their values.
void Launch(const char* kernel, int64_t block_dim, const char* arguments_text, const void* const* pointers,
            size_t pointer_count, KernelBody body, void* context);
void SetTilingKey(uint64_t key);
void SetKernelMode(KernelMode mode);
void NoteKernelType(int type);
/// Trap(): reports and ends the kernel on this core.
[[noreturn]] void KernelTrap();
/// InitGlobalMemory: fills `bytes` GM bytes with the element pattern, checked, at once.
void GmFill(const char* api, const GmRef& ref, uint64_t bytes, const void* element, uint32_t element_bytes);
void KernelAssert(bool condition, const char* text, const char* file, int line);

}  // namespace rt
}  // namespace ascendc_cpu

#endif  // ASCENDC_CPU_RUNTIME_H
