// The pipes of a core: DMA in flight, vector instructions, their synchronisation and the
// missing-sync checks.
//
// Note [Pipes as vector clocks]
// An AI vector core runs four pipes: S (scalar, which issues everything), V (vector), MTE2
// (GM->UB DMA) and MTE3 (UB->GM DMA). Instructions of one pipe run in order; across pipes only
// synchronisation orders them. Each pipe q keeps a clock seen[q]: seen[q][p] is the number of
// pipe p's instructions q is known to run after. SetFlag on pipe p records p's clock (with its own
// count); WaitFlag on pipe q merges that record into seen[q]; the TPipe-TQue framework does the
// same in EnQue/DeQue and FreeTensor/AllocTensor; PipeBarrier<PIPE_ALL> orders everything. An
// instruction issued by S starts no earlier than S is, so it inherits seen[S].
//
// A DMA takes effect when the synchronisation that orders it says so, not at its call (Pallas'
// "on wait"): it is kept in flight until some pipe's clock covers it, and then executed. A vector
// instruction executes at its call. So a kernel that reads UB before the DMA filling it is waited
// for reads the stale bytes, and is told (missing-sync) which instruction and which DMA conflict.
//
// A pair of accesses conflicts when one writes bytes the other touches and the later one's pipe
// has not seen the earlier one. Following the AscendC documentation of automatic synchronisation
// on Atlas A2: V after V is ordered by the compiler; S after or before anything is ordered by the
// compiler for GetValue/SetValue (the twin makes S wait for exactly the DMA it conflicts with);
// MTE2 after MTE2 and MTE3 after MTE3 need PipeBarrier when their destinations overlap; every
// other pair needs the framework or explicit flags.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "internal.h"

