// Global memory: GmAlloc buffers, scalar GM access, tiling data, and the record of which core
// read or wrote which GM bytes between SyncAlls (gm-race).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "internal.h"

namespace ascendc_cpu {
namespace rt {
namespace {

/// Addresses up to this far past a buffer are attributed to it (an overrun), not to "no buffer".
constexpr uint64_t kAttributionReach = 1ull << 30;

std::mutex g_gm_mutex;
std::map<uintptr_t, std::unique_ptr<GmBuffer>> g_gm;  // by base address
uint64_t g_next_gm_id = 1;

uint64_t RoundUp(uint64_t value, uint64_t unit)
{
    return (value + unit - 1) / unit * unit;
}

/// The GM bytes of a scalar access, checked; false (after reporting) when they are not readable.
bool ScalarRange(Core& core, const char* api, const GmRef& ref, uint64_t byte_offset, uint32_t bytes, bool write,
                 Range* range)
{
    const auto name = [&] { return GmNameOf(core.launch, ref.buffer); };  // only when reporting
    if (ref.buffer == nullptr || ref.address < ref.buffer->base) {
        ReportFor(&core, Check::kGmOutOfBounds, Severity::kError, api,
                  std::string("the address is not inside any GmAlloc buffer; ") +
                      (write ? "the write was dropped" : "the read gave poison"),
                  name());
        return false;
    }
    const uint64_t begin = static_cast<uint64_t>(ref.address - ref.buffer->base) + byte_offset;
    const uint64_t end = begin + bytes;
    if (end <= ref.buffer->size) {
        *range = Range{begin, end};
        return true;
    }
    const bool tolerated = end <= ref.buffer->tolerated;
    ReportFor(&core, Check::kGmOutOfBounds, tolerated ? Severity::kWarning : Severity::kError, api,
              std::string(write ? "writes" : "reads") + " GM bytes " + RangeText(begin, end) + " of a " +
                  std::to_string(ref.buffer->size) + "-byte buffer" +
                  (tolerated ? ", inside the 32-byte rounding plus 32 bytes aclrtMalloc adds"
                             : (write ? "; the write was dropped" : "; the read gave poison")),
              name());
    if (!tolerated) {
        return false;
    }
    *range = Range{begin, end};
    return true;
}

struct Interval {
    uint64_t begin;
    uint64_t end;
    int64_t core;
};

std::vector<Interval> Collect(const std::vector<std::pair<int64_t, const IntervalSet*>>& sets)
{
    std::vector<Interval> all;
    for (const auto& entry : sets) {
        for (const auto& interval : entry.second->Intervals()) {
            all.push_back(Interval{interval.first, interval.second, entry.first});
        }
    }
    std::sort(all.begin(), all.end(), [](const Interval& a, const Interval& b) {
        return std::tie(a.begin, a.core) < std::tie(b.begin, b.core);
    });
    return all;
}

bool FindReadWriteOverlap(const std::vector<Interval>& reads, const std::vector<Interval>& writes, Interval* read,
                          Interval* write)
{
    for (const Interval& r : reads) {
        const auto stop = std::lower_bound(writes.begin(), writes.end(), r.end,
                                           [](const Interval& w, uint64_t value) { return w.begin < value; });
        for (auto w = writes.begin(); w != stop; ++w) {
            if (w->end > r.begin && w->core != r.core) {
                *read = r;
                *write = *w;
                return true;
            }
        }
    }
    return false;
}

}  // namespace

void IntervalSet::Add(uint64_t begin, uint64_t end)
{
    if (begin >= end) {
        return;
    }
    auto it = intervals_.upper_bound(begin);
    if (it != intervals_.begin()) {
        auto previous = std::prev(it);
        if (previous->second >= begin) {
            begin = previous->first;
            end = std::max(end, previous->second);
            it = intervals_.erase(previous);
        }
    }
    while (it != intervals_.end() && it->first <= end) {
        end = std::max(end, it->second);
        it = intervals_.erase(it);
    }
    intervals_.emplace(begin, end);
}

void* GmAllocate(size_t bytes)
{
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    const uint64_t tolerated = RoundUp(bytes, kBlockBytes) + kAclrtMallocExtraBytes;
    const uint64_t mapped = RoundUp(tolerated, page);
    void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        std::fprintf(stderr, "ascendc-cpu: GmAlloc(%zu): the system refused the mapping\n", bytes);
        return nullptr;
    }
    auto buffer = std::make_unique<GmBuffer>();
    buffer->base = static_cast<uint8_t*>(p);
    buffer->size = bytes;
    buffer->tolerated = tolerated;
    buffer->mapped = mapped;
    std::lock_guard<std::mutex> lock(g_gm_mutex);
    buffer->id = g_next_gm_id++;
    g_gm.emplace(reinterpret_cast<uintptr_t>(p), std::move(buffer));
    return p;
}

void GmRelease(void* address)
{
    std::unique_ptr<GmBuffer> buffer;
    {
        std::lock_guard<std::mutex> lock(g_gm_mutex);
        const auto found = g_gm.find(reinterpret_cast<uintptr_t>(address));
        if (found != g_gm.end()) {
            buffer = std::move(found->second);
            g_gm.erase(found);
        }
    }
    if (buffer == nullptr) {
        if (address != nullptr) {
            ReportFor(ThisCore(), Check::kInvalidArgument, Severity::kError, "GmFree",
                      "the pointer " + Hex(reinterpret_cast<uintptr_t>(address)) + " was not returned by GmAlloc",
                      std::string());
        }
        return;
    }
    munmap(buffer->base, buffer->mapped);
}

const GmBuffer* FindGm(const void* address)
{
    const uintptr_t a = reinterpret_cast<uintptr_t>(address);
    std::lock_guard<std::mutex> lock(g_gm_mutex);
    auto it = g_gm.upper_bound(a);
    if (it == g_gm.begin()) {
        return nullptr;
    }
    --it;
    const GmBuffer* buffer = it->second.get();
    return a - it->first <= buffer->size + kAttributionReach ? buffer : nullptr;
}

const GmBuffer* FindGmStrict(const void* address)
{
    const GmBuffer* buffer = FindGm(address);
    if (buffer == nullptr) {
        return nullptr;
    }
    const uint8_t* p = static_cast<const uint8_t*>(address);
    return p <= buffer->base + buffer->tolerated ? buffer : nullptr;
}

std::string GmNameOf(const LaunchState* launch, const GmBuffer* buffer)
{
    if (buffer == nullptr) {
        return "no GmAlloc buffer";
    }
    if (launch != nullptr) {
        const auto found = launch->names.find(buffer);
        if (found != launch->names.end()) {
            return found->second;
        }
    }
    return "gm@" + Hex(reinterpret_cast<uintptr_t>(buffer->base));
}

std::string GmName(const GmBuffer* buffer)
{
    const Core* core = ThisCore();
    return GmNameOf(core != nullptr ? core->launch : nullptr, buffer);
}

void GmScalarRead(const char* api, const GmRef& ref, uint64_t byte_offset, void* out, uint32_t bytes)
{
    std::memset(out, kPoisonByte, bytes);
    Core* core = CoreOrReport(api);
    Range range;
    if (core == nullptr || !ScalarRange(*core, api, ref, byte_offset, bytes, false, &range)) {
        return;
    }
    ScalarWaitGm(*core, ref.buffer, range, false);
    std::memcpy(out, ref.buffer->base + range.begin, bytes);
    if (core->launch->checks) {
        RecordGm(*core, ref.buffer, range, false, false);
    }
}

void GmScalarWrite(const char* api, const GmRef& ref, uint64_t byte_offset, const void* in, uint32_t bytes)
{
    Core* core = CoreOrReport(api);
    Range range;
    if (core == nullptr || !ScalarRange(*core, api, ref, byte_offset, bytes, true, &range)) {
        return;
    }
    ScalarWaitGm(*core, ref.buffer, range, true);
    std::memcpy(ref.buffer->base + range.begin, in, bytes);
    if (core->launch->checks) {
        RecordGm(*core, ref.buffer, range, true, false);
    }
}

void* GmScalarReference(const char* api, const GmRef& ref, uint64_t byte_offset, uint32_t bytes)
{
    Core* core = CoreOrReport(api);
    Range range;
    if (core == nullptr || !ScalarRange(*core, api, ref, byte_offset, bytes, true, &range)) {
        static thread_local uint8_t scratch[64];
        uint8_t* slot = core != nullptr ? core->scratch : scratch;
        std::memset(slot, kPoisonByte, 64);
        return slot;
    }
    ScalarWaitGm(*core, ref.buffer, range, true);
    if (core->launch->checks) {
        RecordGm(*core, ref.buffer, range, true, false);  // the reference may be written through
    }
    return ref.buffer->base + range.begin;
}

void GmFill(const char* api, const GmRef& ref, uint64_t bytes, const void* element, uint32_t element_bytes)
{
    Core* core = CoreOrReport(api);
    Range range;
    if (core == nullptr || bytes == 0 ||
        !ScalarRange(*core, api, ref, 0, static_cast<uint32_t>(std::min<uint64_t>(bytes, UINT32_MAX)), true, &range)) {
        return;
    }
    ScalarWaitGm(*core, ref.buffer, range, true);
    uint8_t* p = ref.buffer->base + range.begin;
    for (uint64_t i = 0; i < range.end - range.begin; ++i) {
        p[i] = static_cast<const uint8_t*>(element)[i % element_bytes];
    }
    if (core->launch->checks) {
        RecordGm(*core, ref.buffer, range, true, false);
    }
}

void LoadTiling(void* out, size_t bytes, const void* tiling, const char* api)
{
    std::memset(out, kPoisonByte, bytes);
    Core* core = CoreOrReport(api);
    const GmBuffer* buffer = FindGmStrict(tiling);
    if (buffer == nullptr) {
        ReportFor(core, Check::kGmOutOfBounds, Severity::kError, api,
                  "the tiling pointer is not memory from GmAlloc; the tiling data read as poison", std::string());
        return;
    }
    const uint64_t offset = static_cast<uint64_t>(static_cast<const uint8_t*>(tiling) - buffer->base);
    const uint64_t inside = offset < buffer->size ? std::min<uint64_t>(bytes, buffer->size - offset) : 0;
    if (inside < bytes) {
        ReportFor(core, Check::kGmOutOfBounds, Severity::kError, api,
                  "the tiling struct has " + std::to_string(bytes) + " bytes, the buffer holds " +
                      std::to_string(inside) + " from there; the rest read as poison",
                  GmNameOf(core != nullptr ? core->launch : nullptr, buffer));
    }
    std::memcpy(out, buffer->base + offset, inside);
}

void RecordGm(Core& core, const GmBuffer* gm, const Range& bytes, bool write, bool atomic)
{
    std::vector<GmAccess>& epochs = core.gm_access[gm];
    if (epochs.size() <= core.epoch) {
        epochs.resize(core.epoch + 1);
    }
    GmAccess& access = epochs[core.epoch];
    (write ? (atomic ? access.atomic_writes : access.writes) : access.reads).Add(bytes.begin, bytes.end);
}

void CheckGmRaces(LaunchState& launch)
{
    // buffer -> epoch -> (core, access)
    std::map<const GmBuffer*, std::map<uint32_t, std::vector<std::pair<int64_t, const GmAccess*>>>> by_buffer;
    for (const auto& core : launch.cores) {
        for (const auto& entry : core->gm_access) {
            for (uint32_t epoch = 0; epoch < entry.second.size(); ++epoch) {
                by_buffer[entry.first][epoch].emplace_back(core->index, &entry.second[epoch]);
            }
        }
    }
    for (const auto& buffer : by_buffer) {
        const std::string name = GmNameOf(&launch, buffer.first);
        for (const auto& epoch : buffer.second) {
            std::vector<std::pair<int64_t, const IntervalSet*>> plain;
            std::vector<std::pair<int64_t, const IntervalSet*>> all_writes;
            std::vector<std::pair<int64_t, const IntervalSet*>> reads;
            for (const auto& access : epoch.second) {
                plain.emplace_back(access.first, &access.second->writes);
                all_writes.emplace_back(access.first, &access.second->writes);
                all_writes.emplace_back(access.first, &access.second->atomic_writes);
                reads.emplace_back(access.first, &access.second->reads);
            }
            const std::vector<Interval> writes = Collect(all_writes);
            const std::vector<Interval> plain_writes = Collect(plain);
            Interval a{};
            Interval b{};
            const std::string between = epoch.first == 0 ? "before the first SyncAll"
                                                         : "after SyncAll #" + std::to_string(epoch.first);
            // A plain write against any other core's write (plain or atomic).
            bool race = false;
            for (const Interval& w : plain_writes) {
                for (const Interval& other : writes) {
                    if (other.core != w.core && other.begin < w.end && w.begin < other.end) {
                        a = w;
                        b = other;
                        race = true;
                        break;
                    }
                    if (other.begin >= w.end) {
                        break;
                    }
                }
                if (race) {
                    break;
                }
            }
            if (race) {
                const int64_t reporter = std::max(a.core, b.core);
                ReportFor(launch.cores[static_cast<size_t>(reporter)].get(), Check::kGmRace, Severity::kError,
                          "DataCopy",
                          "cores " + std::to_string(std::min(a.core, b.core)) + " and " +
                              std::to_string(reporter) + " both write GM bytes " +
                              RangeText(std::max(a.begin, b.begin), std::min(a.end, b.end)) + " " + between +
                              ", without SetAtomicAdd or a SyncAll between them",
                          name);
            }
            const std::vector<Interval> read_list = Collect(reads);
            if (FindReadWriteOverlap(read_list, writes, &a, &b)) {
                ReportFor(launch.cores[static_cast<size_t>(a.core)].get(), Check::kGmRace, Severity::kError,
                          "DataCopy",
                          "core " + std::to_string(a.core) + " reads GM bytes " +
                              RangeText(std::max(a.begin, b.begin), std::min(a.end, b.end)) + " that core " +
                              std::to_string(b.core) + " writes in the same launch " + between +
                              ", without a SyncAll between them",
                          name);
            }
        }
    }
}

}  // namespace rt
}  // namespace ascendc_cpu
