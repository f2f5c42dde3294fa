/*
 * memory.cpp: device memory and its allocation table. Every buffer of the
 * simulated device (and pinned host memory) is mapped here, placed against a
 * guard page with canaries around it; its shadow says which bytes kernels may
 * touch and which have been written. Freed buffers are remembered (which
 * cudaFree freed them) while their addresses are not reused.
 */
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>

#include "../internal.h"

namespace cudasim {
namespace internal {

/* Device buffers (cudaMalloc, cudaMallocManaged) live in one region of
 * address space reserved at the first allocation. A buffer is
 * [front canaries][data][tail canaries][guard page], its data 256-byte
 * aligned as CUDA's are, and ending against the guard page when its size is a
 * multiple of 256. Addresses are not reused while the region has room: a
 * freed buffer's pages stay inaccessible, and the simulator remembers which
 * cudaFree freed it. One shadow byte per 4 bytes of the region says which
 * bytes a kernel may touch and which have been written (SH_*): kernels'
 * accesses are checked against it. Pinned host memory (cudaMallocHost) is
 * mapped apart, ending against its guard page. */
std::map<uintptr_t, Alloc> g_allocs; /* by start address */
unsigned long long g_alloc_serial = 0; /* allocations so far (Alloc::serial) */
size_t g_in_use = 0;
size_t g_page = 4096;

/* The region and its shadow. */
size_t g_region_bytes = 0;
uint8_t *g_shadow = nullptr;
uintptr_t g_rg_lo = 0, g_rg_span = 0; /* [g_rg_lo, g_rg_lo + g_rg_span): the region */

namespace {

std::map<uintptr_t, Freed> g_freed;  /* freed device buffers, while their addresses are unused */
std::vector<uintptr_t> g_freed_order; /* oldest first, to forget the oldest beyond kFreedKept */
const size_t kFreedKept = 1 << 16;
const unsigned char kCanary = 0xcd;
const size_t kDeviceAlign = 256; /* cudaMalloc's alignment in CUDA */
char *g_region = nullptr;
size_t g_region_used = 0;

bool region_init()
{
    if (g_region) return true;
    /* A terabyte of address space (none of it memory until used), or, in a
     * process whose address space is limited (the grader's runs), what fits
     * in half the limit: the region and its shadow, a quarter of its size. */
    size_t cap = (size_t)1 << 40;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 2 < cap)
        cap = (size_t)rl.rlim_cur / 2;
    for (int shift = 40; shift >= 24; shift--) {
        size_t bytes = (size_t)1 << shift;
        if (bytes > cap) continue;
        void *r = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (r == MAP_FAILED) continue;
        void *s = mmap(nullptr, bytes / 4, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (s == MAP_FAILED) {
            munmap(r, bytes);
            continue;
        }
        g_region = (char *)r;
        g_region_bytes = bytes;
        g_shadow = (uint8_t *)s;
        g_rg_lo = (uintptr_t)r;
        g_rg_span = bytes;
        return true;
    }
    return false;
}

/* Set the shadow of [a, a + n) (a granule-aligned) to v, giving whole pages
 * of shadow back to the system when v is 0. */
void shadow_fill(uintptr_t a, size_t n, uint8_t v)
{
    uint8_t *s = shadow_of(a);
    size_t count = (n + 3) / 4;
    if (v == 0 && count > 4 * g_page) {
        uintptr_t lo = ((uintptr_t)s + g_page - 1) & ~(g_page - 1);
        uintptr_t hi = ((uintptr_t)(s + count)) & ~(g_page - 1);
        if (hi > lo) {
            memset(s, 0, lo - (uintptr_t)s);
            madvise((void *)lo, hi - lo, MADV_DONTNEED);
            memset((void *)hi, 0, (uintptr_t)(s + count) - hi);
            return;
        }
    }
    memset(s, v, count);
}

/* A new buffer's shadow: its bytes addressable, written or not. */
void shadow_new_buffer(uintptr_t start, size_t size, bool written)
{
    uint8_t extra = written ? SH_INIT : 0;
    memset(shadow_of(start), SH_FULL | extra, size / 4);
    if (size % 4) *shadow_of(start + size / 4 * 4) = (uint8_t)(SH_ADDR | extra | (size % 4));
}

} // namespace

/* A device operation wrote [p, p + n) (a copy, a memset, cuBLAS). */
void mark_written(const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;
    if (!n || !in_region(a)) return;
    uintptr_t g0 = a & ~(uintptr_t)3, g1 = (a + n + 3) & ~(uintptr_t)3; /* granules touched */
    uint8_t *s = shadow_of(g0), *e = shadow_of(g1);
    uint8_t *full0 = s + 1, *full1 = e - 1; /* those in the middle are whole buffer granules */
    if (full1 > full0) memset(full0, SH_DONE, (size_t)(full1 - full0));
    else full0 = full1 = e;
    for (uint8_t *q = s; q < e; q++)
        if ((q < full0 || q >= full1) && (*q & SH_ADDR)) *q |= SH_INIT;
}

namespace {

/* Take map_bytes of the region: after the last buffer while there is room,
 * then in the first gap between live buffers (freed addresses are reused:
 * what was remembered of them is forgotten). */
char *region_take(size_t bytes)
{
    if (g_region_used + bytes <= g_region_bytes) {
        char *p = g_region + g_region_used;
        g_region_used += bytes;
        return p;
    }
    uintptr_t at = (uintptr_t)g_region, end = (uintptr_t)g_region + g_region_bytes;
    for (auto &kv : g_allocs) {
        uintptr_t lo = (uintptr_t)kv.second.map;
        if (lo < at || lo >= end) {
            if (lo + kv.second.map_bytes > at && lo < end) at = lo + kv.second.map_bytes;
            continue;
        }
        if (lo >= at + bytes) break;
        at = lo + kv.second.map_bytes;
    }
    if (at + bytes > end) return nullptr;
    for (auto it = g_freed.begin(); it != g_freed.end();) {
        uintptr_t lo = (uintptr_t)it->second.map;
        if (lo < at + bytes && lo + it->second.map_bytes > at) it = g_freed.erase(it);
        else ++it;
    }
    return (char *)at;
}

} // namespace

/* The allocation that contains [p, p + n), or NULL. */
const Alloc *find_alloc(const void *p, uintptr_t *start)
{
    uintptr_t a = (uintptr_t)p;
    auto it = g_allocs.upper_bound(a);
    if (it == g_allocs.begin()) return nullptr;
    --it;
    if (a >= it->first && a < it->first + (it->second.size ? it->second.size : 1)) {
        if (start) *start = it->first;
        return &it->second;
    }
    return nullptr;
}

/* The freed buffer whose mapping holds address a (NULL if none, or if its
 * addresses were reused). */
const Freed *find_freed(uintptr_t a, uintptr_t *start)
{
    if (!in_region(a)) return nullptr;
    auto it = g_freed.upper_bound(a);
    for (int k = 0; k < 2; k++) {
        if (it != g_freed.end()) {
            uintptr_t lo = (uintptr_t)it->second.map;
            if (a >= lo && a < lo + it->second.map_bytes) {
                if (start) *start = it->first;
                return &it->second;
            }
        }
        if (it == g_freed.begin()) break;
        --it;
    }
    return nullptr;
}

/* The allocation whose mapping (slack, data or guard page) holds address a,
 * or NULL; for the fault handler, so it only reads. */
Alloc *mapping_of(uintptr_t a, uintptr_t *start)
{
    auto it = g_allocs.upper_bound(a); /* the first buffer that starts after a */
    for (int k = 0; k < 2; k++) {      /* a may be in its slack, or in the one before */
        if (it != g_allocs.end()) {
            uintptr_t lo = (uintptr_t)it->second.map, hi = lo + it->second.map_bytes;
            if (a >= lo && a < hi) {
                *start = it->first;
                return &it->second;
            }
        }
        if (it == g_allocs.begin()) break;
        --it;
    }
    return nullptr;
}

namespace {

/* The alignment of a buffer. Device buffers: 256 bytes, as in CUDA. Pinned
 * host memory: as much as its size allows, up to 16 bytes, so that a buffer
 * of floats ends exactly at its guard page (an index one too far faults at
 * once); sizes that are not a multiple of 4 get 16 and a few canary bytes. */
size_t alignment_for(size_t size, bool device)
{
    if (device) return kDeviceAlign;
    return size % 16 == 0 ? 16 : size % 8 == 0 ? 8 : size % 4 == 0 ? 4 : 16;
}

size_t rounded_size(size_t size, bool device)
{
    size_t a = alignment_for(size, device);
    return (size + a - 1) & ~(a - 1);
}

/* How many canary bytes precede a buffer: up to 64, within its mapping. */
const size_t kFront = 64;
size_t front_bytes(const char *data, const char *map)
{
    return (size_t)(data - map) < kFront ? (size_t)(data - map) : kFront;
}

} // namespace

/* A buffer: device memory (cudaMalloc, shut to host code when guarded;
 * cudaMallocManaged, open to it and counted as written from the start), or
 * pinned host memory. pc: where the program allocated it. */
void *map_buffer(size_t size, bool device, bool guarded, bool managed, const void *pc)
{
    /* Data ending at most 255 bytes (device) or 15 bytes (pinned) before a
     * guard page; the bytes between its end and the page are canaries. */
    size_t rounded = rounded_size(size, device);
    size_t data_pages = (rounded + kFront + g_page - 1) / g_page;
    size_t map_bytes = (data_pages + 1) * g_page;
    char *map;
    if (device) {
        if (!region_init()) return nullptr;
        map = region_take(map_bytes);
        if (!map) return nullptr;
        /* Key 0: pages of an earlier buffer at this address kept its key. */
        int rc;
#if CUDASIM_HAVE_PKEYS
        if (g_pkey >= 0)
            rc = pkey_mprotect(map, data_pages * g_page, PROT_READ | PROT_WRITE, 0);
        else
#endif
            rc = mprotect(map, data_pages * g_page, PROT_READ | PROT_WRITE);
        if (rc != 0) return nullptr;
    } else {
        map = (char *)mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (map == MAP_FAILED) return nullptr;
        mprotect(map + data_pages * g_page, g_page, PROT_NONE);
    }
    char *guard = map + data_pages * g_page;
    char *data = guard - rounded;
    memset(data + size, kCanary, rounded - size);
    /* Canaries before the start too, for index -1 (the page before is ours). */
    size_t front = front_bytes(data, map);
    memset(data - front, kCanary, front);
#if CUDASIM_ASAN
    __asan_poison_memory_region(data + size, rounded - size); /* host code overrunning it */
    __asan_poison_memory_region(data - front, front);
#endif
    Alloc &a = g_allocs[(uintptr_t)data] =
        Alloc{size, map, map_bytes, device, guarded, false, managed, pc, ++g_alloc_serial};
    if (device) shadow_new_buffer((uintptr_t)data, size, managed);
    if (guarded) shut(a);
    if (device) g_in_use += size;
    return data;
}

/* Give a buffer's pages back (and, under ASan, its shadow: the next mapping
 * at this address must not inherit the slack's poison). A device buffer's
 * addresses stay reserved and inaccessible; with free_pc, the simulator
 * remembers that it was freed, and where. */
void unmap_buffer(uintptr_t start, const Alloc &a, const void *free_pc)
{
#if CUDASIM_ASAN
    __asan_unpoison_memory_region(a.map, a.map_bytes);
#endif
    if (!a.device) {
        munmap(a.map, a.map_bytes);
        return;
    }
    madvise(a.map, a.map_bytes, MADV_DONTNEED);
    mprotect(a.map, a.map_bytes, PROT_NONE);
    shadow_fill((uintptr_t)a.map, a.map_bytes, 0);
    if (free_pc) {
        g_freed[start] = Freed{a.size, a.map, a.map_bytes, a.managed, a.pc, free_pc};
        g_freed_order.push_back(start);
        if (g_freed_order.size() > 2 * kFreedKept) { /* forget the oldest */
            for (size_t i = 0; i < kFreedKept; i++) g_freed.erase(g_freed_order[i]);
            g_freed_order.erase(g_freed_order.begin(), g_freed_order.begin() + kFreedKept);
        }
    }
}

/* Check the canaries around every device buffer; returns the first buffer
 * written outside its bounds (and in *before whether before its start), or NULL.
 * (With mprotect, a buffer still shut was not touched: it is skipped.) */
const Alloc *check_canaries(uintptr_t *start, bool *before)
{
    for (auto &kv : g_allocs) {
        const Alloc &a = kv.second;
        if (a.guarded && !a.open && !g_use_pkeys) continue;
        size_t rounded = rounded_size(a.size, a.device);
        const unsigned char *p = (const unsigned char *)kv.first;
        size_t front = front_bytes((const char *)p, a.map);
#if CUDASIM_ASAN
        __asan_unpoison_memory_region(p + a.size, rounded - a.size);
        __asan_unpoison_memory_region(p - front, front);
#endif
        const Alloc *bad = nullptr;
        for (size_t i = a.size; i < rounded && !bad; i++)
            if (p[i] != kCanary) bad = &a, *before = false;
        for (size_t i = 1; i <= front && !bad; i++)
            if (p[-(ptrdiff_t)i] != kCanary) bad = &a, *before = true;
#if CUDASIM_ASAN
        __asan_poison_memory_region(p + a.size, rounded - a.size);
        __asan_poison_memory_region(p - front, front);
#endif
        if (bad) {
            *start = kv.first;
            return bad;
        }
    }
    return nullptr;
}

const char *alloc_name(bool device, bool managed)
{
    return !device ? "cudaMallocHost" : managed ? "cudaMallocManaged" : "cudaMalloc";
}

/* "a 1200-byte cudaMalloc buffer allocated at f.cu:30" */
std::string buffer_text(const Alloc &a)
{
    char buf[128];
    snprintf(buf, sizeof buf, "a %zu-byte %s buffer", a.size, alloc_name(a.device, a.managed));
    std::string l = a.pc ? source_line(a.pc) : "";
    return l.empty() ? buf : std::string(buf) + " allocated at " + l;
}

std::string freed_text(const Freed &f)
{
    char buf[128];
    snprintf(buf, sizeof buf, "a %zu-byte %s buffer", f.size, alloc_name(true, f.managed));
    std::string out = buf;
    std::string fl = source_line(f.free_pc), al = f.alloc_pc ? source_line(f.alloc_pc) : "";
    out += fl.empty() ? " that cudaFree freed" : " that the cudaFree at " + fl + " freed";
    if (!al.empty()) out += " (allocated at " + al + ")";
    return out;
}

/* __device__ and __constant__ variables whose address cudaGetSymbolAddress
 * gave: device memory for copies. */
std::map<uintptr_t, size_t> g_symbols;

/* The __device__ variable holding p, or NULL (its start in *start). */
const size_t *find_symbol(const void *p, uintptr_t *start)
{
    auto it = g_symbols.upper_bound((uintptr_t)p);
    if (it == g_symbols.begin()) return nullptr;
    --it;
    if ((uintptr_t)p >= it->first + it->second) return nullptr;
    *start = it->first;
    return &it->second;
}

void memory_reset()
{
    for (auto &kv : g_allocs) unmap_buffer(kv.first, kv.second);
    g_allocs.clear();
    g_freed.clear();
    g_freed_order.clear();
    g_symbols.clear();
    leaks_reset();
    g_region_used = 0;
    g_in_use = 0;
}

} // namespace internal

/* For cublas.cpp: a cuBLAS call wrote [p, p + n) (for the checks of reads of
 * memory never written). */
void device_written(const void *p, size_t n) { internal::mark_written(p, n); }

} // namespace cudasim

using namespace cudasim::internal;

/* For cublas.cpp: is [p, p + n) simulated device memory? */
extern "C" int cudasim_is_device_range(const void *p, size_t n)
{
    uintptr_t start;
    const Alloc *a = find_alloc(p, &start);
    return a && a->device && (uintptr_t)p + n <= start + a->size;
}