namespace ascendc_cpu {
namespace rt {
namespace {

std::mutex g_atomic_mutex;  // atomic DMA adds of cores running as threads

const char* PipeName(Pipe pipe)
{
    switch (pipe) {
        case kPipeS: return "S";
        case kPipeV: return "V";
        case kPipeMte2: return "MTE2";
        case kPipeMte3: return "MTE3";
        default: return "?";
    }
}

std::string RangeText(const Range& range)
{
    std::string text = "[";
    text += Hex(range.begin);
    text += ", ";
    text += Hex(range.end);
    text += ")";
    return text;
}

bool AnyOverlap(const std::vector<Range>& ranges, const Range& range, Range* where)
{
    for (const Range& r : ranges) {
        if (r.Overlaps(range)) {
            *where = Range{std::max(r.begin, range.begin), std::min(r.end, range.end)};
            return true;
        }
    }
    return false;
}

bool AnyOverlap(const std::vector<Range>& a, const std::vector<Range>& b, Range* where)
{
    for (const Range& r : b) {
        if (AnyOverlap(a, r, where)) {
            return true;
        }
    }
    return false;
}

void WriteElementPattern(uint8_t* dst, uint64_t bytes, const uint8_t* element, uint32_t element_bytes)
{
    for (uint64_t i = 0; i < bytes; ++i) {
        dst[i] = element[i % element_bytes];
    }
}

/// One element of an atomic copy: GM's `old` combined with the copied `value`. Floating types are
/// combined exactly (in double) and rounded once to T; integers wrap. Max and Min give a NaN operand
/// (the copied one first), as the vector Max/Min do.
template <typename T>
T AtomicCombine(int kind, T old, T value)
{
    if constexpr (std::is_integral<T>::value) {
        using U = std::make_unsigned_t<T>;
        switch (kind) {
            case kAtomicAdd: return static_cast<T>(static_cast<U>(static_cast<U>(old) + static_cast<U>(value)));
            case kAtomicMax: return old > value ? old : value;
            default: return old < value ? old : value;
        }
    } else {
        const double a = static_cast<float>(old);
        const double b = static_cast<float>(value);
        if (kind != kAtomicAdd && (a != a || b != b)) {
            return b != b ? value : old;
        }
        switch (kind) {
            case kAtomicAdd: return static_cast<T>(a + b);
            case kAtomicMax: return a >= b ? old : value;
            default: return a <= b ? old : value;
        }
    }
}

template <typename T>
void AtomicElements(uint8_t* dst, const uint8_t* src, uint64_t bytes, int kind)
{
    for (uint64_t i = 0; i + sizeof(T) <= bytes; i += sizeof(T)) {
        T old;
        T value;
        std::memcpy(&old, dst + i, sizeof(T));
        std::memcpy(&value, src + i, sizeof(T));
        const T result = AtomicCombine<T>(kind, old, value);
        std::memcpy(dst + i, &result, sizeof(T));
    }
}

/// An atomic UB->GM copy of `bytes` bytes (whole elements; a trailing part element is not written).
void AtomicCopy(uint8_t* dst, const uint8_t* src, uint64_t bytes, int kind, int type)
{
    std::lock_guard<std::mutex> lock(g_atomic_mutex);
    switch (type) {
        case kAtomicF32: AtomicElements<float>(dst, src, bytes, kind); return;
        case kAtomicF16: AtomicElements<half>(dst, src, bytes, kind); return;
        case kAtomicBf16: AtomicElements<bfloat16_t>(dst, src, bytes, kind); return;
        case kAtomicS8: AtomicElements<int8_t>(dst, src, bytes, kind); return;
        case kAtomicS16: AtomicElements<int16_t>(dst, src, bytes, kind); return;
        case kAtomicS32: AtomicElements<int32_t>(dst, src, bytes, kind); return;
        default: return;  // reported at SetAtomic*; the write is dropped
    }
}

/// Executes a DMA: moves its bytes, fills padding, tracks initialisation and GM accesses.
void Execute(Core& core, DmaOp& op)
{
    op.done = true;
    const bool checks = core.launch->checks;
    const GmBuffer* gm = op.gm_known ? op.gm : nullptr;
    const uint64_t readable = gm != nullptr ? gm->tolerated : 0;
    if (op.pipe == kPipeMte2) {
        for (const DmaBlock& block : op.blocks) {
            const uint64_t inside = block.src < readable ? std::min(block.bytes, readable - block.src) : 0;
            if (inside > 0) {
                std::memcpy(core.ub + block.dst, gm->base + block.src, inside);
                if (checks) {
                    RecordGm(core, gm, Range{block.src, block.src + inside}, false, false);
                }
            }
            std::memset(core.ub + block.dst + inside, kPoisonByte, block.bytes - inside);
            if (checks) {
                ShadowFill(core.shadow + block.dst, block.bytes, true);
            }
        }
        for (const DmaFill& fill : op.fills) {
            uint8_t element[8];
            switch (fill.kind) {
                case DmaFill::Kind::kValue:
                    std::memcpy(element, &fill.value, sizeof(element));
                    WriteElementPattern(core.ub + fill.ub, fill.bytes, element, op.element_bytes);
                    break;
                case DmaFill::Kind::kFirstElement:
                    std::memcpy(element, core.ub + fill.first, op.element_bytes);
                    WriteElementPattern(core.ub + fill.ub, fill.bytes, element, op.element_bytes);
                    break;
                case DmaFill::Kind::kUndefined:
                    std::memset(core.ub + fill.ub, kPoisonByte, fill.bytes);
                    break;
            }
            if (checks) {
                ShadowFill(core.shadow + fill.ub, fill.bytes, fill.kind != DmaFill::Kind::kUndefined);
            }
        }
        return;
    }
    uint64_t never_written = 0;
    Range first_gm;
    for (const DmaBlock& block : op.blocks) {
        if (checks && !ShadowAll(core.shadow + block.src, block.bytes)) {
            for (uint64_t i = 0; i < block.bytes; ++i) {
                if (core.shadow[block.src + i] == 0) {
                    if (never_written == 0) {
                        first_gm = Range{block.dst + i, block.dst + i + 1};
                    }
                    ++never_written;
                    first_gm.end = std::max(first_gm.end, block.dst + i + 1);
                }
            }
        }
        const uint64_t inside = block.dst < readable ? std::min(block.bytes, readable - block.dst) : 0;
        if (inside == 0) {
            continue;
        }
        if (op.atomic != kAtomicNone) {
            AtomicCopy(gm->base + block.dst, core.ub + block.src, inside, op.atomic, op.atomic_type);
        } else {
            std::memcpy(gm->base + block.dst, core.ub + block.src, inside);
        }
        if (checks) {
            RecordGm(core, gm, Range{block.dst, block.dst + inside}, true, op.atomic != 0);
        }
    }
    if (never_written > 0) {
        ReportFor(&core, Check::kUninitialized, Severity::kError, op.api,
                  std::to_string(never_written) + " byte(s) never written in UB reach GM (first at GM bytes " +
                      RangeText(first_gm) + ")",
                  GmNameOf(core.launch, op.gm));
    }
}

void CompleteUpTo(Core& core, Pipe pipe, uint64_t seq)
{
    if (pipe != kPipeMte2 && pipe != kPipeMte3) {
        return;
    }
    for (DmaOp& op : core.dma[pipe]) {
        if (op.seq > seq) {
            break;
        }
        if (!op.done) {
            Execute(core, op);
        }
    }
}

uint64_t SeenByAll(const Core& core, Pipe pipe)
{
    uint64_t least = UINT64_MAX;
    for (Pipe q : {kPipeV, kPipeMte2, kPipeMte3}) {
        least = std::min(least, core.seen[q][pipe]);
    }
    return least;
}

/// Forgets DMA and vector instructions every other pipe is ordered after.
void Prune(Core& core)
{
    for (Pipe p : {kPipeMte2, kPipeMte3}) {
        const uint64_t covered = SeenByAll(core, p);
        auto& log = core.dma[p];
        while (!log.empty() && log.front().done && log.front().seq <= covered) {
            log.pop_front();
        }
    }
    const uint64_t vector_covered = std::min(core.seen[kPipeMte2][kPipeV], core.seen[kPipeMte3][kPipeV]);
    while (!core.vector_log.empty() && core.vector_log.front().seq <= vector_covered) {
        core.vector_log.pop_front();
    }
}

void ReportMissingSync(Core& core, const char* api, const std::string& detail, const DmaOp& dma)
{
    ReportFor(&core, Check::kMissingSync, Severity::kError, api, detail, GmNameOf(core.launch, dma.gm_known ? dma.gm : nullptr));
}

/// Checks a DMA about to be issued on its pipe against everything its pipe is not ordered after.
void CheckDmaHazards(Core& core, const DmaOp& op)
{
    const Pipe p = op.pipe;
    const Clock& seen = core.seen[p];
    const bool in = p == kPipeMte2;
    Range where;
    for (const VectorAccess& v : core.vector_log) {
        if (v.seq <= seen[kPipeV]) {
            continue;
        }
        bool conflict = AnyOverlap(op.ub_ranges, v.write, &where);
        if (in && !conflict) {
            for (int i = 0; i < v.read_count && !conflict; ++i) {
                conflict = AnyOverlap(op.ub_ranges, v.reads[static_cast<size_t>(i)], &where);
            }
        }
        if (conflict) {
            ReportMissingSync(core, op.api,
                              std::string(in ? "GM->UB (MTE2) overwrites UB " : "UB->GM (MTE3) reads UB ") +
                                  RangeText(where) + " that " + v.api + " (V) " +
                                  (in ? "still uses" : "writes") + "; no " +
                                  (in ? "FreeTensor/AllocTensor, WaitFlag<V_MTE2>" : "EnQue/DeQue, WaitFlag<V_MTE3>") +
                                  " or PipeBarrier<PIPE_ALL> orders them",
                              op);
            break;
        }
    }
    const Pipe other = in ? kPipeMte3 : kPipeMte2;
    for (const DmaOp& y : core.dma[other]) {
        if (y.seq <= seen[other]) {
            continue;
        }
        if (AnyOverlap(op.ub_ranges, y.ub_ranges, &where)) {
            ReportMissingSync(core, op.api,
                              std::string(in ? "GM->UB (MTE2) overwrites UB " : "UB->GM (MTE3) reads UB ") +
                                  RangeText(where) + " that an earlier " + y.api + " (" + PipeName(other) +
                                  ") still " + (in ? "reads" : "writes") + "; no WaitFlag<" +
                                  (in ? "MTE3_MTE2" : "MTE2_MTE3") + "> or PipeBarrier<PIPE_ALL> orders them",
                              op);
            break;
        }
        if (op.gm_known && y.gm_known && op.gm == y.gm && AnyOverlap(op.gm_ranges, y.gm_ranges, &where)) {
            ReportMissingSync(core, op.api,
                              std::string(in ? "GM->UB (MTE2) reads GM bytes " : "UB->GM (MTE3) overwrites GM bytes ") +
                                  RangeText(where) + " that an earlier " + y.api + " (" + PipeName(other) + ") " +
                                  (in ? "writes" : "still reads") + "; no WaitFlag<" +
                                  (in ? "MTE3_MTE2" : "MTE2_MTE3") + "> or PipeBarrier<PIPE_ALL> orders them",
                              op);
            break;
        }
    }
    for (const DmaOp& y : core.dma[p]) {
        if (y.seq <= seen[p]) {
            continue;
        }
        const bool overlap = in ? AnyOverlap(op.ub_ranges, y.ub_ranges, &where)
                                : (op.gm_known && y.gm_known && op.gm == y.gm &&
                                   AnyOverlap(op.gm_ranges, y.gm_ranges, &where));
        if (overlap) {
            ReportMissingSync(core, op.api,
                              std::string("writes ") + (in ? "UB " : "GM bytes ") + RangeText(where) +
                                  " that an earlier " + y.api + " on the same pipe (" + PipeName(p) +
                                  ") also writes; overlapping DMA destinations need PipeBarrier<PIPE_" +
                                  PipeName(p) + ">",
                              op);
            break;
        }
    }
}

void IssueDma(Core& core, DmaOp op)
{
    const Pipe p = op.pipe;
    core.issued[p] += 1;
    op.seq = core.issued[p];
    op.stamp = ++core.dma_stamp;
    InheritScalar(core, p);
    if (!core.launch->checks) {
        Execute(core, op);  // checks off: the copy lands at its call
        return;
    }
    CheckDmaHazards(core, op);
    core.dma[p].push_back(std::move(op));
}

/// The GM side of a DMA: bounds against the GmAlloc size (a warning inside aclrtMalloc's slack).
void CheckGmBounds(Core& core, const char* api, const DmaOp& op, bool write)
{
    // The name only when reporting: building it for every DMA cost a string per copy.
    const auto name = [&] { return GmNameOf(core.launch, op.gm_known ? op.gm : nullptr); };
    if (!op.gm_known) {
        ReportFor(&core, Check::kGmOutOfBounds, Severity::kError, api,
                  std::string("the GlobalTensor's address is not inside any GmAlloc buffer; ") +
                      (write ? "the write was dropped" : "the read gave poison"),
                  name());
        return;
    }
    uint64_t end = 0;
    for (const Range& r : op.gm_ranges) {
        end = std::max(end, r.end);
    }
    if (end <= op.gm->size) {
        return;
    }
    const uint64_t past = end - op.gm->size;
    if (end <= op.gm->tolerated) {
        ReportFor(&core, Check::kGmOutOfBounds, Severity::kWarning, api,
                  std::string(write ? "writes " : "reads ") + std::to_string(past) + " byte(s) past the end of the " +
                      std::to_string(op.gm->size) +
                      "-byte buffer, inside the 32-byte rounding plus 32 bytes aclrtMalloc adds",
                  name());
    } else {
        ReportFor(&core, Check::kGmOutOfBounds, Severity::kError, api,
                  std::string(write ? "writes " : "reads ") + std::to_string(past) + " byte(s) past the end of the " +
                      std::to_string(op.gm->size) + "-byte buffer (GM bytes " +
                      RangeText(Range{op.gm->size, end}) + "); " +
                      (write ? "bytes past the slack were dropped" : "bytes past the slack read as poison"),
                  name());
    }
}

/// DataCopy moves whole 32-byte blocks: an unaligned length is rounded down as the NPU does.
/// `tensor` names the buffer moved (computed only for a report).
template <typename Name>
bool RoundToBlocks(const char* api, DmaShape& shape, Name tensor_name)
{
    if (!shape.whole_blocks || shape.block_bytes % kBlockBytes == 0) {
        return true;
    }
    const std::string tensor = tensor_name();
    const uint64_t rounded = shape.block_bytes / kBlockBytes * kBlockBytes;
    Report(Check::kDataCopyUnaligned, Severity::kError, api,
           std::to_string(shape.block_bytes) + " bytes is not a multiple of 32; the NPU moves " +
               std::to_string(rounded) + " (rounded down); use DataCopyPad for the tail",
           tensor.c_str());
    shape.block_bytes = rounded;
    return rounded > 0;
}

bool GmOffset(const GmRef& ref, uint64_t* offset)
{
    if (ref.buffer == nullptr || ref.address < ref.buffer->base) {
        return false;
    }
    *offset = static_cast<uint64_t>(ref.address - ref.buffer->base);
    return true;
}

std::pair<Pipe, Pipe> PipesOf(AscendC::HardEvent event)
{
    using E = AscendC::HardEvent;
    switch (event) {
        case E::MTE2_V: return {kPipeMte2, kPipeV};
        case E::V_MTE2: return {kPipeV, kPipeMte2};
        case E::MTE3_V: return {kPipeMte3, kPipeV};
        case E::V_MTE3: return {kPipeV, kPipeMte3};
        case E::MTE3_MTE2: return {kPipeMte3, kPipeMte2};
        case E::MTE2_MTE3: return {kPipeMte2, kPipeMte3};
        case E::S_V: return {kPipeS, kPipeV};
        case E::V_S: return {kPipeV, kPipeS};
        case E::S_MTE2: return {kPipeS, kPipeMte2};
        case E::MTE2_S: return {kPipeMte2, kPipeS};
        case E::S_MTE3: return {kPipeS, kPipeMte3};
        case E::MTE3_S: return {kPipeMte3, kPipeS};
        case E::V_V: return {kPipeV, kPipeV};
        default: return {kPipeCount, kPipeCount};
    }
}


}  // namespace

Clock Snapshot(Core& core, Pipe pipe)
{
    Clock clock = core.seen[pipe];
    clock[pipe] = core.issued[pipe];
    return clock;
}

void WaitOn(Core& core, Pipe pipe, const Clock& clock)
{
    bool advanced = false;
    for (size_t p = 0; p < kPipeCount; ++p) {
        if (clock[p] > core.seen[pipe][p]) {
            core.seen[pipe][p] = clock[p];
            CompleteUpTo(core, static_cast<Pipe>(p), clock[p]);
            advanced = true;
        }
    }
    if (advanced) {
        Prune(core);
    }
}

void InheritScalar(Core& core, Pipe pipe)
{
    const Clock scalar = core.seen[kPipeS];
    WaitOn(core, pipe, scalar);
}

void CompleteAll(Core& core)
{
    // Everything in flight lands, in the order it was issued.
    for (;;) {
        DmaOp* next = nullptr;
        for (Pipe p : {kPipeMte2, kPipeMte3}) {
            for (DmaOp& op : core.dma[p]) {
                if (!op.done) {
                    if (next == nullptr || op.stamp < next->stamp) {
                        next = &op;
                    }
                    break;
                }
            }
        }
        if (next == nullptr) {
            break;
        }
        Execute(core, *next);
    }
    Clock all{};
    for (size_t p = 0; p < kPipeCount; ++p) {
        all[p] = core.issued[p];
    }
    for (size_t q = 0; q < kPipeCount; ++q) {
        WaitOn(core, static_cast<Pipe>(q), all);
    }
}

void ScalarWaitUb(Core& core, const Range& ub, bool write)
{
    Clock wait = core.seen[kPipeS];
    Range where;
    // The compiler orders GetValue/SetValue after the vector instructions they depend on (V -> S),
    // so what S issues next is ordered after them too.
    for (const VectorAccess& v : core.vector_log) {
        bool conflict = v.write.Overlaps(ub);
        for (int i = 0; write && !conflict && i < v.read_count; ++i) {
            conflict = v.reads[static_cast<size_t>(i)].Overlaps(ub);
        }
        if (v.seq > wait[kPipeV] && conflict) {
            wait[kPipeV] = v.seq;
        }
    }
    for (Pipe p : {kPipeMte2, kPipeMte3}) {
        for (const DmaOp& op : core.dma[p]) {
            const bool conflict = (p == kPipeMte2 || write) && AnyOverlap(op.ub_ranges, ub, &where);
            if (op.seq > wait[p] && conflict) {
                wait[p] = op.seq;
            }
        }
    }
    WaitOn(core, kPipeS, wait);
}

void ScalarWaitGm(Core& core, const GmBuffer* gm, const Range& bytes, bool write)
{
    Clock wait = core.seen[kPipeS];
    Range where;
    for (Pipe p : {kPipeMte2, kPipeMte3}) {
        for (const DmaOp& op : core.dma[p]) {
            const bool conflict = op.gm_known && op.gm == gm && (p == kPipeMte3 || write) &&
                                  AnyOverlap(op.gm_ranges, bytes, &where);
            if (op.seq > wait[p] && conflict) {
                wait[p] = op.seq;
            }
        }
    }
    WaitOn(core, kPipeS, wait);
}

void CheckVectorAgainstDma(Core& core, const VectorAccess& access)
{
    const Clock& seen = core.seen[kPipeV];
    Range where;
    for (const DmaOp& y : core.dma[kPipeMte2]) {
        if (y.seq <= seen[kPipeMte2]) {
            continue;
        }
        bool conflict = AnyOverlap(y.ub_ranges, access.write, &where);
        for (int i = 0; i < access.read_count && !conflict; ++i) {
            conflict = AnyOverlap(y.ub_ranges, access.reads[static_cast<size_t>(i)], &where);
        }
        if (conflict) {
            ReportMissingSync(core, access.api,
                              "uses UB " + RangeText(where) + " before " + y.api +
                                  " (MTE2, GM->UB) has landed: it sees stale bytes; no EnQue/DeQue, "
                                  "WaitFlag<MTE2_V> or PipeBarrier<PIPE_ALL> orders them",
                              y);
            return;
        }
    }
    for (const DmaOp& y : core.dma[kPipeMte3]) {
        if (y.seq <= seen[kPipeMte3]) {
            continue;
        }
        if (AnyOverlap(y.ub_ranges, access.write, &where)) {
            ReportMissingSync(core, access.api,
                              "overwrites UB " + RangeText(where) + " that " + y.api +
                                  " (MTE3, UB->GM) has not finished reading; no FreeTensor/AllocTensor, "
                                  "WaitFlag<MTE3_V> or PipeBarrier<PIPE_ALL> orders them",
                              y);
            return;
        }
    }
}

void LogVector(Core& core, VectorAccess access)
{
    core.vector_log.push_back(access);
    if (core.vector_log.size() > kVectorLogLimit) {
        core.vector_log.pop_front();
    }
}

void FinishCoreSync(Core& core)
{
    CompleteAll(core);
    for (const auto& entry : core.flags) {
        if (!entry.second.empty()) {
            ReportFor(&core, Check::kMissingSync, Severity::kWarning, "SetFlag",
                      "SetFlag (event " + std::to_string(entry.first.first) + ", id " +
                          std::to_string(entry.first.second) + ") has no matching WaitFlag when the kernel ends",
                      std::string());
        }
    }
    core.dma[kPipeMte2].clear();
    core.dma[kPipeMte3].clear();
    core.vector_log.clear();
}

// --- DMA ------------------------------------------------------------------------------------------------

void DmaGmToUb(const char* api, const UbRef& dst, const GmRef& src, const DmaShape& requested, const DmaPadding& pad)
{
    Core* core = CoreOrReport(api);
    if (core == nullptr) {
        return;
    }
    DmaShape shape = requested;
    if (!RoundToBlocks(api, shape, [&] { return GmNameOf(core->launch, src.buffer); }) || shape.block_count == 0) {
        return;
    }
    const uint64_t footprint =
        pad.align_block
            ? (shape.block_bytes + pad.left_bytes + pad.right_bytes + kBlockBytes - 1) / kBlockBytes * kBlockBytes
            : shape.block_bytes;
    const uint64_t span = (shape.block_count - 1) * shape.dst_step + footprint;
    if (ResolveUb(*core, api, dst, span, 1, kBlockBytes) == nullptr) {
        return;
    }
    DmaOp op;
    op.pipe = kPipeMte2;
    op.api = api;
    op.gm = src.buffer;
    op.gm_known = GmOffset(src, &op.gm_offset_base);
    op.element_bytes = pad.element_bytes;
    for (uint32_t i = 0; i < shape.block_count; ++i) {
        const uint64_t ub_block = dst.offset + i * shape.dst_step;
        const uint64_t gm = op.gm_offset_base + i * shape.src_step;
        op.blocks.push_back(DmaBlock{gm, ub_block + pad.left_bytes, shape.block_bytes});
        op.ub_ranges.push_back(Range{ub_block, ub_block + footprint});
        op.gm_ranges.push_back(Range{gm, gm + shape.block_bytes});
        if (!pad.align_block) {
            continue;
        }
        DmaFill::Kind kind = DmaFill::Kind::kUndefined;
        if (pad.left_bytes == 0 && pad.right_bytes == 0) {
            kind = DmaFill::Kind::kFirstElement;  // the dummy repeats the block's first element
        } else if (pad.pad_value_given) {
            kind = DmaFill::Kind::kValue;
        }
        const uint64_t data_end = ub_block + pad.left_bytes + shape.block_bytes;
        if (pad.left_bytes > 0) {
            op.fills.push_back(DmaFill{ub_block, pad.left_bytes, kind, pad.pad_value, ub_block});
        }
        if (ub_block + footprint > data_end) {
            op.fills.push_back(
                DmaFill{data_end, ub_block + footprint - data_end, kind, pad.pad_value, ub_block + pad.left_bytes});
        }
    }
    CheckGmBounds(*core, api, op, false);
    IssueDma(*core, std::move(op));
}

void DmaUbToGm(const char* api, const GmRef& dst, const UbRef& src, const DmaShape& requested)
{
    Core* core = CoreOrReport(api);
    if (core == nullptr) {
        return;
    }
    DmaShape shape = requested;
    if (!RoundToBlocks(api, shape, [&] { return GmNameOf(core->launch, dst.buffer); }) || shape.block_count == 0) {
        return;
    }
    const uint64_t span = (shape.block_count - 1) * shape.src_step + shape.block_bytes;
    if (ResolveUb(*core, api, src, span, 1, kBlockBytes) == nullptr) {
        return;
    }
    DmaOp op;
    op.pipe = kPipeMte3;
    op.api = api;
    op.gm = dst.buffer;
    op.gm_known = GmOffset(dst, &op.gm_offset_base);
    op.atomic = core->atomic;
    op.atomic_type = core->atomic_type;
    if (op.atomic != kAtomicNone && op.atomic_type == kAtomicTypeNone) {
        ReportFor(core, Check::kUnsupported, Severity::kError, api,
                  "the atomic mode in force has an element type A2 has no DMA atomics for: the write was dropped",
                  GmNameOf(core->launch, dst.buffer));
    }
    for (uint32_t i = 0; i < shape.block_count; ++i) {
        const uint64_t ub_block = src.offset + i * shape.src_step;
        const uint64_t gm = op.gm_offset_base + i * shape.dst_step;
        op.blocks.push_back(DmaBlock{ub_block, gm, shape.block_bytes});
        op.ub_ranges.push_back(Range{ub_block, ub_block + shape.block_bytes});
        op.gm_ranges.push_back(Range{gm, gm + shape.block_bytes});
    }
    CheckGmBounds(*core, api, op, true);
    IssueDma(*core, std::move(op));
}

void UbCopy(const char* api, const UbRef& dst, const UbRef& src, const DmaShape& requested)
{
    Core* core = CoreOrReport(api);
    if (core == nullptr) {
        return;
    }
    DmaShape shape = requested;
    if (!RoundToBlocks(api, shape, [&] { return UbName(src); }) || shape.block_count == 0) {
        return;
    }
    VectorOp op(api);
    const uint64_t src_span = (shape.block_count - 1) * shape.src_step + shape.block_bytes;
    const uint64_t dst_span = (shape.block_count - 1) * shape.dst_step + shape.block_bytes;
    uint8_t* out = op.Write(dst, dst_span, 1);
    const uint8_t* in = op.Read(src, src_span, 1);
    if (!op.Issue()) {
        return;
    }
    for (uint32_t i = 0; i < shape.block_count; ++i) {
        std::memmove(out + i * shape.dst_step, in + i * shape.src_step, shape.block_bytes);
        if (op.Tracking()) {
            std::memmove(op.Shadow(out + i * shape.dst_step), op.Shadow(in + i * shape.src_step), shape.block_bytes);
        }
    }
}

// --- flags and barriers -------------------------------------------------------------------------------------

void PipeBarrier(pipe_t pipe)
{
    Core* core = CoreOrReport("PipeBarrier");
    if (core == nullptr) {
        return;
    }
    switch (pipe) {
        case PIPE_ALL: CompleteAll(*core); return;
        case PIPE_MTE2:
        case PIPE_MTE3: {
            const Pipe p = pipe == PIPE_MTE2 ? kPipeMte2 : kPipeMte3;
            Clock own = core->seen[p];
            own[p] = core->issued[p];
            WaitOn(*core, p, own);
            return;
        }
        case PIPE_S:
            Report(Check::kInvalidArgument, Severity::kError, "PipeBarrier",
                   "PipeBarrier does not take PIPE_S (the scalar pipe is ordered by the hardware)", nullptr);
            return;
        default: return;  // PIPE_V is in order already; the cube pipes have nothing to order here
    }
}

void SetFlag(AscendC::HardEvent event, int32_t id)
{
    Core* core = CoreOrReport("SetFlag");
    if (core == nullptr || !CheckArgument("SetFlag", "event id", static_cast<uint64_t>(id), 0, kEventIds - 1)) {
        return;
    }
    const auto pipes = PipesOf(event);
    if (pipes.first == kPipeCount) {
        Report(Check::kUnsupported, Severity::kError, "SetFlag",
               "HardEvent " + std::to_string(static_cast<int>(event)) + " involves a pipe the vector core lacks",
               nullptr);
        return;
    }
    core->flags[{static_cast<int>(event), id}].push_back(Snapshot(*core, pipes.first));
}

void WaitFlag(AscendC::HardEvent event, int32_t id)
{
    Core* core = CoreOrReport("WaitFlag");
    if (core == nullptr || !CheckArgument("WaitFlag", "event id", static_cast<uint64_t>(id), 0, kEventIds - 1)) {
        return;
    }
    const auto pipes = PipesOf(event);
    if (pipes.first == kPipeCount) {
        Report(Check::kUnsupported, Severity::kError, "WaitFlag",
               "HardEvent " + std::to_string(static_cast<int>(event)) + " involves a pipe the vector core lacks",
               nullptr);
        return;
    }
    auto& pending = core->flags[{static_cast<int>(event), id}];
    if (pending.empty()) {
        Report(Check::kMissingSync, Severity::kError, "WaitFlag",
               "WaitFlag (event " + std::to_string(static_cast<int>(event)) + ", id " + std::to_string(id) +
                   ") without a SetFlag before it: the pipe would wait forever on the NPU",
               nullptr);
        return;
    }
    const Clock clock = pending.front();
    pending.pop_front();
    WaitOn(*core, pipes.second, clock);
}

int32_t FetchEventId(AscendC::HardEvent event, bool allocate)
{
    Core* core = CoreOrReport("FetchEventID");
    if (core == nullptr) {
        return 0;
    }
    uint32_t& used = core->allocated_event_ids[static_cast<int>(event)];
    for (int32_t id = 0; id < kEventIds; ++id) {
        if ((used & (1u << id)) == 0) {
            if (allocate) {
                used |= 1u << id;
            }
            return id;
        }
    }
    Report(Check::kInvalidArgument, Severity::kError, allocate ? "AllocEventID" : "FetchEventID",
           "all " + std::to_string(kEventIds) + " event ids of this HardEvent are allocated", nullptr);
    return -1;
}

void ReleaseEventId(AscendC::HardEvent event, int32_t id)
{
    Core* core = ThisCore();
    if (core != nullptr && id >= 0 && id < kEventIds) {
        core->allocated_event_ids[static_cast<int>(event)] &= ~(1u << id);
    }
}

void SetAtomic(const char* api, int kind, int type, const char* type_name)
{
    Core* core = CoreOrReport(api);
    if (core == nullptr) {
        return;
    }
    if (kind >= 0) {
        core->atomic = kind;
    }
    core->atomic_type = type;
    if (type == kAtomicTypeNone && core->atomic != kAtomicNone) {
        ReportFor(core, Check::kUnsupported, Severity::kError, api,
                  std::string("A2's DMA atomics take int8_t, int16_t, half, bfloat16_t, int32_t or float, not ") +
                      type_name + ": atomic copies are dropped until the next SetAtomic*",
                  std::string());
    }
}

}  // namespace rt
}  // namespace ascendc_cpu
