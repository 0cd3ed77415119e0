// A core's unified buffer: the TPipe's buffers, queues and TBufs, LocalTensor views and their
// checks, scalar access, vector instructions and the initialisation shadow.
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>

#include "internal.h"

namespace ascendc_cpu {
namespace rt {

/// Buffers and queues reserved per core at their first InitBuffer (a TPipe has at most 64 buffers).
constexpr size_t kMaxBuffersReserved = 64;
namespace {

const char* PositionName(AscendC::TPosition position)
{
    switch (position) {
        case AscendC::TPosition::VECIN: return "VECIN";
        case AscendC::TPosition::VECOUT: return "VECOUT";
        case AscendC::TPosition::VECCALC: return "VECCALC";
        case AscendC::TPosition::GM: return "GM";
        default: return "UB";
    }
}

/// The pipe that writes a buffer at this position: MTE2 brings data in from GM, V computes.
Pipe ProducerOf(AscendC::TPosition position)
{
    return position == AscendC::TPosition::VECIN || position == AscendC::TPosition::GM ? kPipeMte2 : kPipeV;
}

/// The pipe that reads a buffer at this position: MTE3 takes it out to GM, V computes.
Pipe ConsumerOf(AscendC::TPosition position)
{
    return position == AscendC::TPosition::VECOUT || position == AscendC::TPosition::GM ? kPipeMte3 : kPipeV;
}


PipeState* LivePipe(Core& core, int32_t pipe, const char* api)
{
    if (pipe < 0 || static_cast<size_t>(pipe) >= core.pipes.size() || !core.pipes[static_cast<size_t>(pipe)].alive) {
        Report(Check::kInvalidArgument, Severity::kError, api, "the TPipe is not alive (destroyed, or built outside the kernel)",
               nullptr);
        return nullptr;
    }
    return &core.pipes[static_cast<size_t>(pipe)];
}

/// Places `count` buffers of `bytes` bytes after the pipe's last one; reports UB overflow once.
bool PlaceBuffers(Core& core, PipeState& pipe, int32_t pipe_id, uint32_t count, uint32_t bytes,
                  AscendC::TPosition position, int32_t queue, const char* api, std::vector<int32_t>& ids)
{
    const uint64_t end = static_cast<uint64_t>(pipe.cursor) + static_cast<uint64_t>(count) * bytes;
    const uint32_t buffers_after = pipe.buffer_count + count;
    if (buffers_after > kMaxPipeBuffers) {
        Report(Check::kUbOverflow, Severity::kError, api,
               "the TPipe now has " + std::to_string(buffers_after) + " buffers; at most " +
                   std::to_string(kMaxPipeBuffers) + " are allowed",
               nullptr);
    }
    if (end > kUbBytes) {
        Report(Check::kUbOverflow, Severity::kError, api,
               "buffers end at byte " + std::to_string(end) + ", past the " + std::to_string(kUbBytes) +
                   " bytes of UB",
               nullptr);
    } else if (end > kUbBudgetBytes) {
        Report(Check::kUbOverflow, Severity::kWarning, api,
               "buffers end at byte " + std::to_string(end) + ", inside the 256 bytes at the top of UB that "
               "GetCoreMemSize(UB) (" + std::to_string(kUbBudgetBytes) + ") leaves out",
               nullptr);
    }
    if (end > kUbBackingBytes) {
        return false;
    }
    if (core.buffers.empty()) {
        core.buffers.reserve(kMaxBuffersReserved);  // no reallocation for a pipe's usual buffers
    }
    for (uint32_t i = 0; i < count; ++i) {
        UbBuffer buffer;
        buffer.start = pipe.cursor + i * bytes;
        buffer.bytes = bytes;
        buffer.position = position;
        buffer.queue = queue;
        buffer.pipe = pipe_id;
        buffer.state = queue < 0 ? BufferState::kTBuf : BufferState::kFree;
        ids.push_back(static_cast<int32_t>(core.buffers.size()));
        pipe.buffers.push_back(static_cast<int32_t>(core.buffers.size()));
        core.buffers.push_back(buffer);
    }
    pipe.cursor = static_cast<uint32_t>(end);
    pipe.buffer_count = buffers_after;
    return true;
}

UbBuffer* QueueBuffer(Core& core, const Queue& queue, const UbRef& ref)
{
    if (ref.buffer < 0 || std::find(queue.buffers.begin(), queue.buffers.end(), ref.buffer) == queue.buffers.end()) {
        return nullptr;
    }
    return &core.buffers[static_cast<size_t>(ref.buffer)];
}

Queue* QueueOf(Core& core, int32_t queue, const char* api)
{
    if (queue < 0 || static_cast<size_t>(queue) >= core.queues.size()) {
        Report(Check::kQueueMisuse, Severity::kError, api, "the queue was never given buffers by TPipe::InitBuffer",
               nullptr);
        return nullptr;
    }
    return &core.queues[static_cast<size_t>(queue)];
}

/// Same-size operands: a destination byte is written iff the source bytes at its offset are. DMA,
/// padding and scalar stores mark whole elements, so byte-wise is element-wise here.
void ShadowSameSize(uint8_t* dst, const uint8_t* const* sources, int source_count, uint64_t bytes)
{
    switch (source_count) {
        case 0: std::memset(dst, 0xff, bytes); return;
        case 1: std::memmove(dst, sources[0], bytes); return;
        case 2: {
            const uint8_t* a = sources[0];
            const uint8_t* b = sources[1];
            for (uint64_t i = 0; i < bytes; ++i) {
                dst[i] = static_cast<uint8_t>(a[i] & b[i]);
            }
            return;
        }
        default: {
            const uint8_t* a = sources[0];
            const uint8_t* b = sources[1];
            const uint8_t* c = sources[2];
            for (uint64_t i = 0; i < bytes; ++i) {
                dst[i] = static_cast<uint8_t>(a[i] & b[i] & c[i]);
            }
            for (int s = 3; s < source_count; ++s) {
                for (uint64_t i = 0; i < bytes; ++i) {
                    dst[i] = static_cast<uint8_t>(dst[i] & sources[s][i]);
                }
            }
            return;
        }
    }
}

/// One source of another element size (Cast): dst element i is written iff source element i is.
template <uint32_t kDst, uint32_t kSrc>
void ShadowResize(uint8_t* dst, const uint8_t* src, uint64_t count)
{
    for (uint64_t i = 0; i < count; ++i) {
        uint8_t written = 0xff;
        for (uint32_t b = 0; b < kSrc; ++b) {
            written = static_cast<uint8_t>(written & src[i * kSrc + b]);
        }
        for (uint32_t b = 0; b < kDst; ++b) {
            dst[i * kDst + b] = written;
        }
    }
}

}  // namespace

MappedBytes::~MappedBytes()
{
    if (data_ != nullptr) {
        munmap(data_, bytes_);
    }
}

bool MappedBytes::Map(uint64_t bytes)
{
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        return false;
    }
    data_ = static_cast<uint8_t*>(p);
    bytes_ = bytes;
    return true;
}

namespace {
std::mutex g_memory_mutex;
std::vector<std::unique_ptr<UbMemory>> g_free_memory;
}  // namespace

void PrepareCore(Core& core)
{
    {
        std::lock_guard<std::mutex> lock(g_memory_mutex);
        if (!g_free_memory.empty()) {
            core.memory = std::move(g_free_memory.back());
            g_free_memory.pop_back();
        }
    }
    if (core.memory == nullptr) {
        core.memory = std::make_unique<UbMemory>();
        if (!core.memory->ub.Map(kUbBackingBytes) || !core.memory->shadow.Map(kUbBackingBytes)) {
            std::fprintf(stderr, "ascendc-cpu: cannot map UB for core %lld\n", static_cast<long long>(core.index));
            std::abort();
        }
    }
    core.ub = core.memory->ub.Data();
    core.shadow = core.memory->shadow.Data();
    if (core.launch->checks) {
        std::memset(core.ub, kPoisonByte, kUbBytes);  // never-written UB reads as NaN / -1
    }
}

void ReleaseCore(Core& core)
{
    if (core.memory == nullptr) {
        return;
    }
    uint64_t used = core.memory->used;
    for (const UbBuffer& buffer : core.buffers) {
        used = std::max<uint64_t>(used, static_cast<uint64_t>(buffer.start) + buffer.bytes);
    }
    if (core.launch->checks) {
        std::memset(core.shadow, 0, std::min(used, kUbBackingBytes));  // nothing written yet, next launch
    }
    core.memory->used = 0;
    core.ub = nullptr;
    core.shadow = nullptr;
    std::lock_guard<std::mutex> lock(g_memory_mutex);
    g_free_memory.push_back(std::move(core.memory));
}

std::string UbName(const UbRef& ref)
{
    const Core* core = ThisCore();
    if (core == nullptr || ref.buffer < 0 || static_cast<size_t>(ref.buffer) >= core->buffers.size()) {
        return "ub:unbound";
    }
    const UbBuffer& buffer = core->buffers[static_cast<size_t>(ref.buffer)];
    return std::string("ub:") + PositionName(buffer.position) + "#" + std::to_string(ref.buffer);
}

uint8_t* ResolveUb(Core& core, const char* api, const UbRef& ref, uint64_t bytes, uint32_t element_bytes,
                   uint32_t alignment)
{
    if (ref.buffer < 0 || static_cast<size_t>(ref.buffer) >= core.buffers.size()) {
        Report(Check::kInvalidArgument, Severity::kError, api,
               "the LocalTensor is not bound to a UB buffer (default-constructed, or from a failed AllocTensor or "
               "DeQue); the instruction was not executed",
               nullptr);
        return nullptr;
    }
    const UbBuffer& buffer = core.buffers[static_cast<size_t>(ref.buffer)];
    if (buffer.state == BufferState::kReleased) {
        const std::string name = UbName(ref);
        Report(Check::kUseAfterFree, Severity::kError, api,
               "the LocalTensor's buffer was released with its TPipe; the instruction was not executed", name.c_str());
        return nullptr;
    }
    if (buffer.state == BufferState::kFree || ref.generation != buffer.generation) {
        const std::string name = UbName(ref);
        Report(Check::kUseAfterFree, Severity::kError, api,
               "the LocalTensor was freed by FreeTensor" +
                   std::string(buffer.state == BufferState::kFree ? "" : " and its buffer allocated again") +
                   "; the instruction was not executed",
               name.c_str());
        return nullptr;
    }
    if (alignment > 1 && ref.offset % alignment != 0) {
        const std::string name = UbName(ref);
        Report(Check::kUbMisaligned, Severity::kError, api,
               "operand at UB offset " + Hex(ref.offset) + " is not " + std::to_string(alignment) + "-byte aligned",
               name.c_str());
    }
    if (element_bytes > 1 && ref.offset % element_bytes != 0) {
        return nullptr;  // not even element-aligned: the twin cannot compute on it
    }
    const uint64_t end = static_cast<uint64_t>(ref.offset) + bytes;
    const uint64_t buffer_end = static_cast<uint64_t>(buffer.start) + buffer.bytes;
    if (ref.offset < buffer.start || end > buffer_end) {
        const std::string name = UbName(ref);
        Report(Check::kUbOutOfBounds, Severity::kError, api,
               "accesses UB " + RangeText(ref.offset, end) + ", " + std::to_string(end - std::min(end, buffer_end)) +
                   " bytes past the end of its buffer " + RangeText(buffer.start, buffer_end) +
                   "; the instruction was not executed",
               name.c_str());
        return nullptr;
    }
    if (end > kUbBackingBytes) {
        return nullptr;
    }
    return core.ub + ref.offset;
}

// --- TPipe ------------------------------------------------------------------------------------------------

int32_t PipeCreate(void* object)
{
    Core* core = ThisCore();
    if (core == nullptr) {
        return -1;  // reported when the pipe is used
    }
    PipeState pipe;
    pipe.object = object;
    pipe.alive = true;
    core->pipes.push_back(pipe);
    core->current_pipe = static_cast<int32_t>(core->pipes.size() - 1);
    return core->current_pipe;
}

void* CurrentPipe()
{
    Core* core = ThisCore();
    if (core == nullptr || core->current_pipe < 0) {
        return nullptr;
    }
    return core->pipes[static_cast<size_t>(core->current_pipe)].object;
}

void CheckHeldBuffers(Core& core, int32_t pipe)
{
    for (int32_t queue_id : core.pipes[static_cast<size_t>(pipe)].queues) {
        const Queue& queue = core.queues[static_cast<size_t>(queue_id)];
        int held = 0;
        int queued = 0;
        for (int32_t id : queue.buffers) {
            const BufferState state = core.buffers[static_cast<size_t>(id)].state;
            held += state == BufferState::kAllocated || state == BufferState::kDequeued ? 1 : 0;
            queued += state == BufferState::kQueued ? 1 : 0;
        }
        if (held + queued > 0) {
            const UbRef ref{queue.buffers.front(), 0, 0, 0};
            Report(Check::kQueueMisuse, Severity::kError, "TPipe::Destroy",
                   std::to_string(held) + " buffer(s) still allocated and " + std::to_string(queued) +
                       " still queued when the kernel ends (AllocTensor without FreeTensor, EnQue without DeQue)",
                   UbName(ref).c_str());
        }
    }
}

void PipeDestroy(int32_t pipe)
{
    Core* core = ThisCore();
    if (core == nullptr || pipe < 0 || static_cast<size_t>(pipe) >= core->pipes.size() ||
        !core->pipes[static_cast<size_t>(pipe)].alive) {
        return;
    }
    CompleteAll(*core);  // TPipe::Destroy waits for all pipes
    CheckHeldBuffers(*core, pipe);
    PipeState& state = core->pipes[static_cast<size_t>(pipe)];
    for (int32_t id : state.buffers) {
        UbBuffer& buffer = core->buffers[static_cast<size_t>(id)];
        buffer.state = BufferState::kReleased;
        ++buffer.generation;
    }
    state.alive = false;
    core->current_pipe = -1;
    for (size_t i = core->pipes.size(); i-- > 0;) {
        if (core->pipes[i].alive) {
            core->current_pipe = static_cast<int32_t>(i);
            break;
        }
    }
}

int32_t QueueInit(int32_t pipe, AscendC::TPosition src, AscendC::TPosition dst, int32_t depth, uint32_t num,
                  uint32_t len)
{
    constexpr const char* api = "TPipe::InitBuffer";
    Core* core = CoreOrReport(api);
    if (core == nullptr) {
        return -1;
    }
    PipeState* state = LivePipe(*core, pipe, api);
    if (state == nullptr || !CheckArgument(api, "num", num, 1, 255) ||
        !CheckArgument(api, "len", len, 1, kUbBackingBytes)) {
        return -1;
    }
    Queue queue;
    queue.pipe = pipe;
    queue.producer = ProducerOf(src);
    queue.consumer = ConsumerOf(dst);
    queue.depth = depth > 0 ? depth : 1;
    const int32_t queue_id = static_cast<int32_t>(core->queues.size());
    const uint32_t bytes = (len + kBlockBytes - 1) / kBlockBytes * kBlockBytes;
    if (!PlaceBuffers(*core, *state, pipe, num, bytes, src, queue_id, api, queue.buffers)) {
        return -1;
    }
    if (core->queues.empty()) {
        core->queues.reserve(kMaxBuffersReserved);  // a reallocation copies every queue's deque
    }
    core->queues.push_back(std::move(queue));
    state->queues.push_back(queue_id);
    return queue_id;
}

int32_t TBufInit(int32_t pipe, AscendC::TPosition position, uint32_t len)
{
    constexpr const char* api = "TPipe::InitBuffer";
    Core* core = CoreOrReport(api);
    if (core == nullptr) {
        return -1;
    }
    PipeState* state = LivePipe(*core, pipe, api);
    if (state == nullptr || !CheckArgument(api, "len", len, 1, kUbBackingBytes)) {
        return -1;
    }
    std::vector<int32_t> ids;
    const uint32_t bytes = (len + kBlockBytes - 1) / kBlockBytes * kBlockBytes;
    if (!PlaceBuffers(*core, *state, pipe, 1, bytes, position, -1, api, ids)) {
        return -1;
    }
    return ids.front();
}

UbRef QueueAlloc(int32_t queue_id, const char* api)
{
    Core* core = CoreOrReport(api);
    Queue* queue = core != nullptr ? QueueOf(*core, queue_id, api) : nullptr;
    if (queue == nullptr) {
        return UbRef{};
    }
    const size_t n = queue->buffers.size();
    for (size_t k = 0; k < n; ++k) {
        const size_t slot = (queue->next + k) % n;
        const int32_t id = queue->buffers[slot];
        UbBuffer& buffer = core->buffers[static_cast<size_t>(id)];
        if (buffer.state != BufferState::kFree) {
            continue;
        }
        queue->next = (slot + 1) % n;
        buffer.state = BufferState::kAllocated;
        ++buffer.generation;
        if (buffer.free_event_set) {
            WaitOn(*core, queue->producer, buffer.free_event);  // the consumer's reads are done
        }
        return UbRef{id, buffer.generation, buffer.start, buffer.bytes};
    }
    const UbRef first{queue->buffers.front(), 0, 0, 0};
    Report(Check::kQueueMisuse, Severity::kError, api,
           "all " + std::to_string(n) + " buffer(s) of the queue are in use: more AllocTensor than buffers "
           "(FreeTensor missing?); returned an unbound tensor",
           UbName(first).c_str());
    return UbRef{};
}

bool QueueEnQue(int32_t queue_id, const UbRef& ref, const char* api, int src_position)
{
    Core* core = CoreOrReport(api);
    Queue* queue = core != nullptr ? QueueOf(*core, queue_id, api) : nullptr;
    if (queue == nullptr) {
        return false;
    }
    UbBuffer* buffer = QueueBuffer(*core, *queue, ref);
    if (buffer == nullptr) {
        Report(Check::kQueueMisuse, Severity::kError, api, "the tensor was not allocated from this queue",
               UbName(ref).c_str());
        return false;
    }
    if (buffer->state == BufferState::kFree || buffer->state == BufferState::kReleased ||
        ref.generation != buffer->generation) {
        Report(Check::kUseAfterFree, Severity::kError, api, "the tensor was freed before EnQue", UbName(ref).c_str());
        return false;
    }
    if (buffer->state == BufferState::kQueued) {
        Report(Check::kQueueMisuse, Severity::kError, api, "the tensor is already in the queue", UbName(ref).c_str());
        return false;
    }
    if (static_cast<int32_t>(queue->queued.size()) >= queue->depth) {
        Report(Check::kQueueMisuse, Severity::kError, api,
               "the queue already holds " + std::to_string(queue->queued.size()) + " tensor(s), its depth is " +
                   std::to_string(queue->depth),
               UbName(ref).c_str());
    }
    buffer->state = BufferState::kQueued;
    const Pipe producer =
        src_position < 0 ? queue->producer : ProducerOf(static_cast<AscendC::TPosition>(src_position));
    buffer->enque_event = Snapshot(*core, producer);
    queue->queued.push_back(ref.buffer);
    return true;
}

UbRef QueueDeQue(int32_t queue_id, const char* api, int dst_position)
{
    Core* core = CoreOrReport(api);
    Queue* queue = core != nullptr ? QueueOf(*core, queue_id, api) : nullptr;
    if (queue == nullptr) {
        return UbRef{};
    }
    if (queue->queued.empty()) {
        const UbRef first{queue->buffers.front(), 0, 0, 0};
        Report(Check::kQueueMisuse, Severity::kError, api,
               "DeQue of an empty queue (no EnQue before it); returned an unbound tensor", UbName(first).c_str());
        return UbRef{};
    }
    const int32_t id = queue->queued.front();
    queue->queued.pop_front();
    UbBuffer& buffer = core->buffers[static_cast<size_t>(id)];
    buffer.state = BufferState::kDequeued;
    buffer.last_consumer =
        dst_position < 0 ? queue->consumer : ConsumerOf(static_cast<AscendC::TPosition>(dst_position));
    WaitOn(*core, buffer.last_consumer, buffer.enque_event);  // the producer's writes are done
    return UbRef{id, buffer.generation, buffer.start, buffer.bytes};
}

void QueueFree(int32_t queue_id, const UbRef& ref, const char* api)
{
    Core* core = CoreOrReport(api);
    Queue* queue = core != nullptr ? QueueOf(*core, queue_id, api) : nullptr;
    if (queue == nullptr) {
        return;
    }
    UbBuffer* buffer = QueueBuffer(*core, *queue, ref);
    if (buffer == nullptr) {
        Report(Check::kQueueMisuse, Severity::kError, api, "the tensor does not belong to this queue",
               UbName(ref).c_str());
        return;
    }
    if (buffer->state == BufferState::kFree || buffer->state == BufferState::kReleased) {
        Report(Check::kQueueMisuse, Severity::kError, api, "double FreeTensor: the tensor was already freed",
               UbName(ref).c_str());
        return;
    }
    if (ref.generation != buffer->generation) {
        Report(Check::kQueueMisuse, Severity::kError, api,
               "double FreeTensor: the tensor was freed and its buffer allocated again", UbName(ref).c_str());
        return;
    }
    if (buffer->state == BufferState::kQueued) {
        Report(Check::kQueueMisuse, Severity::kError, api, "FreeTensor of a tensor still in the queue (no DeQue)",
               UbName(ref).c_str());
        queue->queued.erase(std::find(queue->queued.begin(), queue->queued.end(), ref.buffer));
    }
    const Pipe consumer = buffer->state == BufferState::kDequeued ? buffer->last_consumer : queue->consumer;
    buffer->state = BufferState::kFree;
    ++buffer->generation;
    buffer->free_event = Snapshot(*core, consumer);
    buffer->free_event_set = true;
}

bool QueueHasTensor(int32_t queue_id)
{
    Core* core = ThisCore();
    return core != nullptr && queue_id >= 0 && static_cast<size_t>(queue_id) < core->queues.size() &&
           !core->queues[static_cast<size_t>(queue_id)].queued.empty();
}

int32_t QueueTensorCount(int32_t queue_id)
{
    Core* core = ThisCore();
    if (core == nullptr || queue_id < 0 || static_cast<size_t>(queue_id) >= core->queues.size()) {
        return 0;
    }
    return static_cast<int32_t>(core->queues[static_cast<size_t>(queue_id)].queued.size());
}

bool QueueHasIdleBuffer(int32_t queue_id)
{
    Core* core = ThisCore();
    if (core == nullptr || queue_id < 0 || static_cast<size_t>(queue_id) >= core->queues.size()) {
        return false;
    }
    for (int32_t id : core->queues[static_cast<size_t>(queue_id)].buffers) {
        if (core->buffers[static_cast<size_t>(id)].state == BufferState::kFree) {
            return true;
        }
    }
    return false;
}

UbRef TBufGet(int32_t buffer_id, uint32_t bytes, uint32_t byte_offset, const char* api)
{
    Core* core = CoreOrReport(api);
    if (core == nullptr) {
        return UbRef{};
    }
    if (buffer_id < 0 || static_cast<size_t>(buffer_id) >= core->buffers.size()) {
        Report(Check::kInvalidArgument, Severity::kError, api, "the TBuf was never given memory by TPipe::InitBuffer",
               nullptr);
        return UbRef{};
    }
    const UbBuffer& buffer = core->buffers[static_cast<size_t>(buffer_id)];
    const UbRef whole{buffer_id, buffer.generation, buffer.start, buffer.bytes};
    if (buffer.state == BufferState::kReleased) {
        Report(Check::kUseAfterFree, Severity::kError, api, "the TBuf's TPipe was destroyed", UbName(whole).c_str());
        return UbRef{};
    }
    const uint64_t available = byte_offset <= buffer.bytes ? buffer.bytes - byte_offset : 0;
    const uint64_t wanted = bytes == UINT32_MAX ? available : bytes;
    if (byte_offset > buffer.bytes || wanted > available) {
        Report(Check::kUbOutOfBounds, Severity::kError, api,
               "asks for " + std::to_string(wanted) + " bytes at offset " + std::to_string(byte_offset) +
                   " of a TBuf of " + std::to_string(buffer.bytes) + " bytes",
               UbName(whole).c_str());
    }
    return UbRef{buffer_id, buffer.generation, buffer.start + byte_offset, static_cast<uint32_t>(wanted)};
}

uint32_t TBufLength(int32_t buffer_id)
{
    Core* core = ThisCore();
    if (core == nullptr || buffer_id < 0 || static_cast<size_t>(buffer_id) >= core->buffers.size()) {
        return 0;
    }
    return core->buffers[static_cast<size_t>(buffer_id)].bytes;
}

uint8_t* UbAddress(const UbRef& ref)
{
    Core* core = ThisCore();
    if (core == nullptr || ref.buffer < 0 || static_cast<uint64_t>(ref.offset) >= kUbBackingBytes) {
        return nullptr;
    }
    return core->ub + ref.offset;
}

UbRef UbRefAt(const char* api, uint64_t address, uint32_t bytes)
{
    Core* core = CoreOrReport(api);
    if (core == nullptr) {
        return UbRef{};
    }
    const uint64_t base = reinterpret_cast<uint64_t>(core->ub);
    if (address >= base && address < base + kUbBytes) {
        const uint64_t offset = address - base;
        for (size_t i = 0; i < core->buffers.size(); ++i) {
            const UbBuffer& buffer = core->buffers[i];
            if (buffer.state != BufferState::kFree && buffer.state != BufferState::kReleased &&
                offset >= buffer.start && offset < static_cast<uint64_t>(buffer.start) + buffer.bytes) {
                return UbRef{static_cast<int32_t>(i), buffer.generation, static_cast<uint32_t>(offset), bytes};
            }
        }
    }
    Report(Check::kInvalidArgument, Severity::kError, api,
           "address " + Hex(address) + " is not inside a UB buffer of this core (an address list entry must come "
           "from GetPhyAddr of a live LocalTensor); the instruction was not executed",
           nullptr);
    return UbRef{};
}

// --- scalar access ----------------------------------------------------------------------------------------

void UbScalarRead(const char* api, const UbRef& ref, uint64_t byte_offset, void* out, uint32_t bytes)
{
    std::memset(out, kPoisonByte, bytes);
    Core* core = CoreOrReport(api);
    if (core == nullptr) {
        return;
    }
    UbRef at = ref;
    at.offset = static_cast<uint32_t>(std::min<uint64_t>(ref.offset + byte_offset, UINT32_MAX));
    const uint8_t* p = ResolveUb(*core, api, at, bytes, bytes, bytes);
    if (p == nullptr) {
        return;
    }
    ScalarWaitUb(*core, Range{at.offset, at.offset + static_cast<uint64_t>(bytes)}, false);
    std::memcpy(out, p, bytes);
}

void UbScalarWrite(const char* api, const UbRef& ref, uint64_t byte_offset, const void* in, uint32_t bytes)
{
    Core* core = CoreOrReport(api);
    if (core == nullptr) {
        return;
    }
    UbRef at = ref;
    at.offset = static_cast<uint32_t>(std::min<uint64_t>(ref.offset + byte_offset, UINT32_MAX));
    uint8_t* p = ResolveUb(*core, api, at, bytes, bytes, bytes);
    if (p == nullptr) {
        return;
    }
    ScalarWaitUb(*core, Range{at.offset, at.offset + static_cast<uint64_t>(bytes)}, true);
    std::memcpy(p, in, bytes);
    if (core->launch->checks) {
        ShadowFill(core->shadow + at.offset, bytes, true);
    }
}

void* UbScalarReference(const char* api, const UbRef& ref, uint64_t byte_offset, uint32_t bytes)
{
    Core* core = CoreOrReport(api);
    if (core == nullptr) {
        static thread_local uint8_t scratch[64];
        return scratch;
    }
    UbRef at = ref;
    at.offset = static_cast<uint32_t>(std::min<uint64_t>(ref.offset + byte_offset, UINT32_MAX));
    uint8_t* p = ResolveUb(*core, api, at, bytes, bytes, bytes);
    if (p == nullptr) {
        std::memset(core->scratch, kPoisonByte, sizeof(core->scratch));
        return core->scratch;
    }
    ScalarWaitUb(*core, Range{at.offset, at.offset + static_cast<uint64_t>(bytes)}, true);
    if (core->launch->checks) {
        ShadowFill(core->shadow + at.offset, bytes, true);  // the reference may be written through
    }
    return p;
}

// --- vector instructions ----------------------------------------------------------------------------------

VectorOp::VectorOp(const char* api) : api_(api), tracking_(false)
{
    Core* core = CoreOrReport(api);
    usable_ = core != nullptr;
    tracking_ = core != nullptr && core->launch->checks;
}

uint8_t* VectorOp::Add(const UbRef& ref, uint64_t bytes, uint32_t element_bytes, uint32_t required_alignment,
                       bool write)
{
    Core* core = ThisCore();
    if (core == nullptr) {
        return nullptr;
    }
    uint8_t* p = ResolveUb(*core, api_, ref, bytes, element_bytes, required_alignment);
    if (p == nullptr) {
        usable_ = false;
        return nullptr;
    }
    if (count_ < kMaxOperands) {
        operands_[count_++] = Operand{ref, bytes, element_bytes, write};
    }
    return p;
}

uint8_t* VectorOp::Read(const UbRef& ref, uint64_t bytes, uint32_t element_bytes, uint32_t required_alignment)
{
    return Add(ref, bytes, element_bytes, required_alignment, false);
}

uint8_t* VectorOp::Write(const UbRef& ref, uint64_t bytes, uint32_t element_bytes, uint32_t required_alignment)
{
    return Add(ref, bytes, element_bytes, required_alignment, true);
}

uint8_t* VectorOp::Shadow(const uint8_t* data) const
{
    Core* core = ThisCore();
    if (core == nullptr || data == nullptr) {
        return nullptr;
    }
    return core->shadow + UbOffset(*core, data);
}

bool VectorOp::Issue()
{
    if (!usable_) {
        return false;
    }
    Core& core = *ThisCore();
    if (!allow_overlap_) {
        for (int w = 0; w < count_; ++w) {
            if (!operands_[w].write) {
                continue;
            }
            const Range dst{operands_[w].ref.offset, operands_[w].ref.offset + operands_[w].bytes};
            for (int r = 0; r < count_; ++r) {
                const Range src{operands_[r].ref.offset, operands_[r].ref.offset + operands_[r].bytes};
                const bool same = dst.begin == src.begin && dst.end == src.end;
                // The documented rule (operands of one repeat overlap completely or not at all) is
                // checked where source and destination elements have the same size; where they
                // differ (Cast, Compare, Select's mask) a narrowing in place is common and allowed.
                const bool comparable = operands_[r].element_bytes == operands_[w].element_bytes;
                if (r != w && comparable && !same && dst.Overlaps(src)) {
                    Report(Check::kInvalidArgument, Severity::kError, api_,
                           "destination UB " + RangeText(dst.begin, dst.end) + " partially overlaps source " +
                               RangeText(src.begin, src.end) + " (operands may only overlap completely)",
                           UbName(operands_[w].ref).c_str());
                }
            }
        }
    }
    core.issued[kPipeV] += 1;
    InheritScalar(core, kPipeV);
    if (tracking_) {
        VectorAccess access;
        access.seq = core.issued[kPipeV];
        access.api = api_;
        for (int i = 0; i < count_; ++i) {
            const Range range{operands_[i].ref.offset, operands_[i].ref.offset + operands_[i].bytes};
            if (operands_[i].write) {
                access.write = range;
            } else if (access.read_count < kMaxOperands) {
                access.reads[static_cast<size_t>(access.read_count++)] = range;
            }
        }
        CheckVectorAgainstDma(core, access);
        LogVector(core, access);
    }
    return true;
}

// --- the vector mask registers -------------------------------------------------------------------------------

void SetVectorMaskBits(uint64_t high, uint64_t low)
{
    Core* core = CoreOrReport("SetVectorMask");
    if (core != nullptr) {
        core->mask_high = high;
        core->mask_low = low;
    }
}

void SetVectorMaskLength(uint64_t elements, uint32_t element_bytes)
{
    Core* core = CoreOrReport("SetVectorMask");
    if (core == nullptr) {
        return;
    }
    if (core->mask_counter) {
        core->mask_high = 0;
        core->mask_low = elements;
        return;
    }
    const uint64_t per_repeat = kRepeatBytes / element_bytes;
    const uint64_t m = std::min(elements, per_repeat);
    core->mask_low = m >= 64 ? ~0ull : ((1ull << m) - 1);
    core->mask_high = m <= 64 ? 0 : (m >= 128 ? ~0ull : ((1ull << (m - 64)) - 1));
}

void SetMaskCounterMode(bool counter)
{
    Core* core = CoreOrReport(counter ? "SetMaskCount" : "SetMaskNorm");
    if (core != nullptr) {
        core->mask_counter = counter;
    }
}

void VectorMaskState(bool* counter, uint64_t* high, uint64_t* low)
{
    Core* core = ThisCore();
    *counter = core != nullptr && core->mask_counter;
    *high = core != nullptr ? core->mask_high : ~0ull;
    *low = core != nullptr ? core->mask_low : ~0ull;
}

// --- the initialisation shadow ------------------------------------------------------------------------------

void ShadowElementwise(uint8_t* dst, uint32_t dst_element_bytes, const uint8_t* const* sources,
                       const uint32_t* source_element_bytes, int source_count, uint64_t count)
{
    bool same_size = true;
    for (int s = 0; s < source_count; ++s) {
        same_size = same_size && source_element_bytes[s] == dst_element_bytes;
    }
    if (same_size) {
        ShadowSameSize(dst, sources, source_count, count * dst_element_bytes);
        return;
    }
    if (source_count == 1) {
        const uint32_t key = dst_element_bytes * 16 + source_element_bytes[0];
        switch (key) {
            case 4 * 16 + 2: ShadowResize<4, 2>(dst, sources[0], count); return;
            case 2 * 16 + 4: ShadowResize<2, 4>(dst, sources[0], count); return;
            case 2 * 16 + 1: ShadowResize<2, 1>(dst, sources[0], count); return;
            case 1 * 16 + 2: ShadowResize<1, 2>(dst, sources[0], count); return;
            case 8 * 16 + 4: ShadowResize<8, 4>(dst, sources[0], count); return;
            case 4 * 16 + 8: ShadowResize<4, 8>(dst, sources[0], count); return;
            default: break;
        }
    }
    for (uint64_t i = 0; i < count; ++i) {
        bool written = true;
        for (int s = 0; s < source_count; ++s) {
            const uint32_t e = source_element_bytes[s];
            for (uint32_t b = 0; b < e; ++b) {
                written = written && sources[s][i * e + b] != 0;
            }
        }
        std::memset(dst + i * dst_element_bytes, written ? 0xff : 0, dst_element_bytes);
    }
}

void ShadowPackBits(uint8_t* dst, const uint8_t* const* sources, int source_count, uint32_t element_bytes,
                    uint64_t count)
{
    for (uint64_t byte = 0; byte < count / 8; ++byte) {
        bool written = true;
        for (int s = 0; s < source_count; ++s) {
            written = written && ShadowAll(sources[s] + byte * 8 * element_bytes, 8ull * element_bytes);
        }
        dst[byte] = written ? 0xff : 0;
    }
}

void ShadowSelect(uint8_t* dst, uint32_t element_bytes, const uint8_t* mask, const uint8_t* src0,
                  const uint8_t* src1, uint64_t period, uint64_t count)
{
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t bit = period != 0 ? i % period : i;
        const bool written = mask[bit / 8] != 0 && ShadowAll(src0 + i * element_bytes, element_bytes) &&
                             (src1 == nullptr || ShadowAll(src1 + i * element_bytes, element_bytes));
        std::memset(dst + i * element_bytes, written ? 0xff : 0, element_bytes);
    }
}

void ShadowFill(uint8_t* shadow, uint64_t bytes, bool written)
{
    if (shadow != nullptr) {
        std::memset(shadow, written ? 0xff : 0, bytes);
    }
}

bool ShadowAll(const uint8_t* shadow, uint64_t bytes)
{
    return shadow == nullptr || bytes == 0 || std::memchr(shadow, 0, bytes) == nullptr;
}

}  // namespace rt
}  // namespace ascendc_cpu
