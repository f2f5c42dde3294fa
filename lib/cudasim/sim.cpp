/*
 * sim.cpp: the CUDA simulator's runtime.
 *
 * Device memory is host memory, each buffer placed so that it ends against an
 * inaccessible guard page: a kernel that reads or writes past the end faults
 * at once, and the fault handler names the kernel, block and thread. Outside
 * the simulator's device operations, device buffers are shut to host code
 * (memory protection keys, or mprotect), which dies if it touches one. Blocks
 * run one after another. In a block, threads run one after another too: as
 * plain calls when the kernel uses no barrier, otherwise each as a fiber
 * (ucontext) that yields at __syncthreads and warp operations, so that the
 * block advances in lock-step from barrier to barrier, as on a GPU. The
 * scheduler checks that every thread reaches every barrier.
 *
 * Everything is synchronous: a launch has finished when it returns, streams
 * and events only keep their API (and events the host time of their record).
 * A stream that captures (cudaStreamBeginCapture) records the work issued to
 * it instead, as the nodes of a graph that cudaGraphLaunch runs, in order.
 * Errors follow real CUDA: a bad launch configuration is reported by
 * cudaGetLastError; a fault inside a kernel is "sticky" and every later call
 * returns it until cudaDeviceReset.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "cudasim.h"
#include "include/cuda_runtime_api.h"
#include "kernel_api.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define CUDASIM_ASAN 1
#else
#define CUDASIM_ASAN 0
#endif

/* ---- the coordinates kernels read ---------------------------------------- */

thread_local uint3 cudasim_thread_idx, cudasim_block_idx;
thread_local dim3 cudasim_block_dim, cudasim_grid_dim;
unsigned long long cudasim_launch_serial = 0;
char *cudasim_shared_base = nullptr;

namespace {

/* The limits of the device the simulator presents (a compute capability 8.0
 * part, the oldest the workbook's build targets with all features). */
const int kMaxThreadsPerBlock = 1024;
const int kMaxBlockDim[3] = {1024, 1024, 64};
const int kMaxGridDim[3] = {2147483647, 65535, 65535};
const size_t kSharedPerBlock = 48 * 1024;
const size_t kSharedPerBlockOptin = 163 * 1024;
const size_t kTotalMemory = (size_t)16 << 30;
const size_t kStackBytes = CUDASIM_ASAN ? (512 << 10) : (128 << 10);

/* ---- errors and reports --------------------------------------------------- */

cudaError_t g_last = cudaSuccess;   /* what cudaGetLastError returns next */
cudaError_t g_sticky = cudaSuccess; /* a kernel fault: returned until reset */
std::string g_report;
std::string g_report_context; /* prefixed to reports: where a graph launch is */
FILE *g_report_stream = (FILE *)1; /* 1: stderr, resolved at first use */
unsigned long long g_launches = 0;

std::string host_call_site();

void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void report(const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* Source files under the current folder by their relative names, as the
     * compiler named them (a program built by make sim-run knows them by
     * their absolute paths). */
    static std::string cwd;
    if (cwd.empty()) {
        char c[4096];
        cwd = getcwd(c, sizeof c) ? std::string(c) + "/" : std::string("\n");
    }
    std::string text = buf;
    for (size_t at; cwd.size() > 1 && (at = text.find(cwd)) != std::string::npos;)
        text.erase(at, cwd.size());
    /* A runtime call, or a launch, is reported at the program's line that
     * made it (a kernel's own reports name their thread and line). */
    std::string site = host_call_site();
    if (!site.empty()) site += ": ";
    g_report = site + g_report_context + text;
    FILE *out = g_report_stream == (FILE *)1 ? stderr : g_report_stream;
    if (out) {
        fprintf(out, "cudasim: %s\n", g_report.c_str());
        fflush(out);
    }
}

cudaError_t fail(cudaError_t e)
{
    g_last = e;
    return e;
}

/* ---- device memory --------------------------------------------------------- */

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
struct Alloc {
    size_t size;      /* what the caller asked for */
    char *map;        /* the mapping: [slack][data][guard page] */
    size_t map_bytes;
    bool device;      /* false: pinned host memory from cudaMallocHost */
    bool guarded;     /* shut to host code: device memory a program allocated */
    bool open;        /* opened for the device operation running now */
    bool managed;     /* cudaMallocManaged: host code may touch it too */
    const void *pc;   /* where it was allocated (a return address), or NULL */
};
struct Freed {
    size_t size;
    char *map;
    size_t map_bytes;
    bool managed;
    const void *alloc_pc, *free_pc;
};
std::map<uintptr_t, Alloc> g_allocs; /* by start address */
std::map<uintptr_t, Freed> g_freed;  /* freed device buffers, while their addresses are unused */
std::vector<uintptr_t> g_freed_order; /* oldest first, to forget the oldest beyond kFreedKept */
const size_t kFreedKept = 1 << 16;
size_t g_in_use = 0;
size_t g_page = 4096;
const unsigned char kCanary = 0xcd;
const size_t kDeviceAlign = 256; /* cudaMalloc's alignment in CUDA */

/* The region and its shadow. */
char *g_region = nullptr;
size_t g_region_bytes = 0, g_region_used = 0;
uint8_t *g_shadow = nullptr;
uintptr_t g_rg_lo = 0, g_rg_span = 0; /* [g_rg_lo, g_rg_lo + g_rg_span): the region */
enum : uint8_t {
    SH_ADDR = 0x80, /* a byte of a live buffer (the low 3 bits: how many of the 4) */
    SH_INIT = 0x40, /* written since it was allocated */
    SH_FULL = 0x84, /* 4 addressable bytes, not yet written */
    SH_DONE = 0xc4  /* 4 addressable bytes, written */
};

inline uint8_t *shadow_of(uintptr_t a) { return g_shadow + ((a - g_rg_lo) >> 2); }
inline bool in_region(uintptr_t a) { return a - g_rg_lo < g_rg_span; }

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

/* The allocation that contains [p, p + n), or NULL. */
const Alloc *find_alloc(const void *p, uintptr_t *start = nullptr)
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
const Freed *find_freed(uintptr_t a, uintptr_t *start = nullptr)
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

/* ---- keeping host code out of device memory ------------------------------ */

/* On a GPU the CPU cannot dereference a device pointer. Here device memory is
 * host memory, so the data pages of every cudaMalloc buffer are shut to
 * everything but the simulator's device operations (kernels, copies,
 * memsets, cuBLAS calls, graph launches), and host code that touches them
 * faults: the fault handler says what happened and the program dies of the
 * SIGSEGV, as it would on a GPU machine. Two ways to shut them:
 *
 *  - memory protection keys (x86-64 with PKU, Linux 4.9 and later): the
 *    buffers' pages carry their own key, which this thread's PKRU register
 *    denies outside device operations and allows during them (a write of one
 *    register, tens of nanoseconds, whatever the number of buffers). PKRU is
 *    per thread: other threads (OpenBLAS's workers, in a cuBLAS call) still
 *    fault, and the handler then opens the buffer to every thread (key 0)
 *    until the operation ends, as below;
 *
 *  - otherwise mprotect: the pages are PROT_NONE, and a buffer is opened
 *    (PROT_READ | PROT_WRITE) when a device operation first touches it: the
 *    operation opens the buffers it knows (a copy's, a memset's, a cuBLAS
 *    call's operands), and a kernel faults on the others, whereupon the
 *    handler opens the buffer and lets the access go on. When the outermost
 *    operation ends, the buffers it opened are shut again.
 *
 * CUDASIM_PKEYS=0 chooses mprotect where protection keys exist. */
#if defined(__x86_64__) && defined(PKEY_DISABLE_ACCESS)
#define CUDASIM_HAVE_PKEYS 1
#else
#define CUDASIM_HAVE_PKEYS 0
#endif

int g_pkey = -1;            /* the protection key of device buffers, or -1 */
bool g_use_pkeys = false;   /* shut with g_pkey (else with mprotect) */
std::atomic<int> g_device_ops{0}; /* device operations running (they nest) */
std::vector<uintptr_t> g_opened;  /* buffers opened since the outermost began */
std::atomic_flag g_open_lock = ATOMIC_FLAG_INIT; /* for the handler on other threads */

size_t data_bytes(const Alloc &a) { return a.map_bytes - g_page; }

/* Shut a buffer's data pages (and its canaries) to host code. */
void shut(Alloc &a)
{
#if CUDASIM_HAVE_PKEYS
    if (g_use_pkeys)
        pkey_mprotect(a.map, data_bytes(a), PROT_READ | PROT_WRITE, g_pkey);
    else
#endif
        mprotect(a.map, data_bytes(a), PROT_NONE);
    a.open = false;
}

/* Open a buffer to every thread until the outermost device operation ends:
 * called by the operations, and by the fault handler on any thread (hence
 * the lock, and g_opened's capacity reserved beforehand: no allocation). */
void open_buffer(uintptr_t start, Alloc &a)
{
    while (g_open_lock.test_and_set(std::memory_order_acquire)) {
    }
    if (!a.open) {
#if CUDASIM_HAVE_PKEYS
        if (g_use_pkeys)
            pkey_mprotect(a.map, data_bytes(a), PROT_READ | PROT_WRITE, 0);
        else
#endif
            mprotect(a.map, data_bytes(a), PROT_READ | PROT_WRITE);
        a.open = true;
        g_opened.push_back(start);
    }
    g_open_lock.clear(std::memory_order_release);
}

/* A device operation is about to touch the device buffer holding p: open it
 * now rather than on a fault (with protection keys this thread may touch
 * them all already). */
void open_for_device(const void *p)
{
    if (g_use_pkeys || !p) return;
    uintptr_t start;
    auto it = g_allocs.upper_bound((uintptr_t)p);
    if (it == g_allocs.begin()) return;
    --it;
    start = it->first;
    Alloc &a = it->second;
    if (a.guarded && !a.open && (uintptr_t)p < start + (a.size ? a.size : 1)) open_buffer(start, a);
}

/* This thread may touch device buffers (during device operations) or not. */
void allow_device_memory(bool allow)
{
#if CUDASIM_HAVE_PKEYS
    if (g_use_pkeys) pkey_set(g_pkey, allow ? 0 : PKEY_DISABLE_ACCESS);
#else
    (void)allow;
#endif
}

/* The buffers of the operation that ends, shut again (with mprotect, those
 * next to each other in one call: the guard pages between them are
 * PROT_NONE anyway). */
void shut_opened()
{
    if (g_opened.empty()) return;
    std::vector<Alloc *> open;
    for (uintptr_t start : g_opened) {
        auto it = g_allocs.find(start);
        if (it != g_allocs.end() && it->second.open) open.push_back(&it->second);
    }
    g_opened.clear();
    if (g_use_pkeys) {
        for (Alloc *a : open) shut(*a);
        return;
    }
    std::sort(open.begin(), open.end(), [](Alloc *x, Alloc *y) { return x->map < y->map; });
    for (size_t i = 0; i < open.size();) {
        size_t j = i;
        while (j + 1 < open.size() && open[j + 1]->map == open[j]->map + open[j]->map_bytes) j++;
        char *end = open[j]->map + data_bytes(*open[j]);
        mprotect(open[i]->map, (size_t)(end - open[i]->map), PROT_NONE);
        for (size_t k = i; k <= j; k++) open[k]->open = false;
        i = j + 1;
    }
}

/* A device operation: kernels, copies, memsets, cuBLAS calls, graph
 * launches. While one runs (they nest), device buffers may be touched. */
struct DeviceOp {
    DeviceOp()
    {
        if (g_device_ops.fetch_add(1) == 0) {
            g_opened.reserve(g_allocs.size()); /* the handler must not allocate */
            allow_device_memory(true);
        }
    }
    ~DeviceOp()
    {
        if (g_device_ops.load() == 1) {
            shut_opened();
            allow_device_memory(false);
        }
        g_device_ops.fetch_sub(1);
    }
    DeviceOp(const DeviceOp &) = delete;
    DeviceOp &operator=(const DeviceOp &) = delete;
};

/* A buffer: device memory (cudaMalloc, shut to host code when guarded;
 * cudaMallocManaged, open to it and counted as written from the start), or
 * pinned host memory. pc: where the program allocated it. */
void *map_buffer(size_t size, bool device, bool guarded, bool managed = false,
                 const void *pc = nullptr)
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
        Alloc{size, map, map_bytes, device, guarded, false, managed, pc};
    if (device) shadow_new_buffer((uintptr_t)data, size, managed);
    if (guarded) shut(a);
    if (device) g_in_use += size;
    return data;
}

/* Give a buffer's pages back (and, under ASan, its shadow: the next mapping
 * at this address must not inherit the slack's poison). A device buffer's
 * addresses stay reserved and inaccessible; with free_pc, the simulator
 * remembers that it was freed, and where. */
void unmap_buffer(uintptr_t start, const Alloc &a, const void *free_pc = nullptr)
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

/* ---- streams, events and graphs ------------------------------------------- */

/* A node of a graph: an operation that a stream capture recorded instead of
 * running, run each time the graph is launched. What it needs (a kernel's
 * arguments, a cuBLAS call's alpha and beta) was copied when it was issued,
 * as CUDA copies it, and never changes (there is no API to edit a graph), so
 * a graph and the instances made from it share it. */
struct Node {
    std::string what; /* "kernel k", "cudaMemsetAsync", ...: for reports */
    std::function<cudaError_t()> run;
    cudaGraphNode_t handle;
};
using Graph = std::vector<Node>;

struct Stream {
    unsigned flags = 0;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
    Graph recorded;  /* by the capture so far */
    std::string why; /* what invalidated the capture */
};
struct Event {
    double ms = -1;
    cudaStream_t captured = nullptr; /* last recorded by this stream's capture */
};
std::map<cudaStream_t, Stream> g_streams;
std::map<cudaEvent_t, Event> g_events;
std::map<cudaGraph_t, Graph> g_graphs;
std::map<cudaGraphExec_t, Graph> g_execs; /* instances of graphs: copies */

double now_ms()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

bool stream_ok(cudaStream_t s) { return s == nullptr || g_streams.count(s); }

/* The stream s if it captures (its capture active or invalidated), or NULL. */
Stream *capture_of(cudaStream_t s)
{
    auto it = g_streams.find(s);
    if (it == g_streams.end() || it->second.capture == cudaStreamCaptureStatusNone) return nullptr;
    return &it->second;
}

/* The capturing streams for which pred holds. */
template <typename Pred>
std::vector<Stream *> captures(Pred pred)
{
    std::vector<Stream *> out;
    for (auto &kv : g_streams)
        if (kv.second.capture != cudaStreamCaptureStatusNone && pred(kv.second))
            out.push_back(&kv.second);
    return out;
}

/* The legacy (NULL) stream waits for every blocking stream (one created
 * without cudaStreamNonBlocking): while one of them captures, it cannot be
 * used. */
std::vector<Stream *> blocking_captures()
{
    return captures([](const Stream &s) { return !(s.flags & cudaStreamNonBlocking); });
}

void invalidate(Stream &s, const std::string &why)
{
    if (s.capture != cudaStreamCaptureStatusActive) return; /* the first reason stays */
    s.capture = cudaStreamCaptureStatusInvalidated;
    s.why = why;
}

/* A call that breaks a rule of stream capture fails, and invalidates the
 * captures it concerns (their graphs would not be what the program meant):
 * cudaStreamEndCapture will say so. */
cudaError_t violation(cudaError_t e, const std::vector<Stream *> &broken, const char *call,
                      const char *why)
{
    report("%s: %s; the capture is now invalidated, and cudaStreamEndCapture will fail (CUDA "
           "reports: %s)",
           call, why, cudaGetErrorString(e));
    for (Stream *s : broken) invalidate(*s, std::string(call) + ": " + why);
    return fail(e);
}

const char *const kLegacyWhy =
    "it uses the legacy (NULL) stream, which waits for every blocking stream "
    "(cudaStreamCreate), and one of them is capturing: issue the work to the capturing stream, "
    "or before cudaStreamBeginCapture or after cudaStreamEndCapture";

/* An operation issued to a capturing stream that fails its checks is not
 * recorded, and the capture is invalidated: it must not give a graph without
 * the operation. */
cudaError_t refuse(cudaStream_t stream, cudaError_t e)
{
    if (Stream *s = capture_of(stream)) invalidate(*s, g_report);
    return fail(e);
}

enum Use { RUN, RECORD, REFUSED };

/* What an operation issued to stream s does: run now, be recorded by the
 * stream's capture, or fail (reported, the error in *e). */
Use stream_use(const char *call, cudaStream_t s, cudaError_t *e)
{
    *e = cudaSuccess;
    if (!stream_ok(s)) {
        report("%s: a stream that does not exist (destroyed?) (CUDA reports: invalid resource "
               "handle)",
               call);
        *e = fail(cudaErrorInvalidResourceHandle);
        return REFUSED;
    }
    if (Stream *c = capture_of(s)) {
        if (c->capture == cudaStreamCaptureStatusActive) return RECORD;
        report("%s: the stream's capture was invalidated (by %s); end it with "
               "cudaStreamEndCapture (CUDA reports: operation failed due to a previous error "
               "during capture)",
               call, c->why.c_str());
        *e = fail(cudaErrorStreamCaptureInvalidated);
        return REFUSED;
    }
    if (!s) {
        std::vector<Stream *> blocking = blocking_captures();
        if (!blocking.empty()) {
            *e = violation(cudaErrorStreamCaptureImplicit, blocking, call, kLegacyWhy);
            return REFUSED;
        }
    }
    return RUN;
}

void record(Stream &s, const std::string &what, std::function<cudaError_t()> run)
{
    static uintptr_t next = 0x7000;
    s.recorded.push_back(Node{what, std::move(run), (cudaGraphNode_t)(next += 16)});
}

/* Work issued to a stream (its arguments checked): run now, or recorded by
 * the stream's capture. */
cudaError_t issue(const char *call, cudaStream_t stream, std::function<cudaError_t()> work)
{
    cudaError_t e;
    Use use = stream_use(call, stream, &e);
    if (use == RUN) return work();
    if (use == RECORD) record(*capture_of(stream), call, std::move(work));
    return e;
}

/* ---- kernels and threads ---------------------------------------------------- */

/* What the translator found of each kernel: whether it uses barriers or warp
 * operations, and whether its accesses are instrumented; filled by static
 * initializers of translated files, hence a function-local static
 * (constructed on first use). */
struct KernelInfo {
    int barriers = 0;
    int instrumented = 1;
    unsigned long long launches = 0; /* run so far (global races: the first few only) */
};
std::map<std::string, KernelInfo> &kernels()
{
    static std::map<std::string, KernelInfo> table;
    return table;
}
std::map<const void *, int> g_dynamic_limit;

enum State { READY, AT_BARRIER, AT_WARP, DONE };

/* Fibers switch with a few instructions on x86-64 (saving the callee-saved
 * registers and the FP control words, as a function call would) and with
 * ucontext elsewhere (correct, but each switch makes a system call). */
#if defined(__x86_64__)
#define CUDASIM_FAST_SWITCH 1
extern "C" void cudasim_switch(void **save_sp, void *new_sp);
__asm__(".text\n"
        ".globl cudasim_switch\n"
        ".type cudasim_switch,@function\n"
        "cudasim_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size cudasim_switch,.-cudasim_switch\n");
#else
#define CUDASIM_FAST_SWITCH 0
#endif

struct Thread {
    ucontext_t ctx;
    void *sp = nullptr;
    char *stack = nullptr;
    State state = READY;
    bool started = false;
    uint3 idx;
    const char *file = nullptr;
    int line = 0;
    /* a pending warp operation */
    int op = 0, arg = 0, width = 32;
    unsigned mask = 0;
    unsigned long long value = 0, result = 0;
    uint16_t wsync = 0; /* the warp synchronizations it took part in (for race checks) */
    void *asan_fake_stack = nullptr;
};

struct Run {
    const cudasim::LaunchConfig *cfg = nullptr;
    const cudasim::Args *args = nullptr;
    cudaError_t error = cudaSuccess; /* how the launch ended */
    bool fibers = false;
    int nthreads = 0;
    std::vector<Thread> threads;
    Thread *current = nullptr;
    ucontext_t scheduler;
    void *scheduler_sp = nullptr;
    unsigned long long block_serial = 0;
    size_t static_shared = 0;    /* bytes of __shared__ variables this launch */
    bool instrumented = false;   /* the kernel's accesses call the checks */
    bool need_fibers = false;    /* run without fibers, it reached a barrier */
    unsigned plain_done = 0;     /* threads of the block run to their end (without fibers) */
    unsigned long long first_block = 0; /* the block_serial of the launch's first block */
    sigjmp_buf abort_env;
    bool in_kernel = false;
    bool on_fiber = false; /* running on a fiber's stack (not the scheduler's) */
} g_run;

/* The state of the checks of every access (see "checking every access"). */
bool g_checking = false;  /* the running kernel's accesses are checked */
int g_check_level = -1;   /* CUDASIM_CHECK (see check_level) */
bool g_global_races = false; /* this launch checks races on global memory too */
/* Buffers this launch passes only as pointers to const: read-only, so their
 * words cannot race and are not tracked (the kernel's inputs, most of its
 * global accesses). */
struct ReadOnly {
    uintptr_t lo, n;
};
ReadOnly g_readonly[8];
int g_readonly_n = 0;
const unsigned long long kGlobalRaceLaunches = 4;
int g_tid = 0;            /* the running thread: its index in the block */
uint16_t g_wsync = 0;     /* its Thread::wsync */
uint64_t g_stamp = 1;     /* block_serial << 24 | barriers the block has passed */

/* AddressSanitizer must be told about every switch between stacks. */
#if CUDASIM_ASAN
void *g_main_fake_stack = nullptr;
const void *g_main_stack_bottom = nullptr;
size_t g_main_stack_size = 0;
#endif

std::vector<char *> g_stack_pool;

/* printf in a kernel: each thread's lines since its block's last barrier,
 * printed at the barrier or the block's end, the k-th printf of every lane
 * of a warp together, lane by lane, warp after warp: the order a GPU's printf
 * buffer gives a warp (the simulator runs the threads one at a time, some
 * blocks last to first). */
std::vector<std::vector<std::string>> g_printf;
bool g_printf_any = false;

void printf_begin(int nthreads)
{
    if ((int)g_printf.size() < nthreads) g_printf.resize(nthreads);
    for (auto &v : g_printf) v.clear();
    g_printf_any = false;
}

void printf_flush()
{
    if (!g_printf_any) return;
    g_printf_any = false;
    size_t n = g_printf.size();
    for (size_t w = 0; w < n; w += 32) {
        size_t end = std::min(n, w + 32), most = 0;
        for (size_t i = w; i < end; i++) most = std::max(most, g_printf[i].size());
        for (size_t k = 0; k < most; k++)
            for (size_t i = w; i < end; i++)
                if (k < g_printf[i].size()) fputs(g_printf[i][k].c_str(), stdout);
    }
    for (auto &v : g_printf) v.clear();
}

void describe_thread(char *buf, size_t n)
{
    const uint3 &b = cudasim_block_idx, &t = cudasim_thread_idx;
    snprintf(buf, n, "kernel %s, block (%u,%u,%u), thread (%u,%u,%u)", g_run.cfg->name, b.x, b.y,
             b.z, t.x, t.y, t.z);
}

/* Leave the launch: from a fiber, a plain thread or the fault handler. */
[[noreturn]] void abort_launch(cudaError_t e)
{
    if (e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorAssert ||
        e == cudaErrorLaunchTimeout)
        g_sticky = e;
    g_last = g_run.error = e;
    g_checking = false;
#if CUDASIM_ASAN
    /* Leaving a fiber for good: tell ASan we are back on the main stack. */
    if (g_run.on_fiber) __sanitizer_start_switch_fiber(nullptr, g_main_stack_bottom, g_main_stack_size);
#endif
    siglongjmp(g_run.abort_env, 1);
}

/* ---- checking every access of a kernel ---------------------------------------- */

/* Translated kernels are compiled with ThreadSanitizer's instrumentation but
 * without its runtime: each load and store calls __tsan_readN or
 * __tsan_writeN (at the end of this file) with its address, and the
 * simulator checks it:
 *  - memcheck: a global access must fall in a live device buffer (the
 *    region's shadow says which bytes are), a shared one in a __shared__
 *    variable (not in the red zones between them); otherwise the launch stops
 *    with the kernel, block, thread, source line and the buffer it missed
 *    (or the cudaFree that freed it);
 *  - initcheck: a read of global memory that nothing has written is
 *    reported (once per source line);
 *  - racecheck: for each 4-byte word of shared memory, and of global memory
 *    within a block, the last write and the reads since the last barrier are
 *    kept, with their threads and code: a write and a read, or two writes,
 *    by different threads of a block with no __syncthreads between them (in
 *    one warp: no __syncwarp or warp operation either) is reported with both
 *    source lines, whatever order the simulator ran them in.
 * Races and uninitialized reads do not stop the kernel (as under
 * compute-sanitizer); each pair of source lines is reported once. */

unsigned long long g_hazards = 0;          /* races and uninitialized reads reported */
std::set<std::pair<uint64_t, uint64_t>> g_reported; /* (kind, source lines) reported */
const unsigned long long kMaxHazardReports = 100;
std::vector<uint16_t> g_warp_sync; /* per warp of the block: synchronizations so far */

/* CUDASIM_CHECK: 0 checks nothing; 1 memory (bounds, freed buffers, reads
 * of memory never written) and races on shared memory; 2 (the default) also
 * races on global memory in the first kGlobalRaceLaunches launches of each
 * kernel (they cost the most, and a training loop launches the same kernels
 * thousands of times); 3 races on global memory in every launch. */
int check_level()
{
    if (g_check_level < 0) {
        const char *env = getenv("CUDASIM_CHECK");
        g_check_level = env && *env ? atoi(env) : 2;
        if (g_check_level < 0 || g_check_level > 3) g_check_level = 2;
    }
    return g_check_level;
}

/* The code addresses that made accesses, numbered (a race cell keeps numbers). */
std::vector<const void *> g_pcs(1, nullptr);
struct PcSlot {
    const void *pc;
    uint32_t id;
};
PcSlot g_pc_cache[4096];
std::unordered_map<const void *, uint32_t> g_pc_ids;

inline uint32_t pc_id(const void *pc)
{
    PcSlot &s = g_pc_cache[((uintptr_t)pc >> 2) & 4095];
    if (s.pc == pc) return s.id;
    auto it = g_pc_ids.find(pc);
    uint32_t id;
    if (it != g_pc_ids.end()) {
        id = it->second;
    } else {
        id = (uint32_t)g_pcs.size();
        g_pcs.push_back(pc);
        g_pc_ids[pc] = id;
    }
    s.pc = pc;
    s.id = id;
    return id;
}

/* ---- source lines, for reports ---- */

/* A program's standard output (standard error dropped); "" if it cannot run. */
std::string capture(const std::vector<std::string> &args)
{
    int fd[2];
    if (pipe(fd) != 0) return "";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    std::vector<char *> argv;
    for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    std::string out;
    if (rc == 0) {
        char buf[4096];
        ssize_t n;
        while ((n = read(fd[0], buf, sizeof buf)) > 0) out.append(buf, (size_t)n);
        waitpid(pid, nullptr, 0);
    }
    close(fd[0]);
    return out;
}

std::map<std::pair<const void *, bool>, std::string> g_lines;

/* "file:line" with file the .cu a translated file came from. The translator
 * keeps the lines and starts its output with `#line 1 "prog.cu"`, but GCC
 * names the file it compiled for some lines of its debug information (those
 * of a loop's copies, with a discriminator), and a report must not point at
 * a file the student never wrote. */
std::string untranslated(const std::string &where)
{
    size_t colon = where.rfind(':');
    if (colon == std::string::npos || colon < 4 || where.compare(colon - 4, 4, ".cpp") != 0)
        return where;
    std::string file = where.substr(0, colon);
    static std::map<std::string, std::string> origin;
    auto found = origin.find(file);
    if (found == origin.end()) {
        std::string cu;
        if (FILE *f = fopen(file.c_str(), "r")) {
            char line[4096];
            const char *tag = "#line 1 \"";
            if (fgets(line, sizeof line, f) && strncmp(line, tag, strlen(tag)) == 0) {
                cu = line + strlen(tag);
                size_t end = cu.rfind('"');
                cu = end == std::string::npos ? std::string() : cu.substr(0, end);
            }
            fclose(f);
        }
        found = origin.emplace(file, cu).first;
    }
    return found->second.empty() ? where : found->second + where.substr(colon);
}

/* "file:line" of the code at pc, "" if unknown. pc is a return address (the
 * call is the instruction before it) unless exact. addr2line reads the
 * program's debug information; of the inlined functions at pc, the innermost
 * outside the simulator's own headers and the system's is the line. */
std::string source_line(const void *pc, bool exact = false)
{
    auto key = std::make_pair(pc, exact);
    auto found = g_lines.find(key);
    if (found != g_lines.end()) return found->second;
    std::string out;
    Dl_info info, self;
    if (pc && dladdr(pc, &info) && info.dli_fbase) {
        uintptr_t addr = (uintptr_t)pc - (exact ? 0 : 1);
        const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)info.dli_fbase;
        if (eh->e_type == ET_DYN) addr -= (uintptr_t)info.dli_fbase;
        std::string file = info.dli_fname ? info.dli_fname : "";
        if (dladdr((const void *)&source_line, &self) && self.dli_fbase == info.dli_fbase) {
            char exe[64]; /* the program itself, wherever it was started from */
            snprintf(exe, sizeof exe, "/proc/%d/exe", (int)getpid());
            file = exe;
        }
        char hex[32];
        snprintf(hex, sizeof hex, "0x%lx", (unsigned long)addr);
        std::string text = capture({"addr2line", "-i", "-e", file, hex});
        std::string first;
        size_t at = 0;
        while (at < text.size()) {
            size_t nl = text.find('\n', at);
            if (nl == std::string::npos) nl = text.size();
            std::string l = text.substr(at, nl - at);
            at = nl + 1;
            size_t d = l.find(" (discriminator");
            if (d != std::string::npos) l.resize(d);
            if (l.empty() || l[0] == '?' || l.size() < 3 || l.compare(l.size() - 2, 2, ":0") == 0 ||
                l.compare(l.size() - 2, 2, ":?") == 0)
                continue;
            if (first.empty()) first = l;
            if (l.find("/lib/cudasim/") == std::string::npos && l.compare(0, 5, "/usr/") != 0) {
                out = l;
                break;
            }
        }
        if (out.empty()) out = first;
        out = untranslated(out);
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd)) {
            std::string c = std::string(cwd) + "/";
            if (out.compare(0, c.size(), c) == 0) out = out.substr(c.size());
        }
    }
    g_lines[key] = out;
    return out;
}

/* " at file:line" (or "" when unknown). */
std::string at_line(const void *pc, bool exact = false)
{
    std::string l = source_line(pc, exact);
    return l.empty() ? "" : " at " + l;
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

/* Where a bad global access of n bytes at a went, after "a 4-byte read":
 * "0 bytes past the end of a 1200-byte cudaMalloc buffer allocated at ...",
 * or into a freed buffer: "of byte 20 of a ... buffer that the cudaFree at ... freed". */
std::string missed_global(uintptr_t a, size_t n)
{
    char buf[160];
    uintptr_t fs;
    if (const Freed *f = find_freed(a, &fs)) {
        if (a >= fs && a < fs + f->size)
            snprintf(buf, sizeof buf, "of byte %zu of ", (size_t)(a - fs));
        else if (a >= fs)
            snprintf(buf, sizeof buf, "%zu bytes past the end of ", (size_t)(a - fs - f->size));
        else
            snprintf(buf, sizeof buf, "%zu bytes before the start of ", (size_t)(fs - a));
        return buf + freed_text(*f);
    }
    const Alloc *best = nullptr;
    uintptr_t best_start = 0, best_dist = UINTPTR_MAX;
    bool before = false, straddle = false;
    auto next = g_allocs.upper_bound(a);
    if (next != g_allocs.end() && next->second.device) {
        best = &next->second, best_start = next->first, best_dist = next->first - a, before = true;
    }
    if (next != g_allocs.begin()) {
        auto prev = std::prev(next);
        uintptr_t end = prev->first + prev->second.size;
        if (prev->second.device && a < end) { /* starts inside, ends past the end */
            best = &prev->second, best_start = prev->first, best_dist = 0, before = false;
            straddle = true;
        } else if (prev->second.device && a - end <= best_dist) {
            best = &prev->second, best_start = prev->first, best_dist = a - end, before = false;
        }
    }
    (void)best_start;
    if (!best) return "at an address in no device buffer";
    if (straddle)
        snprintf(buf, sizeof buf, "whose last %zu bytes are past the end of ",
                 (size_t)(a + n - best_start - best->size));
    else
        snprintf(buf, sizeof buf, "%zu bytes %s ", (size_t)best_dist,
                 before ? "before the start of" : "past the end of");
    return buf + buffer_text(*best) +
           (before ? " (a negative index?)"
                   : " (an index beyond its last element: check the bounds test)");
}

/* ---- the block's shared memory ---- */

/* One arena, at a fixed address, holds a launch's shared memory: its
 * dynamic shared memory first, then each __shared__ variable as a thread
 * first reaches its declaration, with red zones between them; a megabyte of
 * inaccessible address space on each side catches far indices. */
struct SharedVar {
    size_t offset, bytes, elem;
    int rank;
    size_t ext[3];
    std::string name;
    const char *file;
    int line;
    bool dynamic;
};
struct Cell {         /* a word's (or byte's) accesses since the last barrier */
    uint64_t w_stamp; /* the last write: its epoch, code, thread */
    const void *w_pc;
    uint16_t w_tid, w_wsync;
    uint16_t r_tid, r_wsync, r2_tid, r2_wsync; /* reads since: by one thread, and another */
    uint64_t r_stamp;
    const void *r_pc, *r2_pc;
};
const uint16_t kNone = 0xffff;
const size_t kArenaBytes = (size_t)1 << 20, kArenaGuard = (size_t)1 << 20, kRedzone = 64;
char *g_arena = nullptr;
size_t g_arena_used = 0;        /* offsets taken this launch, red zones included */
uint16_t *g_arena_var = nullptr; /* per 4 bytes: the variable (index in g_vars + 1), 0: red zone */
Cell *g_cells = nullptr;  /* per 4 bytes of the arena */
Cell *g_bcells = nullptr; /* per byte, for accesses of less than a word */
std::vector<SharedVar> g_vars;
uintptr_t g_sh_lo = 0, g_sh_span = 0; /* the arena and its guards */

bool arena_init()
{
    if (g_arena) return true;
    size_t total = 2 * kArenaGuard + kArenaBytes;
    void *m = mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return false;
    char *arena = (char *)m + kArenaGuard;
    void *cells = mmap(nullptr, kArenaBytes / 4 * sizeof(Cell), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *bcells = mmap(nullptr, kArenaBytes * sizeof(Cell), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mprotect(arena, kArenaBytes, PROT_READ | PROT_WRITE) != 0 || cells == MAP_FAILED ||
        bcells == MAP_FAILED) {
        munmap(m, total);
        return false;
    }
    g_arena_var = (uint16_t *)calloc(kArenaBytes / 4, sizeof(uint16_t));
    g_cells = (Cell *)cells;
    g_bcells = (Cell *)bcells;
    g_arena = arena;
    g_sh_lo = (uintptr_t)m;
    g_sh_span = total;
    cudasim_shared_base = arena;
    return true;
}

void arena_mark(size_t offset, size_t bytes, uint16_t v)
{
    for (size_t g = offset / 4; g < (offset + bytes + 3) / 4; g++) g_arena_var[g] = v;
}

/* A launch begins: no variable placed yet; the dynamic shared memory first. */
void arena_begin(const cudasim::LaunchConfig *cfg)
{
    cudasim_launch_serial++;
    memset(g_arena_var, 0, (g_arena_used + 3) / 4 * sizeof(uint16_t));
    g_vars.clear();
    SharedVar d = {kRedzone, cfg->shared_bytes, 1, 1, {0, 0, 0}, "", nullptr, 0, true};
    g_vars.push_back(d);
    arena_mark(kRedzone, cfg->shared_bytes, 1);
    g_arena_used = (kRedzone + cfg->shared_bytes + kRedzone + 15) & ~(size_t)15;
}

/* A block begins: garbage in its shared memory, as on a GPU, but loud
 * garbage (NaN as floats; -1 as integers). */
void arena_block() { memset(g_arena + kRedzone, 0xff, g_arena_used - kRedzone); }

/* The variable nearest to arena offset off, and how off relates to it. */
std::string missed_shared(uintptr_t a, size_t n)
{
    ptrdiff_t off = (ptrdiff_t)(a - (uintptr_t)g_arena);
    const SharedVar *best = nullptr;
    ptrdiff_t best_dist = PTRDIFF_MAX;
    bool before = false, straddle = false;
    for (const SharedVar &v : g_vars) {
        if (v.dynamic && v.name.empty() && !v.bytes) continue;
        ptrdiff_t lo = (ptrdiff_t)v.offset, hi = lo + (ptrdiff_t)v.bytes;
        if (straddle) break;
        if (off >= hi && off - hi < best_dist) best = &v, best_dist = off - hi, before = false;
        if (off < lo && lo - off < best_dist) best = &v, best_dist = lo - off, before = true;
        if (off >= lo && off < hi) /* starts inside, ends past its end */
            best = &v, best_dist = 0, before = false, straddle = true;
    }
    if (!best) return "outside the block's shared memory";
    char buf[512];
    std::string what;
    if (best->dynamic) {
        snprintf(buf, sizeof buf, "the launch's %zu bytes of dynamic shared memory%s%s%s", best->bytes,
                 best->name.empty() ? "" : " (extern __shared__ ", best->name.c_str(),
                 best->name.empty() ? "" : ")");
        what = buf;
        if (!best->bytes) what += ", and the launch gave none (the third <<< >>> argument)";
    } else {
        snprintf(buf, sizeof buf, "__shared__ %s (%zu bytes, declared at %s:%d)", best->name.c_str(),
                 best->bytes, best->file, best->line);
        what = buf;
    }
    if (straddle)
        snprintf(buf, sizeof buf, "whose last %zu bytes are past the end of ",
                 (size_t)(off + (ptrdiff_t)n - (ptrdiff_t)(best->offset + best->bytes)));
    else
        snprintf(buf, sizeof buf, "%zu bytes %s ", (size_t)best_dist,
                 before ? "before the start of" : "past the end of");
    return buf + what +
           (before ? " (a negative index?)"
                   : " (an index beyond its last element: check the bounds test)");
}

/* "s[3][5]" for the word at arena offset off. */
std::string shared_name(size_t off)
{
    uint16_t v = g_arena_var[off / 4];
    if (!v || v > g_vars.size()) return "shared memory";
    const SharedVar &s = g_vars[v - 1];
    std::string name = s.dynamic ? (s.name.empty() ? "dynamic shared memory" : s.name) : s.name;
    char buf[96];
    size_t i = (off - s.offset) / (s.elem ? s.elem : 1);
    if (s.rank == 0 && !s.dynamic) return "__shared__ " + name;
    if (s.rank <= 1) snprintf(buf, sizeof buf, "[%zu]", i);
    else if (s.rank == 2) snprintf(buf, sizeof buf, "[%zu][%zu]", i / s.ext[1], i % s.ext[1]);
    else
        snprintf(buf, sizeof buf, "[%zu][%zu][%zu]", i / (s.ext[1] * s.ext[2]), i / s.ext[2] % s.ext[1],
                 i % s.ext[2]);
    return (s.dynamic ? "extern __shared__ " : "__shared__ ") + name + buf;
}

std::string thread_text(int tid)
{
    const dim3 &b = cudasim_block_dim;
    char buf[64];
    snprintf(buf, sizeof buf, "(%u,%u,%u)", tid % b.x, tid / b.x % b.y, tid / (b.x * b.y));
    return buf;
}

/* ---- the reports ---- */

[[noreturn]] __attribute__((noinline, cold)) void report_oob(bool shared, uintptr_t a, size_t n, bool write, const void *pc)
{
    { /* (the strings are gone before abort_launch jumps away) */
        char who[256];
        describe_thread(who, sizeof who);
        bool freed = !shared && find_freed(a);
        std::string what = shared ? missed_shared(a, n) : missed_global(a, n);
        report("%s%s in %s%s: a %zu-byte %s %s (CUDA reports: an illegal memory access was "
               "encountered)",
               freed ? "use after free" : "out-of-bounds ", freed ? "" : (write ? "write" : "read"),
               who, at_line(pc).c_str(), n, write ? "write" : "read", what.c_str());
    }
    abort_launch(cudaErrorIllegalAddress);
}

/* Whether this hazard is new: each (kind, code, code) once, and each
 * (kind, source line, source line) once (several accesses of one line are
 * one report). */
std::set<std::string> g_reported_lines;
bool first_report(int kind, uint64_t a, uint64_t b, const std::string &lines)
{
    if (!g_reported.insert({((uint64_t)kind << 56) ^ a, b}).second) return false;
    if (!g_reported_lines.insert(std::to_string(kind) + "|" + lines).second) return false;
    g_hazards++;
    if (g_hazards == kMaxHazardReports + 1)
        report("more than %llu races and uninitialized reads: the rest are not reported",
               kMaxHazardReports);
    return g_hazards <= kMaxHazardReports;
}

/* Global memory: "byte 20 (4-byte element 5) of a 1024-byte cudaMalloc buffer allocated at ..." */
std::string global_name(uintptr_t a, size_t n)
{
    uintptr_t start;
    const Alloc *al = find_alloc((const void *)a, &start);
    if (!al) return "global memory";
    char buf[96];
    snprintf(buf, sizeof buf, "byte %zu (%zu-byte element %zu) of ", (size_t)(a - start), n,
             (size_t)(a - start) / (n ? n : 1));
    return buf + buffer_text(*al);
}

__attribute__((noinline, cold)) void report_uninit(uintptr_t a, size_t n, const void *pc)
{
    if (g_reported.count({((uint64_t)1 << 56) ^ pc_id(pc), 0})) return;
    if (!first_report(1, (uint64_t)pc_id(pc), 0, source_line(pc))) return;
    char who[256];
    describe_thread(who, sizeof who);
    std::string what = global_name(a, n);
    report("uninitialized read in %s%s: %zu bytes at %s, which nothing has written (cudaMalloc does "
           "not clear memory: cudaMemset it, or copy data into it, first)",
           who, at_line(pc).c_str(), n, what.c_str());
}

enum Race { RAW, WAR, WAW };

/* A race between the running thread's access at pc and thread `other`'s at
 * other_pc (a pc id), on the word at a. */
__attribute__((noinline, cold)) void report_race(Race kind, bool shared, uintptr_t a, size_t n, int other, uint16_t other_wsync,
                 const void *other_code, const void *pc)
{
    (void)other_wsync;
    uint64_t mine = pc_id(pc), other_pc = pc_id(other_code);
    uint64_t lo = mine < other_pc ? mine : other_pc, hi = mine < other_pc ? other_pc : mine;
    int k = kind == WAW ? 3 : 2;
    if (g_reported.count({((uint64_t)k << 56) ^ lo, hi})) return;
    std::string my_line = source_line(pc), their_line = source_line(other_code);
    if (!first_report(k, lo, hi, std::min(my_line, their_line) + "|" + std::max(my_line, their_line)))
        return;
    std::string where = shared ? shared_name(a - (uintptr_t)g_arena) : global_name(a, n);
    std::string me = thread_text(g_tid), them = thread_text(other);
    if (my_line.empty()) my_line = "an unknown line";
    if (their_line.empty()) their_line = "an unknown line";
    const char *barrier = (other >> 5) == (g_tid >> 5) ? "__syncwarp() or __syncthreads()"
                                                      : "__syncthreads()";
    const uint3 &b = cudasim_block_idx;
    if (kind == WAW)
        report("data race in kernel %s, block (%u,%u,%u): threads %s and %s both write %s, at %s and "
               "%s, with no %s between them (which value stays depends on timing: use an atomic, "
               "or a barrier)",
               g_run.cfg->name, b.x, b.y, b.z, them.c_str(), me.c_str(), where.c_str(),
               their_line.c_str(), my_line.c_str(), barrier);
    else
        report("data race in kernel %s, block (%u,%u,%u): thread %s writes %s at %s and thread %s "
               "reads it at %s, with no %s between them (the read may see the value before or "
               "after the write)",
               g_run.cfg->name, b.x, b.y, b.z, (kind == RAW ? them : me).c_str(), where.c_str(),
               (kind == RAW ? their_line : my_line).c_str(), (kind == RAW ? me : them).c_str(),
               (kind == RAW ? my_line : their_line).c_str(), barrier);
}

/* Whether an access by thread tid (at its warp synchronization wsync) in
 * this epoch is unordered with the running thread's. */
inline bool unordered(uint16_t tid, uint16_t wsync)
{
    return tid != (uint16_t)g_tid &&
           !((tid >> 5) == (g_tid >> 5) && (int16_t)(uint16_t)(g_wsync - wsync) > 0);
}

inline void race_cell(Cell &c, bool write, const void *pc, bool shared, uintptr_t a, size_t n)
{
    const uint64_t s = g_stamp;
    if (write) {
        if (c.w_stamp == s && unordered(c.w_tid, c.w_wsync))
            report_race(WAW, shared, a, n, c.w_tid, c.w_wsync, c.w_pc, pc);
        else if (c.r_stamp == s) {
            if (unordered(c.r_tid, c.r_wsync))
                report_race(WAR, shared, a, n, c.r_tid, c.r_wsync, c.r_pc, pc);
            else if (c.r2_tid != kNone && unordered(c.r2_tid, c.r2_wsync))
                report_race(WAR, shared, a, n, c.r2_tid, c.r2_wsync, c.r2_pc, pc);
        }
        c.w_stamp = s;
        c.w_pc = pc;
        c.w_tid = (uint16_t)g_tid;
        c.w_wsync = g_wsync;
    } else {
        if (c.w_stamp == s && unordered(c.w_tid, c.w_wsync))
            report_race(RAW, shared, a, n, c.w_tid, c.w_wsync, c.w_pc, pc);
        if (c.r_stamp != s) {
            c.r_stamp = s;
            c.r_pc = pc;
            c.r_tid = (uint16_t)g_tid;
            c.r_wsync = g_wsync;
            c.r2_tid = kNone;
        } else if (c.r_tid == (uint16_t)g_tid) {
            c.r_wsync = g_wsync;
        } else if (c.r2_tid == kNone || c.r2_tid == (uint16_t)g_tid) {
            c.r2_pc = pc;
            c.r2_tid = (uint16_t)g_tid;
            c.r2_wsync = g_wsync;
        }
    }
}

/* Race cells of global memory: a hash table of the words a block touched,
 * emptied (in effect) when the next block starts. A block that touches more
 * than kGlobalWordsMax words is checked no further for races on global
 * memory. */
struct GlobalCell {
    uintptr_t word;
    unsigned long long block;
    Cell c;
};
std::vector<GlobalCell> g_gtab;
size_t g_gmask = 0;  /* the part of g_gtab in use this block, less one */
size_t g_gcount = 0;
unsigned long long g_gblock = 0;
bool g_gfull = false;
const size_t kGlobalFirst = 4096, kGlobalWordsMax = (size_t)1 << 19;

inline size_t global_hash(uintptr_t word) { return (size_t)((word * 0x9E3779B97F4A7C15ull) >> 24); }

/* The table holds what this block touched; it starts small each block (so
 * that a small block stays in the cache) and doubles as it fills. */
Cell *global_cell(uintptr_t word)
{
    unsigned long long blk = g_run.block_serial;
    if (g_gblock != blk) {
        g_gblock = blk;
        g_gcount = 0;
        g_gfull = false;
        g_gmask = kGlobalFirst - 1;
        if (g_gtab.size() < kGlobalFirst) g_gtab.resize(kGlobalFirst);
    }
    if (g_gfull) return nullptr;
    if (2 * (g_gcount + 1) > g_gmask + 1) {
        if (g_gmask + 1 >= 2 * kGlobalWordsMax) {
            g_gfull = true;
            return nullptr;
        }
        std::vector<GlobalCell> kept;
        kept.reserve(g_gcount);
        for (size_t i = 0; i <= g_gmask; i++)
            if (g_gtab[i].block == blk) {
                kept.push_back(g_gtab[i]);
                g_gtab[i].block = 0;
            }
        g_gmask = 2 * g_gmask + 1;
        if (g_gtab.size() <= g_gmask) g_gtab.resize(g_gmask + 1);
        for (const GlobalCell &e : kept) {
            size_t h = global_hash(e.word) & g_gmask;
            while (g_gtab[h].block == blk) h = (h + 1) & g_gmask;
            g_gtab[h] = e;
        }
    }
    for (size_t h = global_hash(word) & g_gmask;; h = (h + 1) & g_gmask) {
        GlobalCell &e = g_gtab[h];
        if (e.block != blk) {
            e.word = word;
            e.block = blk;
            e.c.w_stamp = e.c.r_stamp = 0;
            e.c.r2_tid = kNone;
            g_gcount++;
            return &e.c;
        }
        if (e.word == word) return &e.c;
    }
}

/* ---- the checks of one access ---- */

__attribute__((noinline)) void shared_access_any(uintptr_t a, size_t n, bool write, const void *pc);

/* The usual access: one aligned word of a __shared__ variable. */
__attribute__((noinline)) void shared_access(uintptr_t a, size_t n, bool write, const void *pc)
{
    size_t off = a - (uintptr_t)g_arena;
    if (__builtin_expect(n == 4 && !(a & 3) && off < g_arena_used && g_arena_var[off >> 2], 1))
        return race_cell(g_cells[off >> 2], write, pc, true, a, n);
    shared_access_any(a, n, write, pc);
}

__attribute__((noinline)) void shared_access_any(uintptr_t a, size_t n, bool write, const void *pc)
{
    uintptr_t base = (uintptr_t)g_arena;
    if (a < base || a - base + n > g_arena_used) report_oob(true, a, n, write, pc);
    size_t off = a - base, g0 = off >> 2, g1 = (off + n - 1) >> 2;
    uint16_t v = g_arena_var[g0];
    if (!v) report_oob(true, a, n, write, pc);
    for (size_t g = g0 + 1; g <= g1; g++)
        if (g_arena_var[g] != v) report_oob(true, a, n, write, pc);
    if (!(a & 3) && !(n & 3)) /* whole words: a cell per word */
        for (size_t g = g0; g <= g1; g++) race_cell(g_cells[g], write, pc, true, base + g * 4, n);
    else /* bytes and halves (char, __half): a cell per byte, so neighbours do not race */
        for (size_t b = off; b < off + n; b++) race_cell(g_bcells[b], write, pc, true, base + b, n);
}

__attribute__((noinline)) void global_access(uintptr_t a, size_t n, bool write, const void *pc)
{
    uint8_t *s = shadow_of(a);
    if (__builtin_expect(n == 4 && !(a & 3), 1)) { /* the usual case: one aligned word */
        uint8_t v = *s;
        if (v == SH_DONE) goto race;
        if (v == SH_FULL) {
            if (!write) report_uninit(a, n, pc);
            *s = SH_DONE;
            goto race;
        }
    }
    {
        bool uninit = false;
        uintptr_t end = a + n;
        for (uintptr_t g = a & ~(uintptr_t)3; g < end; g += 4) {
            uint8_t v = *shadow_of(g);
            uintptr_t hi = end < g + 4 ? end : g + 4;
            if (!(v & SH_ADDR) || hi - g > (uintptr_t)(v & 7)) report_oob(false, a, n, write, pc);
            if (!(v & SH_INIT)) uninit = true;
        }
        if (uninit && !write) report_uninit(a, n, pc);
        if (uninit)
            for (uintptr_t g = a & ~(uintptr_t)3; g < end; g += 4) *shadow_of(g) |= SH_INIT;
    }
race:
    if (!g_global_races) return;
    for (int i = 0; i < g_readonly_n; i++)
        if (a - g_readonly[i].lo < g_readonly[i].n) return;
    if (!(a & 3) && !(n & 3)) {
        for (uintptr_t g = a; g < a + n; g += 4)
            if (Cell *c = global_cell(g >> 2)) race_cell(*c, write, pc, false, g, n);
    } else {
        for (uintptr_t b = a; b < a + n; b++)
            if (Cell *c = global_cell(b | (1ull << 63))) race_cell(*c, write, pc, false, b, n);
    }
}

/* The hooks stay small (no stack frame) for the accesses that are neither
 * shared nor global memory: a thread's locals, its parameters. */
__attribute__((always_inline)) inline void on_access(uintptr_t a, size_t n, bool write,
                                                     const void *pc)
{
    if (a - g_sh_lo < g_sh_span) return shared_access(a, n, write, pc);
    if (a - g_rg_lo < g_rg_span) return global_access(a, n, write, pc);
}

/* ---- faults ------------------------------------------------------------------ */

char g_altstack[64 * 1024];

/* The program's executable code (its PT_LOAD segments that execute), found
 * when the fault handler is installed, for fault_line. */
uintptr_t g_exe_base = 0, g_exe_lo = 0, g_exe_hi = 0;

int note_exe(struct dl_phdr_info *info, size_t, void *)
{
    if (info->dlpi_name && info->dlpi_name[0]) return 0; /* a shared library */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
        uintptr_t lo = info->dlpi_addr + ph.p_vaddr, hi = lo + ph.p_memsz;
        if (!g_exe_lo || lo < g_exe_lo) g_exe_lo = lo;
        if (hi > g_exe_hi) g_exe_hi = hi;
    }
    g_exe_base = info->dlpi_addr;
    return 1;
}

/* " at file:line" of the instruction that faulted, into buf ("" if it is not
 * the program's own code or has no line), for a fault in host code. It runs
 * in the signal handler: system calls and the formatting of numbers only,
 * and addr2line in a process of its own. */
void fault_line(void *uctx, char *buf, size_t size)
{
    buf[0] = '\0';
#if defined(__x86_64__) && defined(REG_RIP)
    uintptr_t pc = (uintptr_t)((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP];
    if (pc < g_exe_lo || pc >= g_exe_hi || size < 16) return;
    char exe[64], hex[32];
    snprintf(exe, sizeof exe, "/proc/%d/exe", (int)getpid());
    snprintf(hex, sizeof hex, "0x%lx", (unsigned long)(pc - g_exe_base));
    int fd[2];
    if (pipe(fd) != 0) return;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 2);
        close(fd[0]);
        char *argv[] = {(char *)"addr2line", (char *)"-e", exe, hex, nullptr};
        execvp("addr2line", argv);
        _exit(127);
    }
    close(fd[1]);
    char text[512];
    size_t got = 0;
    ssize_t n;
    while (pid > 0 && got < sizeof text - 1 && (n = read(fd[0], text + got, sizeof text - 1 - got)) > 0)
        got += (size_t)n;
    close(fd[0]);
    if (pid > 0) waitpid(pid, nullptr, 0);
    text[got] = '\0';
    size_t len = strcspn(text, "\n");
    text[len] = '\0';
    char *disc = strstr(text, " (discriminator");
    if (disc) *disc = '\0';
    len = strlen(text);
    if (len < 3 || text[0] == '?' || strcmp(text + len - 2, ":0") == 0 || strcmp(text + len - 2, ":?") == 0)
        return;
    /* A file under the current folder by its relative name, as reports say. */
    char cwd[1024];
    const char *shown = text;
    if (getcwd(cwd, sizeof cwd - 1)) {
        size_t c = strlen(cwd);
        if (strncmp(text, cwd, c) == 0 && text[c] == '/') shown = text + c + 1;
    }
    snprintf(buf, size, "; the access is at %s", shown);
#else
    (void)uctx;
    (void)size;
#endif
}

/* Host code touched a buffer's mapping outside any device operation: say
 * what happened, in one line written straight to stderr (the program is
 * about to die, so even with reports silenced; and without stdio, which the
 * faulting code may have been using). */
void report_host_access(uintptr_t a, uintptr_t start, const Alloc &al, void *uctx)
{
    const char *did = "read or wrote";
#if defined(__x86_64__) && defined(REG_ERR)
    /* The page fault's error code: bit 1 is set for a write. */
    did = ((ucontext_t *)uctx)->uc_mcontext.gregs[REG_ERR] & 2 ? "wrote" : "read";
#else
    (void)uctx;
#endif
    const char *kind = al.device ? "cudaMalloc" : "cudaMallocHost";
    char where[160], msg[640];
    if (a >= start && a < start + al.size)
        snprintf(where, sizeof where, "byte %zu of a %zu-byte %s buffer", (size_t)(a - start),
                 al.size, kind);
    else if (a >= start)
        snprintf(where, sizeof where, "%zu bytes past the end of a %zu-byte %s buffer",
                 (size_t)(a - start - al.size), al.size, kind);
    else
        snprintf(where, sizeof where, "%zu bytes before the start of a %zu-byte %s buffer",
                 (size_t)(start - a), al.size, kind);
    char line[600];
    fault_line(uctx, line, sizeof line);
    int n;
    if (al.device)
        n = snprintf(msg, sizeof msg,
                     "cudasim: host code %s device memory at %p (%s): on a GPU the CPU cannot "
                     "dereference device pointers; copy the data with cudaMemcpy first%s\n",
                     did, (void *)a, where, line);
    else
        n = snprintf(msg, sizeof msg,
                     "cudasim: host code %s memory at %p (%s): an index beyond the buffer%s\n",
                     did, (void *)a, where, line);
    if (n > (int)sizeof msg - 1) n = (int)sizeof msg - 1;
    ssize_t ignored = write(STDERR_FILENO, msg, (size_t)n);
    (void)ignored;
}

void on_fault(int sig, siginfo_t *info, void *uctx)
{
    uintptr_t a = (uintptr_t)info->si_addr, start = 0;
    Alloc *al = sig == SIGSEGV || sig == SIGBUS ? mapping_of(a, &start) : nullptr;
    if (al && g_device_ops.load() > 0 && al->guarded && a < (uintptr_t)al->map + data_bytes(*al) &&
        sig == SIGSEGV && (info->si_code == SEGV_ACCERR || info->si_code == 4 /* SEGV_PKUERR */)) {
        /* A device operation touched a buffer still shut: open it, and the
         * access goes on (a buffer opened already was opened by another
         * thread just now: the access goes on too). */
        open_buffer(start, *al);
        return;
    }
    if (!g_run.in_kernel) {
        if (al && g_device_ops.load() == 0) report_host_access(a, start, *al, uctx);
        if (!al && g_device_ops.load() == 0 && sig == SIGSEGV) {
            uintptr_t fs;
            if (const Freed *f = find_freed(a, &fs)) {
                char msg[1000], line[600];
                fault_line(uctx, line, sizeof line);
                int n = snprintf(msg, sizeof msg,
                                 "cudasim: host code touched device memory at %p, in a %zu-byte "
                                 "%s buffer that cudaFree had freed (a use after free%s)%s\n",
                                 (void *)a, f->size, f->managed ? "cudaMallocManaged" : "cudaMalloc",
                                 f->managed ? "" : "; on a GPU the CPU cannot dereference device "
                                                   "pointers at all", line);
                if (n > (int)sizeof msg - 1) n = (int)sizeof msg - 1;
                ssize_t ignored = write(STDERR_FILENO, msg, (size_t)n);
                (void)ignored;
            }
        }
        signal(sig, SIG_DFL); /* crash as usual: the access faults again */
        return;
    }
    g_checking = false;
    char who[256];
    describe_thread(who, sizeof who);
    const void *ip = nullptr;
    bool wrote = false;
#if defined(__x86_64__) && defined(REG_RIP)
    ip = (const void *)((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP];
    wrote = ((ucontext_t *)uctx)->uc_mcontext.gregs[REG_ERR] & 2;
#endif
    { /* (the strings are gone before abort_launch jumps away) */
        std::string line = at_line(ip, true), what;
        const char *kind = wrote ? "write" : "read";
        if (sig == SIGFPE) {
            report("integer division by zero in %s%s (a GPU does not stop there, it gives an undefined "
                   "result; the simulator stops the kernel so you find it) (reported as an unspecified "
                   "launch failure)",
                   who, line.c_str());
        } else if (in_region(a) && (al || find_freed(a))) {
            what = missed_global(a, 1);
            report("%s%s in %s%s: a %s %s (CUDA reports: an illegal memory access was encountered)",
                   find_freed(a) ? "use after free" : "out-of-bounds ", find_freed(a) ? "" : kind, who,
                   line.c_str(), kind, what.c_str());
        } else if (al) {
            report("out-of-bounds %s in %s%s: a %s %lld bytes past the end of a %zu-byte %s buffer (an "
                   "index beyond its last element: check the bounds test) (CUDA reports: an illegal "
                   "memory access was encountered)",
                   kind, who, line.c_str(), kind, (long long)(a - (start + al->size)), al->size,
                   alloc_name(al->device, al->managed));
        } else if (a - g_sh_lo < g_sh_span) {
            what = missed_shared(a, 1);
            report("out-of-bounds %s in %s%s: a %s %s (CUDA reports: an illegal memory access was "
                   "encountered)",
                   kind, who, line.c_str(), kind, what.c_str());
        } else if (a < 65536) {
            report("invalid %s in %s%s: a NULL pointer dereference (address %p) (CUDA reports: an "
                   "illegal memory access was encountered)",
                   kind, who, line.c_str(), info->si_addr);
        } else {
            report("invalid %s in %s%s: an invalid memory access at address %p, in no device buffer "
                   "(CUDA reports: an illegal memory access was encountered)",
                   kind, who, line.c_str(), info->si_addr);
        }
    }
    abort_launch(sig == SIGFPE ? cudaErrorLaunchFailure : cudaErrorIllegalAddress);
}

#if CUDASIM_ASAN
/* When AddressSanitizer stops the program inside a kernel, say which thread. */
void on_asan_death()
{
    if (!g_run.in_kernel) return;
    char who[256];
    describe_thread(who, sizeof who);
    fprintf(stderr, "cudasim: AddressSanitizer's report above is about %s\n", who);
}
#endif

void install_fault_handler()
{
    static bool done = false;
    if (done) return;
    done = true;
#if CUDASIM_ASAN
    __sanitizer_set_death_callback(on_asan_death);
#endif
    g_page = (size_t)sysconf(_SC_PAGESIZE);
    dl_iterate_phdr(note_exe, nullptr);
#if CUDASIM_HAVE_PKEYS
    /* The key starts denied to this thread (and other threads are denied
     * every key but 0 from their start, or from this one's). */
    g_pkey = pkey_alloc(0, PKEY_DISABLE_ACCESS);
    const char *env = getenv("CUDASIM_PKEYS");
    g_use_pkeys = g_pkey >= 0 && !(env && strcmp(env, "0") == 0);
#endif
    stack_t ss;
    ss.ss_sp = g_altstack;
    ss.ss_size = sizeof g_altstack;
    ss.ss_flags = 0;
    sigaltstack(&ss, nullptr);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
    sigaction(SIGFPE, &sa, nullptr);
}

/* ---- fibers -------------------------------------------------------------------- */

/* From a fiber back to the scheduler, which runs on the main stack. */
void yield()
{
    Thread *t = g_run.current;
#if CUDASIM_ASAN
    __sanitizer_start_switch_fiber(&t->asan_fake_stack, g_main_stack_bottom, g_main_stack_size);
#endif
    g_run.on_fiber = false;
#if CUDASIM_FAST_SWITCH
    cudasim_switch(&t->sp, g_run.scheduler_sp);
#else
    swapcontext(&t->ctx, &g_run.scheduler);
#endif
    g_run.on_fiber = true;
#if CUDASIM_ASAN
    __sanitizer_finish_switch_fiber(t->asan_fake_stack, nullptr, nullptr);
#endif
}

void fiber_main()
{
#if CUDASIM_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &g_main_stack_bottom, &g_main_stack_size);
#endif
    g_run.on_fiber = true;
    g_run.args->run();
    g_run.current->state = DONE;
    g_run.on_fiber = false;
#if CUDASIM_ASAN
    __sanitizer_start_switch_fiber(nullptr, g_main_stack_bottom, g_main_stack_size);
#endif
#if CUDASIM_FAST_SWITCH
    void *dead;
    cudasim_switch(&dead, g_run.scheduler_sp); /* never comes back */
#else
    setcontext(&g_run.scheduler);
#endif
    __builtin_unreachable();
}

char *stack_for(int i)
{
    while ((int)g_stack_pool.size() <= i) {
        char *s = (char *)mmap(nullptr, kStackBytes + g_page, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (s == MAP_FAILED) return nullptr;
        mprotect(s, g_page, PROT_NONE); /* a stack overflow faults */
        g_stack_pool.push_back(s + g_page);
    }
    return g_stack_pool[i];
}

void set_coordinates(const Thread &t)
{
    cudasim_thread_idx = t.idx;
    g_tid = (int)(&t - g_run.threads.data());
    g_wsync = t.wsync;
}

void run_fiber(Thread &t, int i)
{
    g_run.current = &t;
    set_coordinates(t);
    if (!t.started) {
        t.started = true;
        t.stack = stack_for(i);
        if (!t.stack) {
            report("kernel %s: out of memory for the simulator's thread stacks", g_run.cfg->name);
            abort_launch(cudaErrorLaunchOutOfResources);
        }
#if CUDASIM_ASAN
        /* A reused stack still carries the poison of its last fiber's frames. */
        __asan_unpoison_memory_region(t.stack, kStackBytes);
#endif
#if CUDASIM_FAST_SWITCH
        /* A frame that cudasim_switch "returns" into fiber_main from:
         * [fp control words][r15 r14 r13 r12 rbx rbp][fiber_main][0] */
        uint64_t *top = (uint64_t *)(t.stack + kStackBytes);
        top -= 2;
        top[1] = 0;                         /* fiber_main's return address: never used */
        top[0] = (uint64_t)(uintptr_t)fiber_main;
        top -= 6;
        for (int r = 0; r < 6; r++) top[r] = 0;
        top -= 1;
        top[0] = 0x1f80 | ((uint64_t)0x037f << 32); /* default MXCSR and x87 control word */
        t.sp = top;
#else
        getcontext(&t.ctx);
        t.ctx.uc_stack.ss_sp = t.stack;
        t.ctx.uc_stack.ss_size = kStackBytes;
        t.ctx.uc_link = nullptr;
        makecontext(&t.ctx, fiber_main, 0);
#endif
    }
    t.state = READY;
#if CUDASIM_ASAN
    __sanitizer_start_switch_fiber(&g_main_fake_stack, t.stack, kStackBytes);
#endif
#if CUDASIM_FAST_SWITCH
    cudasim_switch(&g_run.scheduler_sp, t.sp);
#else
    swapcontext(&g_run.scheduler, &t.ctx);
#endif
    g_run.on_fiber = false;
#if CUDASIM_ASAN
    __sanitizer_finish_switch_fiber(g_main_fake_stack, nullptr, nullptr);
#endif
}

void range_text(const std::vector<int> &ids, char *buf, size_t n)
{
    /* "0-31, 64" */
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ids.size() && used < n;) {
        size_t j = i;
        while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) j++;
        used += snprintf(buf + used, n - used, "%s%d", used ? ", " : "", ids[i]);
        if (j > i && used < n) used += snprintf(buf + used, n - used, "-%d", ids[j]);
        i = j + 1;
        if (used > n - 40) {
            snprintf(buf + used, n - used, ", ...");
            break;
        }
    }
}

/* Settle the warp operations whose lanes have all arrived. Lanes of one warp
 * may wait in separate groups (half-warp masks, say): each group, the lanes
 * named in a waiting lane's mask, goes on when all of them wait at an
 * operation with that same mask. A lane of the group that returned or waits
 * at __syncthreads can never come: that is reported (and the launch fails). */
bool resolve_warps()
{
    bool progress = false;
    int n = g_run.nthreads;
    for (int w = 0; w * 32 < n; w++) {
        int base = w * 32, lanes = n - base < 32 ? n - base : 32;
        for (int first = 0; first < lanes; first++) {
            Thread &lead = g_run.threads[base + first];
            if (lead.state != AT_WARP) continue;
            unsigned mask = lead.mask;
            bool ready = true;
            for (int l = 0; l < lanes && ready; l++) {
                if (!(mask >> l & 1)) continue;
                Thread &t = g_run.threads[base + l];
                if (t.state == DONE || t.state == AT_BARRIER) {
                    report("kernel %s, block (%u,%u,%u): lane %d of warp %d %s, but the warp "
                           "operation at %s:%d waits for it (mask 0x%08x): a warp operation "
                           "inside a branch that not every lane of its mask takes",
                           g_run.cfg->name, cudasim_block_idx.x, cudasim_block_idx.y,
                           cudasim_block_idx.z, l, w,
                           t.state == DONE ? "returned" : "waits at __syncthreads", lead.file,
                           lead.line, mask);
                    abort_launch(cudaErrorLaunchFailure);
                }
                ready = t.state == AT_WARP && t.mask == mask && t.op == lead.op;
            }
            if (!ready) continue;
            uint16_t sync = ++g_warp_sync[w]; /* these lanes are now ordered (race checks) */
            unsigned long long vote = 0;
            bool any = false, all = true;
            for (int l = 0; l < lanes; l++)
                if (mask >> l & 1) {
                    Thread &t = g_run.threads[base + l];
                    vote |= (unsigned long long)(t.value != 0) << l;
                    any = any || t.value != 0;
                    all = all && t.value != 0;
                }
            for (int l = 0; l < lanes; l++) {
                if (!(mask >> l & 1)) continue;
                Thread &t = g_run.threads[base + l];
                int width = t.width, seg = l & ~(width - 1), src = l;
                switch (t.op) {
                case cudasim::SHFL_IDX: src = seg + (t.arg & (width - 1)); break;
                case cudasim::SHFL_UP: src = l - t.arg >= seg ? l - t.arg : l; break;
                case cudasim::SHFL_DOWN: src = l + t.arg < seg + width ? l + t.arg : l; break;
                case cudasim::SHFL_XOR:
                    src = (l ^ t.arg) < seg + width ? (l ^ t.arg) : l;
                    break;
                default: break;
                }
                if (src >= lanes) src = l;
                switch (t.op) {
                case cudasim::BALLOT: t.result = vote; break;
                case cudasim::ANY: t.result = any; break;
                case cudasim::ALL: t.result = all; break;
                case cudasim::WARP_SYNC: t.result = 0; break;
                default: t.result = g_run.threads[base + src].value; break;
                }
                t.wsync = sync;
                t.state = READY;
            }
            progress = true;
        }
    }
    return progress;
}

/* Why nothing can go on: two lanes of a warp whose operations wait for each
 * other (different masks or operations), for the report. */
void explain_stuck(char *buf, size_t size)
{
    snprintf(buf, size, "the threads wait for one another and none can go on");
    for (int i = 0; i < g_run.nthreads; i++) {
        const Thread &a = g_run.threads[i];
        if (a.state != AT_WARP) continue;
        int base = i - i % 32;
        for (int l = 0; l < 32 && base + l < g_run.nthreads; l++) {
            const Thread &b = g_run.threads[base + l];
            if ((a.mask >> l & 1) && b.state == AT_WARP && (b.mask != a.mask || b.op != a.op)) {
                snprintf(buf, size,
                         "lane %d of warp %d waits at the warp operation at %s:%d with mask "
                         "0x%08x, which names lane %d, and lane %d waits at the one at %s:%d "
                         "with mask 0x%08x: every lane named in a mask must reach the same "
                         "operation",
                         i % 32, i / 32, a.file, a.line, a.mask, l, l, b.file, b.line, b.mask);
                return;
            }
        }
    }
}

/* Release a barrier that every live thread of the block has reached; returns
 * false when there is none, and reports a barrier that cannot be released
 * (1 in *bad; the caller aborts, after the vectors here are gone). */
bool resolve_barrier(int *bad)
{
    *bad = 0;
    static std::vector<int> waiting, done, elsewhere; /* kept: no allocation per barrier */
    waiting.clear();
    done.clear();
    elsewhere.clear();
    const Thread *first = nullptr;
    for (int i = 0; i < g_run.nthreads; i++) {
        Thread &t = g_run.threads[i];
        if (t.state == AT_BARRIER) {
            if (!first) first = &t;
            if (t.line != first->line || (t.file != first->file && strcmp(t.file, first->file) != 0))
                elsewhere.push_back(i);
            else
                waiting.push_back(i);
        } else if (t.state == DONE) {
            done.push_back(i);
        } else {
            return false; /* someone is still at a warp operation */
        }
    }
    if (!first) return false;
    char a[200], b[200];
    if (!done.empty()) {
        range_text(waiting, a, sizeof a);
        range_text(done, b, sizeof b);
        report("kernel %s, block (%u,%u,%u): the __syncthreads at %s:%d was reached by threads "
               "%s of %d, but threads %s returned without reaching it: every thread of a block "
               "must reach every __syncthreads (do not put one inside a branch, or return "
               "early, for some threads only)",
               g_run.cfg->name, cudasim_block_idx.x, cudasim_block_idx.y, cudasim_block_idx.z,
               first->file, first->line, a, g_run.nthreads, b);
        *bad = 1;
        return false;
    }
    if (!elsewhere.empty()) {
        range_text(waiting, a, sizeof a);
        range_text(elsewhere, b, sizeof b);
        const Thread &o = g_run.threads[elsewhere[0]];
        report("kernel %s, block (%u,%u,%u): threads %s wait at the __syncthreads at %s:%d, "
               "threads %s at the one at %s:%d: a barrier inside a branch that threads take "
               "differently",
               g_run.cfg->name, cudasim_block_idx.x, cudasim_block_idx.y, cudasim_block_idx.z, a,
               first->file, first->line, b, o.file, o.line);
        *bad = 1;
        return false;
    }
    /* __syncthreads_count, _and, _or: every thread gets the block's answer. */
    unsigned long long count = 0;
    for (int i : waiting) count += g_run.threads[i].value != 0;
    unsigned long long result = first->op == cudasim::SYNC_COUNT ? count
                                : first->op == cudasim::SYNC_AND ? count == waiting.size()
                                : first->op == cudasim::SYNC_OR  ? count != 0
                                                                 : 0;
    for (int i : waiting) {
        g_run.threads[i].result = result;
        g_run.threads[i].state = READY;
    }
    g_stamp++; /* a new epoch: what came before is ordered with what comes after */
    printf_flush();
    return true;
}

void run_block_fibers()
{
    for (int i = 0; i < g_run.nthreads; i++) {
        Thread &t = g_run.threads[i];
        t.state = READY;
        t.started = false;
        t.wsync = 0;
    }
    g_warp_sync.assign((size_t)(g_run.nthreads + 31) / 32, 0);
    /* Odd blocks run their threads last to first: a missing barrier then shows
     * whichever neighbour a thread reads (a thread runs before the one whose
     * value it needs, and finds the shared memory's NaN fill). */
    bool reverse = g_run.block_serial & 1;
    for (;;) {
        bool ran = false;
        for (int k = 0; k < g_run.nthreads; k++) {
            int i = reverse ? g_run.nthreads - 1 - k : k;
            if (g_run.threads[i].state == READY) {
                run_fiber(g_run.threads[i], i);
                ran = true;
            }
        }
        bool all_done = true;
        for (int i = 0; i < g_run.nthreads; i++) all_done &= g_run.threads[i].state == DONE;
        if (all_done) return;
        if (resolve_warps()) continue;
        int bad;
        if (resolve_barrier(&bad)) continue;
        if (bad) abort_launch(cudaErrorLaunchFailure);
        if (!ran) {
            char why[512];
            explain_stuck(why, sizeof why);
            report("kernel %s, block (%u,%u,%u): %s", g_run.cfg->name, cudasim_block_idx.x,
                   cudasim_block_idx.y, cudasim_block_idx.z, why);
            abort_launch(cudaErrorLaunchFailure);
        }
    }
}

/* A kernel without barriers: its threads are plain calls, one after another. */
void run_block_plain()
{
    const dim3 &b = g_run.cfg->block;
    g_run.current = nullptr;
    bool reverse = g_run.block_serial & 1; /* as in run_block_fibers */
    unsigned count = b.x * b.y * b.z;
    g_wsync = 0;
    g_run.plain_done = 0;
    for (unsigned k = 0; k < count; k++) {
        unsigned i = reverse ? count - 1 - k : k;
        cudasim_thread_idx = uint3{i % b.x, i / b.x % b.y, i / (b.x * b.y)};
        g_tid = (int)i;
        g_run.args->run();
        g_run.plain_done++;
    }
}

/* The name the translator registered a kernel under: without namespaces
 * and template arguments. */
std::string kernel_base(const char *name)
{
    std::string base(name);
    size_t lt = base.find('<');
    if (lt != std::string::npos) base.resize(lt);
    size_t colon = base.rfind("::");
    if (colon != std::string::npos) base = base.substr(colon + 2);
    return base;
}

/* The device buffers a launch's arguments point into (start addresses). */
std::vector<uintptr_t> g_arg_buffers;
void note_arg_buffer(const void *p)
{
    uintptr_t start;
    const Alloc *a = find_alloc(p, &start);
    if (a && a->device) g_arg_buffers.push_back(start);
}

/* g_readonly: the buffers that only pointers to const reach. */
void find_read_only_buffers(const cudasim::Args *args)
{
    g_readonly_n = 0;
    if (!g_global_races) return;
    g_arg_buffers.clear();
    args->writable_pointers(note_arg_buffer);
    std::vector<uintptr_t> writable = g_arg_buffers;
    g_arg_buffers.clear();
    args->pointers(note_arg_buffer);
    for (uintptr_t start : g_arg_buffers) {
        if (std::find(writable.begin(), writable.end(), start) != writable.end()) continue;
        bool seen = false;
        for (int i = 0; i < g_readonly_n; i++) seen = seen || g_readonly[i].lo == start;
        if (seen || g_readonly_n == 8) continue;
        g_readonly[g_readonly_n++] = ReadOnly{start, g_allocs[start].size};
    }
}

const size_t *find_symbol(const void *p, uintptr_t *start);

/* A pointer argument into host memory (malloc, new, a host array or
 * variable): a GPU's kernel cannot dereference it, and faults where it does.
 * Here the kernel could reach it: reported once per kernel, and it runs. */
void check_host_pointer(const void *p)
{
    uintptr_t a = (uintptr_t)p, start;
    if (!p || a - g_rg_lo < g_rg_span || a - g_sh_lo < g_sh_span || find_alloc(p) ||
        find_symbol(p, &start))
        return;
    static std::set<std::string> told;
    if (!told.insert(g_run.cfg->name).second) return;
    g_hazards++;
    report("kernel %s is given %p as a pointer argument, which is host memory (malloc, new, or "
           "a host array or variable), not device memory: on most GPU machines the kernel "
           "cannot dereference it and fails with an illegal address where it does; pass "
           "the cudaMalloc (or cudaMallocManaged) pointer",
           g_run.cfg->name, p);
}

/* Unknown kernels get fibers (the safe choice) and are taken as not
 * instrumented (their buffers count as written after the launch). */
KernelInfo kernel_info(const char *name)
{
    auto it = kernels().find(kernel_base(name));
    if (it == kernels().end()) {
        KernelInfo unknown;
        unknown.barriers = 1;
        unknown.instrumented = 0;
        return unknown;
    }
    return it->second;
}

/* A kernel that is not instrumented may have written any buffer it was given. */
void mark_argument_written(const void *p)
{
    uintptr_t start;
    const Alloc *a = find_alloc(p, &start);
    if (a && a->device) mark_written((const void *)start, a->size);
}

cudaError_t check_config(const cudasim::LaunchConfig *c)
{
    const dim3 &g = c->grid, &b = c->block;
    unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
    if (b.x == 0 || b.y == 0 || b.z == 0 || g.x == 0 || g.y == 0 || g.z == 0) {
        report("kernel %s: launched with an empty grid (%u,%u,%u) or block (%u,%u,%u) "
               "(CUDA reports: invalid configuration argument)",
               c->name, g.x, g.y, g.z, b.x, b.y, b.z);
        return cudaErrorInvalidConfiguration;
    }
    if (threads > (unsigned long long)kMaxThreadsPerBlock || b.x > (unsigned)kMaxBlockDim[0] ||
        b.y > (unsigned)kMaxBlockDim[1] || b.z > (unsigned)kMaxBlockDim[2]) {
        report("kernel %s: a block of %llu threads (%u x %u x %u); a block may have at most "
               "%d threads, and at most %d in z (CUDA reports: invalid configuration argument)",
               c->name, threads, b.x, b.y, b.z, kMaxThreadsPerBlock, kMaxBlockDim[2]);
        return cudaErrorInvalidConfiguration;
    }
    if (g.y > (unsigned)kMaxGridDim[1] || g.z > (unsigned)kMaxGridDim[2] ||
        g.x > (unsigned)kMaxGridDim[0]) {
        report("kernel %s: a grid of (%u,%u,%u) blocks; y and z may be at most %d (CUDA "
               "reports: invalid configuration argument)",
               c->name, g.x, g.y, g.z, kMaxGridDim[1]);
        return cudaErrorInvalidConfiguration;
    }
    size_t limit = kSharedPerBlock;
    auto it = g_dynamic_limit.find(c->fn);
    if (it != g_dynamic_limit.end()) limit = (size_t)it->second;
    if (c->shared_bytes > limit) {
        report("kernel %s: asks for %zu bytes of dynamic shared memory; the limit is %zu "
               "without cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) and "
               "%zu with it (CUDA reports: invalid argument)",
               c->name, c->shared_bytes, limit, kSharedPerBlockOptin);
        return cudaErrorInvalidValue;
    }
    if (!stream_ok(c->stream)) {
        report("kernel %s: launched on a stream that does not exist (destroyed?) (CUDA reports: "
               "invalid resource handle)",
               c->name);
        return cudaErrorInvalidResourceHandle;
    }
    return cudaSuccess;
}

/* Run a launch whose configuration has been checked: now, or as a node of a
 * graph. */
cudaError_t run_kernel(const cudasim::LaunchConfig *cfg, const cudasim::Args *args)
{
    DeviceOp op;
    g_run.cfg = cfg;
    g_run.args = args;
    g_run.error = cudaSuccess;
    KernelInfo info = kernel_info(cfg->name);
    g_run.fibers = info.barriers;
    g_run.instrumented = info.instrumented;
    unsigned long long launches = info.instrumented ? ++kernels()[kernel_base(cfg->name)].launches : 0;
    const cudaError_t sticky_before = g_sticky, last_before = g_last;
    if (!arena_init()) {
        report("kernel %s: no memory for the simulator's shared memory", cfg->name);
        return fail(cudaErrorLaunchOutOfResources);
    }
    check_level();
    g_global_races = g_check_level >= 3 || (g_check_level == 2 && launches <= kGlobalRaceLaunches);
    find_read_only_buffers(args);
    args->pointer_arguments(check_host_pointer);
restart:
    g_run.need_fibers = false;
    g_run.nthreads = (int)(cfg->block.x * cfg->block.y * cfg->block.z);
    if (g_run.fibers) {
        if ((int)g_run.threads.size() < g_run.nthreads) g_run.threads.resize(g_run.nthreads);
        for (int i = 0; i < g_run.nthreads; i++) {
            Thread &t = g_run.threads[i];
            t.idx.x = i % cfg->block.x;
            t.idx.y = i / cfg->block.x % cfg->block.y;
            t.idx.z = i / (cfg->block.x * cfg->block.y);
        }
    }
    g_run.static_shared = 0;
    printf_begin(g_run.nthreads); /* (a restart forgets what its first try printed) */
    arena_begin(cfg);
    cudasim_grid_dim = cfg->grid;
    cudasim_block_dim = cfg->block;
    /* With mprotect, open the buffers passed as arguments now: cheaper than
     * a fault each (those reached otherwise fault, and open then). */
    if (!g_use_pkeys) args->pointers(open_for_device);

    g_run.first_block = g_run.block_serial + 1;
    const unsigned long long first_block = g_run.first_block;
    g_run.in_kernel = true;
    g_run.on_fiber = false;
    if (sigsetjmp(g_run.abort_env, 1) != 0) {
#if CUDASIM_ASAN
        if (g_run.on_fiber) __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
        g_run.on_fiber = false;
        g_checking = false;
        /* Back from the fault handler, which ran with the signal's PKRU. */
        allow_device_memory(true);
        printf_flush(); /* what the block printed before it stopped */
    } else {
        g_checking = g_run.instrumented && g_check_level > 0;
        for (unsigned z = 0; z < cfg->grid.z; z++)
            for (unsigned y = 0; y < cfg->grid.y; y++)
                for (unsigned x = 0; x < cfg->grid.x; x++) {
                    cudasim_block_idx = uint3{x, y, z};
                    g_run.block_serial++;
                    g_stamp = (uint64_t)g_run.block_serial << 24;
                    arena_block();
                    if (g_run.fibers)
                        run_block_fibers();
                    else
                        run_block_plain();
                    printf_flush();
                }
        g_checking = false;
        g_run.in_kernel = false;
        if (!g_run.instrumented) {
            /* Its accesses were not checked: look for writes around its
             * buffers, and count what it was given as written. */
            args->pointers(mark_argument_written);
            uintptr_t start;
            bool before = false;
            const Alloc *bad = check_canaries(&start, &before);
            if (bad) {
                report("kernel %s wrote %s %s (build it with the simulator's flags to learn "
                       "which thread) (CUDA reports: an illegal memory access was encountered)",
                       cfg->name, before ? "before the start of" : "past the end of",
                       buffer_text(*bad).c_str());
                g_sticky = g_last = g_run.error = cudaErrorIllegalAddress;
            }
        }
    }
    g_run.in_kernel = false;
    if (g_run.need_fibers && !g_run.fibers && g_run.block_serial == first_block &&
        g_run.plain_done == 0) {
        /* It reached a barrier the translator did not see (in a function of
         * another file): before any thread of the first block finished, so
         * it starts again, with fibers. */
        kernels()[kernel_base(cfg->name)].barriers = 1;
        g_run.fibers = true;
        g_sticky = sticky_before;
        g_last = last_before;
        g_run.error = cudaSuccess;
        goto restart;
    }
    return g_run.error;
}

/* The line of the program that called into the simulator, for a report made
 * outside a kernel: the innermost frame of the call stack whose source is
 * neither the simulator's nor the system's. "" inside a kernel, or without
 * debug information. */
std::string host_call_site()
{
    if (g_run.in_kernel) return "";
    void *frames[48];
    int n = backtrace(frames, 48);
    for (int i = 1; i < n; i++) {
        std::string l = source_line(frames[i]);
        if (l.empty()) continue;
        if (l.find("lib/cudasim/") != std::string::npos || l.compare(0, 5, "/usr/") == 0 ||
            l.find("/include/c++/") != std::string::npos || l.compare(0, 2, "??") == 0)
            continue;
        return l;
    }
    return "";
}

} // namespace

/* ---- the kernel-side entry points ----------------------------------------------- */

extern "C" int cudasim_register_kernel(const char *name, int uses_barriers, int instrumented)
{
    KernelInfo &k = kernels()[name];
    k.barriers = k.barriers || uses_barriers;
    k.instrumented = k.instrumented && instrumented;
    return 0;
}

extern "C" cudaError_t cudasim_launch_kernel(const cudasim::LaunchConfig *cfg,
                                             const cudasim::Args *args)
{
    install_fault_handler();
    Stream *capture = capture_of(cfg->stream);
    if (!capture) g_launches++; /* a recorded launch counts each time its graph runs */
    if (g_sticky) return fail(g_sticky);
    /* The configuration is checked when the launch is issued, captured or not. */
    cudaError_t e = check_config(cfg);
    if (e) return refuse(cfg->stream, e);
    std::string what = std::string("kernel ") + cfg->name;
    Use use = stream_use(what.c_str(), cfg->stream, &e);
    if (use == REFUSED) return e;
    if (use == RECORD) {
        /* CUDA copies the parameters when the launch is issued. */
        std::shared_ptr<const cudasim::Args> kept(args->copy());
        record(*capture, what, [c = *cfg, kept] {
            g_launches++;
            return run_kernel(&c, kept.get());
        });
        return cudaSuccess;
    }
    return run_kernel(cfg, args);
}

namespace {
/* A kernel run without fibers reached a barrier or a warp operation: if no
 * thread has finished yet, run_kernel starts it again with fibers; if some
 * have, say so. */
[[noreturn]] void needs_fibers(const char *what, const char *file, int line)
{
    g_run.need_fibers = true;
    if (!(g_run.block_serial == g_run.first_block && g_run.plain_done == 0))
        report("kernel %s: %s at %s:%d, but the kernel was run without fibers (the translator did "
               "not see it, and some threads had finished: call it from the kernel or a "
               "__device__ function of the same file)",
               g_run.cfg->name, what, file, line);
    abort_launch(cudaErrorLaunchFailure);
}

int block_barrier(int op, int predicate, const char *file, int line)
{
    if (!g_run.fibers) needs_fibers("__syncthreads", file, line);
    Thread *t = g_run.current;
    t->state = AT_BARRIER;
    t->op = op;
    t->value = predicate != 0;
    t->file = file;
    t->line = line;
    yield();
    set_coordinates(*t);
    return (int)t->result;
}
} // namespace

extern "C" void cudasim_syncthreads(const char *file, int line)
{
    block_barrier(cudasim::SYNC_PLAIN, 0, file, line);
}

extern "C" int cudasim_syncthreads_op(int op, int predicate, const char *file, int line)
{
    return block_barrier(op, predicate, file, line);
}

extern "C" unsigned long long cudasim_warp_op(int op, unsigned mask, unsigned long long value,
                                              int arg, int width, const char *file, int line)
{
    if (!g_run.fibers) needs_fibers("a warp operation", file, line);
    if (width <= 0 || width > 32 || (width & (width - 1))) {
        char who[256];
        describe_thread(who, sizeof who);
        report("%s: a shuffle width of %d at %s:%d; it must be a power of 2 up to 32", who,
               width, file, line);
        abort_launch(cudaErrorLaunchFailure);
    }
    Thread *t = g_run.current;
    int lane = (int)(t - g_run.threads.data()) % 32;
    if (!(mask >> lane & 1)) {
        char who[256];
        describe_thread(who, sizeof who);
        report("%s: lane %d calls the warp operation at %s:%d with mask 0x%08x, which does not "
               "include it",
               who, lane, file, line, mask);
        abort_launch(cudaErrorLaunchFailure);
    }
    t->state = AT_WARP;
    t->op = op;
    t->mask = mask;
    t->value = value;
    t->arg = arg;
    t->width = width;
    t->file = file;
    t->line = line;
    yield();
    set_coordinates(*t);
    return t->result;
}

extern "C" void *cudasim_dynamic_shared(const char *name, size_t elem, const char *file, int line)
{
    SharedVar &d = g_vars[0];
    if (d.name.empty()) {
        d.name = name;
        d.elem = elem ? elem : 1;
        d.file = file;
        d.line = line;
    }
    return g_arena + d.offset;
}

extern "C" void *cudasim_shared_alloc(cudasim::SharedSlot *slot, const cudasim::SharedDecl *decl)
{
    g_run.static_shared += decl->bytes;
    /* With the opt-in (cudaFuncSetAttribute), a block may have up to the
     * device's opt-in maximum in all; without it, 48 KiB. */
    size_t limit = g_dynamic_limit.count(g_run.cfg->fn) ? kSharedPerBlockOptin : kSharedPerBlock;
    if (g_run.static_shared + g_run.cfg->shared_bytes > limit) {
        report("kernel %s: the __shared__ variable %s at %s:%d brings the block's shared memory "
               "to %zu bytes (%zu static + %zu dynamic); a block may use at most %zu (nvcc "
               "refuses too much static shared memory when it compiles) (CUDA reports: too many "
               "resources requested for launch)",
               g_run.cfg->name, decl->name, decl->file, decl->line,
               g_run.static_shared + g_run.cfg->shared_bytes, g_run.static_shared,
               g_run.cfg->shared_bytes, limit);
        abort_launch(cudaErrorLaunchOutOfResources);
    }
    size_t align = decl->align > 16 ? decl->align : 16;
    size_t off = (g_arena_used + align - 1) & ~(align - 1);
    if (off + decl->bytes + kRedzone > kArenaBytes || g_vars.size() >= 0xfffe) {
        report("kernel %s: too many __shared__ variables for the simulator (at %s:%d)",
               g_run.cfg->name, decl->file, decl->line);
        abort_launch(cudaErrorLaunchOutOfResources);
    }
    SharedVar v = {off, decl->bytes, decl->elem ? decl->elem : 1, decl->rank,
                   {decl->extent[0], decl->extent[1], decl->extent[2]}, decl->name, decl->file,
                   decl->line, false};
    g_vars.push_back(v);
    arena_mark(off, decl->bytes, (uint16_t)g_vars.size());
    g_arena_used = off + decl->bytes + kRedzone;
    memset(g_arena + off, 0xff, decl->bytes); /* garbage, as on a GPU */
    slot->launch = cudasim_launch_serial;
    slot->offset = off;
    return g_arena + off;
}

namespace {
/* A thread that waits for another block (a spin lock, a hand-made grid
 * barrier) or for a thread of its block past no barrier would wait forever
 * here, where a thread runs until it reaches a barrier and blocks run one
 * after another. Such a wait repeats one atomic or volatile read of one
 * address, finding the same value: after kSpinLimit times in a row, the
 * launch stops with a report instead of hanging. */
struct Spin {
    const void *pc;
    uintptr_t a;
    int tid;
    unsigned long long block;
    uint64_t value;
    unsigned long long count;
} g_spin;
const unsigned long long kSpinLimit = 50000000;

__attribute__((noinline, cold)) void report_spin(const void *pc)
{
    char who[200];
    describe_thread(who, sizeof who);
    std::string line = source_line(pc);
    report("%s%s%s: the thread read the same value at the same address %llu times in a row: it "
           "waits for a change that another thread or block would make. The simulator runs a "
           "thread until it reaches a barrier and blocks one after another, so the wait would "
           "never end; on a GPU blocks are not guaranteed to run at the same time either (wait "
           "for another block by ending the kernel and launching the next, or with a "
           "cooperative launch's grid sync) (CUDA reports: the launch timed out and was "
           "terminated)",
           who, line.empty() ? "" : " at ", line.c_str(), kSpinLimit);
    abort_launch(cudaErrorLaunchTimeout);
}

inline void spin_check(uintptr_t a, size_t n, const void *pc)
{
    Spin &s = g_spin;
    if (pc != s.pc || a != s.a || g_tid != s.tid || g_run.block_serial != s.block) {
        s = Spin{pc, a, g_tid, g_run.block_serial, 0, 0};
        return;
    }
    /* The access before this one, at the same address, went through: the
     * memory is there to read (a wild address faults at the access itself). */
    uint64_t v = 0;
    memcpy(&v, (const void *)a, n < sizeof v ? n : sizeof v);
    if (s.count == 0 || v != s.value) {
        s.value = v;
        s.count = 1;
    } else if (__builtin_expect(++s.count == kSpinLimit, 0)) {
        report_spin(pc);
    }
}
} // namespace

extern "C" void cudasim_atomic_access(const volatile void *p, size_t n, const void *pc)
{
    struct SpinAfter {
        uintptr_t a;
        size_t n;
        const void *pc;
        ~SpinAfter() { if (g_run.in_kernel) spin_check(a, n, pc); }
    } spin{(uintptr_t)p, n, pc};
    if (!g_checking) return;
    uintptr_t a = (uintptr_t)p;
    if (a - g_sh_lo < g_sh_span) {
        uintptr_t base = (uintptr_t)g_arena;
        if (a < base || a - base + n > g_arena_used || !g_arena_var[(a - base) >> 2])
            report_oob(true, a, n, true, pc);
    } else if (in_region(a)) {
        bool uninit = false;
        for (uintptr_t g = a & ~(uintptr_t)3; g < a + n; g += 4) {
            uint8_t v = *shadow_of(g);
            uintptr_t hi = a + n < g + 4 ? a + n : g + 4;
            if (!(v & SH_ADDR) || hi - g > (uintptr_t)(v & 7)) report_oob(false, a, n, true, pc);
            if (!(v & SH_INIT)) uninit = true;
        }
        if (uninit) {
            report_uninit(a, n, pc);
            for (uintptr_t g = a & ~(uintptr_t)3; g < a + n; g += 4) *shadow_of(g) |= SH_INIT;
        }
    }
}

extern "C" int cudasim_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n;
    if (!g_run.in_kernel || g_tid < 0 || (size_t)g_tid >= g_printf.size()) {
        n = vprintf(fmt, ap);
        va_end(ap);
        return n;
    }
    va_list again;
    va_copy(again, ap);
    char buf[512];
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    std::string text;
    if (n >= (int)sizeof buf) {
        text.resize((size_t)n + 1);
        vsnprintf(&text[0], (size_t)n + 1, fmt, again);
        text.resize((size_t)n);
    } else if (n > 0) {
        text = buf;
    }
    va_end(again);
    va_end(ap);
    g_printf[g_tid].push_back(std::move(text));
    g_printf_any = true;
    return n;
}

extern "C" unsigned long long cudasim_clock64(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* ---- ThreadSanitizer's entry points: every access of a translated kernel ---- */

#define CUDASIM_HOOK(name, n, w)                                                                  \
    extern "C" void name(void *p)                                                                  \
    {                                                                                              \
        if (__builtin_expect(g_checking, 0)) on_access((uintptr_t)p, n, w, __builtin_return_address(0)); \
    }
#define CUDASIM_HOOKS(prefix)                                                                     \
    CUDASIM_HOOK(prefix##read1, 1, false)                                                         \
    CUDASIM_HOOK(prefix##read2, 2, false)                                                         \
    CUDASIM_HOOK(prefix##read4, 4, false)                                                         \
    CUDASIM_HOOK(prefix##read8, 8, false)                                                         \
    CUDASIM_HOOK(prefix##read16, 16, false)                                                       \
    CUDASIM_HOOK(prefix##write1, 1, true)                                                         \
    CUDASIM_HOOK(prefix##write2, 2, true)                                                         \
    CUDASIM_HOOK(prefix##write4, 4, true)                                                         \
    CUDASIM_HOOK(prefix##write8, 8, true)                                                         \
    CUDASIM_HOOK(prefix##write16, 16, true)
CUDASIM_HOOKS(__tsan_)
CUDASIM_HOOKS(__tsan_unaligned_)
#undef CUDASIM_HOOK
/* Volatile reads are how a hand-written wait polls: watched for spinning. */
#define CUDASIM_HOOK(name, n, w)                                                                  \
    extern "C" void name(void *p)                                                                  \
    {                                                                                              \
        if (__builtin_expect(g_checking, 0)) on_access((uintptr_t)p, n, w, __builtin_return_address(0)); \
        if (!(w) && g_run.in_kernel) spin_check((uintptr_t)p, n, __builtin_return_address(0));     \
    }
CUDASIM_HOOKS(__tsan_volatile_)
#undef CUDASIM_HOOKS
#undef CUDASIM_HOOK

extern "C" void __tsan_read_range(void *p, unsigned long n)
{
    if (g_checking && n) on_access((uintptr_t)p, n, false, __builtin_return_address(0));
}
extern "C" void __tsan_write_range(void *p, unsigned long n)
{
    if (g_checking && n) on_access((uintptr_t)p, n, true, __builtin_return_address(0));
}
extern "C" void __tsan_init(void) {}
extern "C" void __tsan_func_entry(void *) {}
extern "C" void __tsan_func_exit(void) {}
extern "C" void __tsan_vptr_update(void **, void *) {}
extern "C" void __tsan_vptr_read(void **) {}

/* Atomics of host code in a translated file (std::atomic): done as asked. */
#define CUDASIM_TSAN_RMW(bits, T, op)                                                             \
    extern "C" T __tsan_atomic##bits##_##op(volatile T *a, T v, int)                              \
    {                                                                                              \
        return __atomic_##op(a, v, __ATOMIC_SEQ_CST);                                              \
    }
#define CUDASIM_TSAN_ATOMIC(bits, T)                                                              \
    extern "C" T __tsan_atomic##bits##_load(const volatile T *a, int)                             \
    {                                                                                              \
        return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                               \
    }                                                                                              \
    extern "C" void __tsan_atomic##bits##_store(volatile T *a, T v, int)                          \
    {                                                                                              \
        __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                  \
    }                                                                                              \
    extern "C" T __tsan_atomic##bits##_exchange(volatile T *a, T v, int)                          \
    {                                                                                              \
        return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                        \
    }                                                                                              \
    CUDASIM_TSAN_RMW(bits, T, fetch_add)                                                           \
    CUDASIM_TSAN_RMW(bits, T, fetch_sub)                                                           \
    CUDASIM_TSAN_RMW(bits, T, fetch_and)                                                           \
    CUDASIM_TSAN_RMW(bits, T, fetch_or)                                                            \
    CUDASIM_TSAN_RMW(bits, T, fetch_xor)                                                           \
    CUDASIM_TSAN_RMW(bits, T, fetch_nand)                                                          \
    extern "C" int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int, int) \
    {                                                                                              \
        return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);     \
    }                                                                                              \
    extern "C" int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int, int) \
    {                                                                                              \
        return __atomic_compare_exchange_n(a, c, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);      \
    }                                                                                              \
    extern "C" T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int, int)    \
    {                                                                                              \
        __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
        return c;                                                                                  \
    }
CUDASIM_TSAN_ATOMIC(8, unsigned char)
CUDASIM_TSAN_ATOMIC(16, unsigned short)
CUDASIM_TSAN_ATOMIC(32, unsigned int)
CUDASIM_TSAN_ATOMIC(64, unsigned long long)
#undef CUDASIM_TSAN_ATOMIC
#undef CUDASIM_TSAN_RMW
extern "C" void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
extern "C" void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

/* A failed assert() in a kernel stops the launch, as on a GPU
 * (cudaErrorAssert, sticky); in host code it is glibc's. (This definition
 * takes the place of glibc's for the whole program.) */
extern "C" void __assert_fail(const char *expr, const char *file, unsigned int line,
                              const char *function)
{
    if (g_run.in_kernel) {
        char who[256];
        describe_thread(who, sizeof who);
        report("assertion failed in %s: `%s` at %s:%u (CUDA reports: device-side assert triggered)",
               who, expr, file, line);
        abort_launch(cudaErrorAssert);
    }
    fprintf(stderr, "%s: %s:%u: %s: Assertion `%s' failed.\n", program_invocation_short_name, file,
            line, function, expr);
    fflush(stderr);
    abort();
}

/* ---- the simulator's own API ---------------------------------------------------- */

extern "C" const char *cudasim_last_report(void) { return g_report.c_str(); }
extern "C" void cudasim_clear_report(void) { g_report.clear(); }
extern "C" void cudasim_set_report_stream(FILE *stream) { g_report_stream = stream; }
extern "C" unsigned long long cudasim_launch_count(void) { return g_launches; }
extern "C" unsigned long long cudasim_hazard_count(void) { return g_hazards; }

extern "C" const char *cudasim_memory_guard(void)
{
    install_fault_handler();
    return g_use_pkeys ? "protection keys" : "mprotect";
}

extern "C" int cudasim_set_memory_guard(int protection_keys)
{
    install_fault_handler();
    for (auto &kv : g_allocs)
        if (kv.second.guarded) return -1; /* shut the other way */
    g_use_pkeys = protection_keys && g_pkey >= 0;
    return g_use_pkeys;
}

/* ---- the runtime API ------------------------------------------------------------ */

namespace {

/* The machine's simulated GPUs: CUDASIM_DEVICES (default 1). */
int physical_count()
{
    const char *env = getenv("CUDASIM_DEVICES");
    if (!env) return 1;
    int n = atoi(env);
    return n < 0 ? 0 : n > 8 ? 8 : n;
}

/* The physical index of visible device i, as CUDA_VISIBLE_DEVICES maps it:
 * a comma-separated list of indices, read up to the first invalid entry. */
int physical_of(int i)
{
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    if (!env) return i < physical_count() ? i : -1;
    const char *p = env;
    for (int k = 0; *p; k++) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v >= physical_count() || (*end && *end != ',')) return -1;
        if (k == i) return (int)v;
        if (!*end) return -1;
        p = end + 1;
    }
    return -1;
}

int device_count()
{
    int n = 0;
    while (n < 8 && physical_of(n) >= 0) n++;
    return n;
}

int g_device = 0;

/* Entry of most API calls: a sticky error wins. */
#define API_ENTER()                                                                            \
    do {                                                                                       \
        install_fault_handler();                                                               \
        if (g_sticky) return fail(g_sticky);                                                   \
    } while (0)

/* dst/src kinds for cudaMemcpy: 'd' device, 'h' host. */
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

/* What p points to: 'd' device memory, 'm' managed memory (host and device
 * both), 'f' a freed device buffer, 'h' host memory. */
char kind_of(const void *p)
{
    const Alloc *a = find_alloc(p);
    uintptr_t s;
    if (a && a->device) return a->managed ? 'm' : 'd';
    if (find_symbol(p, &s)) return 'd';
    if (find_freed((uintptr_t)p)) return 'f';
    return 'h';
}

/* A report that pointer p (the copy's `which`) was freed. */
cudaError_t report_freed_pointer(const char *call, const char *which, const void *p)
{
    uintptr_t start;
    const Freed *f = find_freed((uintptr_t)p, &start);
    std::string what = f ? freed_text(*f) : std::string("a freed buffer");
    report("%s: the %s pointer %p is in %s: a use after free (CUDA reports: invalid argument)",
           call, which, p, what.c_str());
    return cudaErrorInvalidValue;
}

cudaError_t check_device_range(const char *call, const char *which, const void *p, size_t n)
{
    uintptr_t start;
    const Alloc *a = find_alloc(p, &start);
    size_t size;
    if (a && a->device) {
        size = a->size;
    } else if (const size_t *sym = find_symbol(p, &start)) {
        size = *sym;
    } else if (find_freed((uintptr_t)p)) {
        return report_freed_pointer(call, which, p);
    } else {
        report("%s: the %s pointer %p is not device memory (a host pointer; did you swap dst and "
               "src?) (CUDA reports: invalid argument)",
               call, which, p);
        return cudaErrorInvalidValue;
    }
    size_t left = start + size - (uintptr_t)p;
    if (n > left) {
        report("%s: %zu bytes from the %s pointer, but the device buffer has only %zu bytes "
               "from there (it holds %zu) (CUDA reports: invalid argument)",
               call, n, which, left, size);
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

const char *kind_name(cudaMemcpyKind k)
{
    switch (k) {
    case cudaMemcpyHostToHost: return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice: return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost: return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice: return "cudaMemcpyDeviceToDevice";
    case cudaMemcpyDefault: return "cudaMemcpyDefault";
    }
    return "an unknown kind";
}

/* The checks of a copy (reported; the caller fails). */
cudaError_t check_copy(const char *call, void *dst, const void *src, size_t n, cudaMemcpyKind kind)
{
    if (n == 0) return cudaSuccess;
    if (!dst || !src) {
        report("%s: a NULL pointer (CUDA reports: invalid argument)", call);
        return cudaErrorInvalidValue;
    }
    char want_dst, want_src;
    switch (kind) {
    case cudaMemcpyHostToHost: want_dst = 'h', want_src = 'h'; break;
    case cudaMemcpyHostToDevice: want_dst = 'd', want_src = 'h'; break;
    case cudaMemcpyDeviceToHost: want_dst = 'h', want_src = 'd'; break;
    case cudaMemcpyDeviceToDevice: want_dst = 'd', want_src = 'd'; break;
    case cudaMemcpyDefault: want_dst = kind_of(dst), want_src = kind_of(src); break;
    default:
        report("%s: copy kind %d does not exist (CUDA reports: invalid copy direction for "
               "memcpy)",
               call, (int)kind);
        return cudaErrorInvalidMemcpyDirection;
    }
    char got_dst = kind_of(dst), got_src = kind_of(src);
    if (got_dst == 'f') return report_freed_pointer(call, "destination", dst);
    if (got_src == 'f') return report_freed_pointer(call, "source", src);
    /* Managed memory is both. */
    if (got_dst == 'm') got_dst = want_dst;
    if (got_src == 'm') got_src = want_src;
    if (want_dst == 'm') want_dst = 'd';
    if (want_src == 'm') want_src = 'd';
    if (got_dst != want_dst || got_src != want_src) {
        report("%s with %s: the destination is %s memory and the source is %s memory, but "
               "this kind copies %s to %s (swapped arguments, or the wrong kind?) (CUDA "
               "reports: invalid argument)",
               call, kind_name(kind), got_dst == 'd' ? "device" : "host",
               got_src == 'd' ? "device" : "host", want_src == 'd' ? "device" : "host",
               want_dst == 'd' ? "device" : "host");
        return cudaErrorInvalidValue;
    }
    if (want_dst == 'd') {
        cudaError_t e = check_device_range(call, "destination", dst, n);
        if (e) return e;
    }
    if (want_src == 'd') return check_device_range(call, "source", src, n);
    return cudaSuccess;
}

cudaError_t do_memcpy(const char *call, void *dst, const void *src, size_t n, cudaMemcpyKind kind)
{
    cudaError_t e = check_copy(call, dst, src, n, kind);
    if (e) return fail(e);
    if (n) {
        DeviceOp op;
        open_for_device(dst);
        open_for_device(src);
        memmove(dst, src, n);
        mark_written(dst, n);
    }
    return cudaSuccess;
}

cudaError_t check_set(const char *call, void *p, size_t n)
{
    return n ? check_device_range(call, "destination", p, n) : cudaSuccess;
}

cudaError_t do_memset(const char *call, void *p, int value, size_t n)
{
    cudaError_t e = check_set(call, p, n);
    if (e) return fail(e);
    if (n) {
        DeviceOp op;
        open_for_device(p);
        memset(p, value, n);
        mark_written(p, n);
    }
    return cudaSuccess;
}

/* cudaMalloc and cudaFree are "potentially unsafe" during a capture in
 * cudaStreamCaptureModeGlobal or ThreadLocal: the graph would not allocate or
 * free when it runs. (The simulator runs everything on one thread, so these
 * two modes are the same here.) */
cudaError_t check_unsafe(const char *call)
{
    std::vector<Stream *> strict =
        captures([](const Stream &s) { return s.mode != cudaStreamCaptureModeRelaxed; });
    if (strict.empty()) return cudaSuccess;
    return violation(cudaErrorStreamCaptureUnsupported, strict, call,
                     "a stream is capturing (cudaStreamCaptureModeGlobal or ThreadLocal), and "
                     "an allocation is not recorded into the graph: allocate before "
                     "cudaStreamBeginCapture and free after cudaStreamEndCapture");
}

/* A synchronous copy or memset runs on the legacy stream. */
cudaError_t check_legacy(const char *call)
{
    std::vector<Stream *> blocking = blocking_captures();
    return blocking.empty() ? cudaSuccess
                            : violation(cudaErrorStreamCaptureImplicit, blocking, call, kLegacyWhy);
}

/* cudaStreamSynchronize and cudaStreamQuery: nothing may wait for a capturing
 * stream (its work is only being recorded), nor for the legacy stream while a
 * blocking stream captures. */
cudaError_t check_wait(const char *call, cudaStream_t stream)
{
    if (!stream_ok(stream)) return fail(cudaErrorInvalidResourceHandle);
    if (Stream *s = capture_of(stream))
        return violation(cudaErrorStreamCaptureUnsupported, {s}, call,
                         "the stream is capturing, and its work is only being recorded, not "
                         "run: wait after cudaStreamEndCapture, or after cudaGraphLaunch");
    return stream ? cudaSuccess : check_legacy(call);
}

/* cudaEventSynchronize and cudaEventQuery: an event of a capture never
 * happens. */
cudaError_t check_event_wait(const char *call, cudaEvent_t event)
{
    auto it = g_events.find(event);
    if (it == g_events.end()) return fail(cudaErrorInvalidResourceHandle);
    if (Stream *s = capture_of(it->second.captured))
        return violation(cudaErrorCapturedEvent, {s}, call,
                         "the event was last recorded in a capturing stream, where it only marks "
                         "a point of the graph: wait for events recorded outside a capture");
    return cudaSuccess;
}

} // namespace

extern "C" {

const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidHostPointer: return "invalid host pointer";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInsufficientDriver:
        return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorIllegalState: return "the operation cannot be performed in the present state";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorMisalignedAddress: return "misaligned address";
    case cudaErrorCooperativeLaunchTooLarge:
        return "too many blocks in cooperative launch";
    case cudaErrorInvalidPitchValue: return "invalid pitch argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorStreamCaptureUnsupported:
        return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated:
        return "operation failed due to a previous error during capture";
    case cudaErrorStreamCaptureIsolation:
        return "dependency created on uncaptured work in another stream";
    case cudaErrorStreamCaptureImplicit:
        return "operation would make the legacy stream depend on a capturing blocking stream";
    case cudaErrorCapturedEvent:
        return "operation not permitted on an event last recorded in a capturing stream";
    case cudaErrorUnknown: return "unknown error";
    }
    return "unrecognized error code";
}

const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidHostPointer: return "cudaErrorInvalidHostPointer";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorIllegalState: return "cudaErrorIllegalState";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
    case cudaErrorAssert: return "cudaErrorAssert";
    case cudaErrorMisalignedAddress: return "cudaErrorMisalignedAddress";
    case cudaErrorCooperativeLaunchTooLarge: return "cudaErrorCooperativeLaunchTooLarge";
    case cudaErrorInvalidPitchValue: return "cudaErrorInvalidPitchValue";
    case cudaErrorInvalidSymbol: return "cudaErrorInvalidSymbol";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorLaunchTimeout: return "cudaErrorLaunchTimeout";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
    case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
    case cudaErrorStreamCaptureIsolation: return "cudaErrorStreamCaptureIsolation";
    case cudaErrorStreamCaptureImplicit: return "cudaErrorStreamCaptureImplicit";
    case cudaErrorCapturedEvent: return "cudaErrorCapturedEvent";
    case cudaErrorUnknown: return "cudaErrorUnknown";
    }
    return "cudaErrorUnrecognized";
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = g_last;
    g_last = g_sticky; /* a sticky error stays */
    return e;
}

cudaError_t cudaPeekAtLastError(void) { return g_last; }

cudaError_t cudaDriverGetVersion(int *version)
{
    if (!version) return fail(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version)
{
    if (!version) return fail(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count) return fail(cudaErrorInvalidValue);
    *count = device_count();
    if (*count == 0) return fail(cudaErrorNoDevice);
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    if (!device) return fail(cudaErrorInvalidValue);
    if (device_count() == 0) return fail(cudaErrorNoDevice);
    *device = g_device;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    API_ENTER();
    int n = device_count();
    if (n == 0) return fail(cudaErrorNoDevice);
    if (device < 0 || device >= n) {
        report("cudaSetDevice(%d): the simulator has %d device%s (CUDASIM_DEVICES) (CUDA "
               "reports: invalid device ordinal)",
               device, n, n == 1 ? "" : "s");
        return fail(cudaErrorInvalidDevice);
    }
    g_device = device;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int device)
{
    if (!p) return fail(cudaErrorInvalidValue);
    int n = device_count();
    if (n == 0) return fail(cudaErrorNoDevice);
    if (device < 0 || device >= n) return fail(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "CUDA simulator (CPU)");
    p->totalGlobalMem = kTotalMemory;
    p->sharedMemPerBlock = kSharedPerBlock;
    p->sharedMemPerBlockOptin = kSharedPerBlockOptin;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->maxThreadsPerBlock = kMaxThreadsPerBlock;
    for (int i = 0; i < 3; i++) {
        p->maxThreadsDim[i] = kMaxBlockDim[i];
        p->maxGridSize[i] = kMaxGridDim[i];
    }
    p->multiProcessorCount = 1;
    p->maxThreadsPerMultiProcessor = 2048;
    p->maxBlocksPerMultiProcessor = 32;
    p->sharedMemPerMultiprocessor = kSharedPerBlockOptin + 1024;
    p->regsPerMultiprocessor = 65536;
    p->totalConstMem = 65536;
    p->memPitch = 2147483647;
    p->textureAlignment = 512;
    p->clockRate = 1000000;       /* kHz: a nominal 1 GHz (the CPU runs one thread at a time) */
    p->memoryClockRate = 1000000;
    p->memoryBusWidth = 64;
    p->l2CacheSize = 1 << 20;
    p->deviceOverlap = 1;
    p->asyncEngineCount = 1;
    p->concurrentKernels = 0;
    p->canMapHostMemory = 1;
    p->unifiedAddressing = 1;
    p->managedMemory = 1;
    p->concurrentManagedAccess = 0;
    p->major = 8;
    p->minor = 0;
    p->pciBusID = physical_of(device); /* which simulated GPU of the machine */
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (!value) return fail(cudaErrorInvalidValue);
    cudaDeviceProp p;
    if (cudaError_t e = cudaGetDeviceProperties(&p, device)) return e;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: *value = (int)p.totalConstMem; break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *value = p.clockRate; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrIntegrated: *value = p.integrated; break;
    case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
    case cudaDevAttrPciBusId: *value = p.pciBusID; break;
    case cudaDevAttrPciDeviceId: *value = p.pciDeviceID; break;
    case cudaDevAttrMemoryClockRate: *value = p.memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
    case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    default:
        report("cudaDeviceGetAttribute: attribute %d is not one the simulator knows (CUDA reports: "
               "invalid argument)",
               (int)attr);
        return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    API_ENTER();
    if (flags & ~0x1fu) return fail(cudaErrorInvalidValue);
    return cudaSuccess;
}

size_t g_limits[3] = {1024, 1 << 20, 8 << 20}; /* stack, printf FIFO, malloc heap */

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    API_ENTER();
    if ((int)limit < 0 || (int)limit > 2) return fail(cudaErrorInvalidValue);
    g_limits[limit] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
    API_ENTER();
    if (!value || (int)limit < 0 || (int)limit > 2) return fail(cudaErrorInvalidValue);
    *value = g_limits[limit];
    return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    API_ENTER();
    (void)cacheConfig;
    return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    API_ENTER();
    (void)func;
    (void)cacheConfig;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    if (leastPriority) *leastPriority = 0;
    if (greatestPriority) *greatestPriority = -5;
    return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    API_ENTER();
    if (!attr || !func) return fail(cudaErrorInvalidDeviceFunction);
    memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = kMaxThreadsPerBlock;
    attr->numRegs = 32;
    attr->ptxVersion = 80;
    attr->binaryVersion = 80;
    auto it = g_dynamic_limit.find(func);
    attr->maxDynamicSharedSizeBytes = it != g_dynamic_limit.end() ? it->second : (int)kSharedPerBlock;
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize, size_t dynamicSMemSize)
{
    API_ENTER();
    (void)func;
    if (!numBlocks || blockSize <= 0 || blockSize > kMaxThreadsPerBlock)
        return fail(cudaErrorInvalidValue);
    int n = 2048 / blockSize;
    if (n > 32) n = 32;
    if (dynamicSMemSize && (size_t)n * dynamicSMemSize > kSharedPerBlockOptin)
        n = (int)(kSharedPerBlockOptin / dynamicSMemSize);
    *numBlocks = n;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int priority)
{
    (void)priority;
    return cudaStreamCreateWithFlags(stream, flags);
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    API_ENTER();
    if (!free_bytes || !total_bytes) return fail(cudaErrorInvalidValue);
    *total_bytes = kTotalMemory;
    *free_bytes = kTotalMemory - g_in_use;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    API_ENTER();
    std::vector<Stream *> all = captures([](const Stream &) { return true; });
    if (!all.empty())
        return violation(cudaErrorStreamCaptureUnsupported, all, "cudaDeviceSynchronize",
                         "a stream is capturing, and its work is only being recorded, not run: "
                         "synchronize after cudaStreamEndCapture, or after cudaGraphLaunch");
    return cudaSuccess;
}

/* Everything of the device goes: memory, streams (and their captures), events,
 * graphs and their instances. */
cudaError_t cudaDeviceReset(void)
{
    for (auto &kv : g_allocs) unmap_buffer(kv.first, kv.second);
    g_allocs.clear();
    g_freed.clear();
    g_freed_order.clear();
    g_symbols.clear();
    g_region_used = 0;
    g_in_use = 0;
    g_streams.clear();
    g_events.clear();
    g_graphs.clear();
    g_execs.clear();
    g_dynamic_limit.clear();
    g_sticky = g_last = cudaSuccess;
    return cudaSuccess;
}

} // extern "C"

namespace {
/* cudaMalloc and its kin; pc is the caller's code (for reports). */
cudaError_t device_malloc(const char *call, void **ptr, size_t size, bool managed, const void *pc)
{
    API_ENTER();
    if (!ptr) return fail(cudaErrorInvalidValue);
    if (cudaError_t e = check_unsafe(call)) return e;
    *ptr = nullptr;
    if (size == 0) return cudaSuccess;
    if (size > kTotalMemory - g_in_use) {
        report("%s(%zu bytes): only %zu of the simulated %zu bytes are free (CUDA reports: out of "
               "memory)",
               call, size, kTotalMemory - g_in_use, kTotalMemory);
        return fail(cudaErrorMemoryAllocation);
    }
    void *p = map_buffer(size, true, !managed, managed, pc);
    if (!p) {
        report("%s(%zu bytes): no room for it in the simulator's %zu bytes of device address "
               "space (%zu in use; the process's address space may be limited, ulimit -v) (CUDA "
               "reports: out of memory)",
               call, size, g_region_bytes, g_in_use);
        return fail(cudaErrorMemoryAllocation);
    }
    *ptr = p;
    return cudaSuccess;
}

cudaError_t device_free(const char *call, void *ptr, const void *pc)
{
    API_ENTER();
    if (!ptr) return cudaSuccess;
    if (cudaError_t e = check_unsafe(call)) return e;
    auto it = g_allocs.find((uintptr_t)ptr);
    if (it == g_allocs.end() || !it->second.device) {
        uintptr_t start;
        const Freed *f = find_freed((uintptr_t)ptr, &start);
        if (f && start == (uintptr_t)ptr) {
            std::string fl = source_line(f->free_pc);
            report("%s(%p): freed twice: %s already freed this %zu-byte buffer (CUDA reports: "
                   "invalid argument)",
                   call, ptr, fl.empty() ? "cudaFree" : ("the cudaFree at " + fl).c_str(),
                   f->size);
        } else {
            report("%s(%p): not the start of a cudaMalloc buffer (freed twice, or a host "
                   "pointer?) (CUDA reports: invalid argument)",
                   call, ptr);
        }
        return fail(cudaErrorInvalidValue);
    }
    g_in_use -= it->second.size;
    unmap_buffer(it->first, it->second, pc ? pc : (const void *)&device_free);
    g_allocs.erase(it);
    return cudaSuccess;
}
} // namespace

extern "C" {

cudaError_t cudaMalloc(void **ptr, size_t size)
{
    return device_malloc("cudaMalloc", ptr, size, false, __builtin_return_address(0));
}

cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
    (void)flags;
    return device_malloc("cudaMallocManaged", ptr, size, true, __builtin_return_address(0));
}

cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaStream_t stream)
{
    if (!stream_ok(stream)) return fail(cudaErrorInvalidResourceHandle);
    return device_malloc("cudaMallocAsync", ptr, size, false, __builtin_return_address(0));
}

cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    if (!pitch) return fail(cudaErrorInvalidValue);
    *pitch = (width + 511) & ~(size_t)511; /* rows start 512-byte aligned */
    return device_malloc("cudaMallocPitch", ptr, *pitch * height, false,
                         __builtin_return_address(0));
}

cudaError_t cudaFree(void *ptr) { return device_free("cudaFree", ptr, __builtin_return_address(0)); }

cudaError_t cudaFreeAsync(void *ptr, cudaStream_t stream)
{
    if (!stream_ok(stream)) return fail(cudaErrorInvalidResourceHandle);
    return device_free("cudaFreeAsync", ptr, __builtin_return_address(0));
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    API_ENTER();
    if (!ptr) return fail(cudaErrorInvalidValue);
    *ptr = size ? map_buffer(size, false, false) : nullptr;
    if (size && !*ptr) return fail(cudaErrorMemoryAllocation);
    return cudaSuccess;
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    (void)flags;
    return cudaMallocHost(ptr, size);
}

cudaError_t cudaFreeHost(void *ptr)
{
    API_ENTER();
    if (!ptr) return cudaSuccess;
    auto it = g_allocs.find((uintptr_t)ptr);
    if (it == g_allocs.end() || it->second.device) {
        report("cudaFreeHost(%p): not a cudaMallocHost buffer (CUDA reports: invalid argument)",
               ptr);
        return fail(cudaErrorInvalidValue);
    }
    unmap_buffer(it->first, it->second);
    g_allocs.erase(it);
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    API_ENTER();
    if (!pDevice || flags) return fail(cudaErrorInvalidValue);
    const Alloc *a = find_alloc(pHost);
    if (!a || a->device) {
        report("cudaHostGetDevicePointer(%p): not memory from cudaHostAlloc or cudaMallocHost "
               "(CUDA reports: invalid argument)",
               pHost);
        return fail(cudaErrorInvalidValue);
    }
    *pDevice = pHost; /* one address space, as with unified addressing */
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attr, const void *ptr)
{
    API_ENTER();
    if (!attr) return fail(cudaErrorInvalidValue);
    memset(attr, 0, sizeof *attr);
    const Alloc *a = find_alloc(ptr);
    attr->device = a ? g_device : -2;
    attr->type = !a ? cudaMemoryTypeUnregistered : !a->device ? cudaMemoryTypeHost
                 : a->managed ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
    if (a && (a->device || !a->guarded)) attr->devicePointer = const_cast<void *>(ptr);
    if (a && (!a->device || a->managed)) attr->hostPointer = const_cast<void *>(ptr);
    return cudaSuccess;
}

cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t count, struct cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream)
{
    API_ENTER();
    (void)location;
    (void)flags;
    if (!stream_ok(stream)) return fail(cudaErrorInvalidResourceHandle);
    const Alloc *a = find_alloc(ptr);
    if (!a || !a->managed) {
        report("cudaMemPrefetchAsync(%p): not cudaMallocManaged memory (CUDA reports: invalid "
               "argument)",
               ptr);
        return fail(cudaErrorInvalidValue);
    }
    return count ? check_device_range("cudaMemPrefetchAsync", "", ptr, count) == cudaSuccess
                       ? cudaSuccess
                       : fail(cudaErrorInvalidValue)
                 : cudaSuccess;
}

/* Rows of a pitched copy: each row is a copy of its own, checked as one. */
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind)
{
    API_ENTER();
    if (cudaError_t e = check_legacy("cudaMemcpy2D")) return e;
    if (width > dpitch || width > spitch) {
        report("cudaMemcpy2D: rows of %zu bytes, wider than the pitch (dpitch %zu, spitch %zu) "
               "(CUDA reports: invalid pitch argument)",
               width, dpitch, spitch);
        return fail(cudaErrorInvalidPitchValue);
    }
    if (!height || !width) return cudaSuccess;
    size_t dspan = dpitch * (height - 1) + width, sspan = spitch * (height - 1) + width;
    if (cudaError_t e = check_copy("cudaMemcpy2D", dst, src, 1, kind)) return fail(e);
    if (kind_of(dst) != 'h' && check_device_range("cudaMemcpy2D", "destination", dst, dspan))
        return fail(cudaErrorInvalidValue);
    if (kind_of(src) != 'h' && check_device_range("cudaMemcpy2D", "source", src, sspan))
        return fail(cudaErrorInvalidValue);
    DeviceOp op;
    open_for_device(dst);
    open_for_device(src);
    for (size_t r = 0; r < height; r++) {
        memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
        mark_written((char *)dst + r * dpitch, width);
    }
    return cudaSuccess;
}

cudaError_t cudaMemset2D(void *ptr, size_t pitch, int value, size_t width, size_t height)
{
    API_ENTER();
    if (width > pitch) return fail(cudaErrorInvalidPitchValue);
    if (!height || !width) return cudaSuccess;
    if (cudaError_t e = check_device_range("cudaMemset2D", "destination", ptr,
                                           pitch * (height - 1) + width))
        return fail(e);
    DeviceOp op;
    open_for_device(ptr);
    for (size_t r = 0; r < height; r++) {
        memset((char *)ptr + r * pitch, value, width);
        mark_written((char *)ptr + r * pitch, width);
    }
    return cudaSuccess;
}

} // extern "C"

namespace {
/* A copy to or from a __device__ or __constant__ variable: `size` bytes at
 * `symbol` (SIZE_MAX when the C API does not say). */
cudaError_t symbol_copy(const char *call, const void *symbol, size_t size, void *host, size_t count,
                        size_t offset, cudaMemcpyKind kind, bool to_symbol, cudaStream_t stream,
                        bool async)
{
    API_ENTER();
    if (!symbol) {
        report("%s: a NULL symbol (CUDA reports: invalid device symbol)", call);
        return fail(cudaErrorInvalidSymbol);
    }
    if (size != SIZE_MAX && (offset > size || count > size - offset)) {
        report("%s: %zu bytes at offset %zu, but the variable has %zu bytes (CUDA reports: invalid "
               "argument)",
               call, count, offset, size);
        return fail(cudaErrorInvalidValue);
    }
    bool ok_kind = to_symbol ? (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
                                kind == cudaMemcpyDefault)
                             : (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
                                kind == cudaMemcpyDefault);
    if (!ok_kind) {
        report("%s with %s: a copy %s a variable of the device goes %s (CUDA reports: invalid copy "
               "direction for memcpy)",
               call, kind_name(kind), to_symbol ? "to" : "from",
               to_symbol ? "host to device, or device to device" : "device to host, or device to device");
        return fail(cudaErrorInvalidMemcpyDirection);
    }
    if (!count) return cudaSuccess;
    if (!host) {
        report("%s: a NULL pointer (CUDA reports: invalid argument)", call);
        return fail(cudaErrorInvalidValue);
    }
    char k = kind_of(host);
    if (k == 'f') return fail(report_freed_pointer(call, to_symbol ? "source" : "destination", host));
    bool want_device = kind == cudaMemcpyDeviceToDevice;
    if (kind != cudaMemcpyDefault && k != 'm' && (k == 'd') != want_device) {
        report("%s with %s: the %s is %s memory (CUDA reports: invalid argument)", call,
               kind_name(kind), to_symbol ? "source" : "destination", k == 'd' ? "device" : "host");
        return fail(cudaErrorInvalidValue);
    }
    if (k == 'd' &&
        check_device_range(call, to_symbol ? "source" : "destination", host, count))
        return fail(cudaErrorInvalidValue);
    char *var = (char *)symbol + offset;
    auto work = [=] {
        DeviceOp op;
        open_for_device(host);
        if (to_symbol) memmove(var, host, count);
        else {
            memmove(host, var, count);
            mark_written(host, count);
        }
        return cudaSuccess;
    };
    if (async) return issue(call, stream, work);
    if (cudaError_t e = check_legacy(call)) return e;
    return work();
}
} // namespace

extern "C" {

cudaError_t cudasim_symbol_copy(const void *symbol, size_t size, void *host, size_t count,
                                size_t offset, cudaMemcpyKind kind, int to_symbol,
                                cudaStream_t stream, int async)
{
    const char *call = to_symbol ? (async ? "cudaMemcpyToSymbolAsync" : "cudaMemcpyToSymbol")
                                 : (async ? "cudaMemcpyFromSymbolAsync" : "cudaMemcpyFromSymbol");
    return symbol_copy(call, symbol, size, host, count, offset, kind, to_symbol, stream, async);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               cudaMemcpyKind kind)
{
    return symbol_copy("cudaMemcpyToSymbol", symbol, SIZE_MAX, const_cast<void *>(src), count,
                       offset, kind, true, 0, false);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 cudaMemcpyKind kind)
{
    return symbol_copy("cudaMemcpyFromSymbol", symbol, SIZE_MAX, dst, count, offset, kind, false, 0,
                       false);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                    size_t offset, cudaMemcpyKind kind, cudaStream_t stream)
{
    return symbol_copy("cudaMemcpyToSymbolAsync", symbol, SIZE_MAX, const_cast<void *>(src), count,
                       offset, kind, true, stream, true);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream)
{
    return symbol_copy("cudaMemcpyFromSymbolAsync", symbol, SIZE_MAX, dst, count, offset, kind,
                       false, stream, true);
}

cudaError_t cudasim_symbol_address(void **devPtr, const void *symbol, size_t size)
{
    API_ENTER();
    if (!devPtr || !symbol) return fail(cudaErrorInvalidSymbol);
    g_symbols[(uintptr_t)symbol] = size;
    *devPtr = const_cast<void *>(symbol);
    return cudaSuccess;
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    API_ENTER();
    if (!devPtr || !symbol) return fail(cudaErrorInvalidSymbol);
    *devPtr = const_cast<void *>(symbol);
    return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    API_ENTER();
    (void)symbol;
    (void)size;
    report("cudaGetSymbolSize: the simulator knows a variable's size only from C++ (pass the "
           "variable itself, not its address) (the simulator reports: invalid device symbol)");
    return fail(cudaErrorInvalidSymbol);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    API_ENTER();
    if (!fn) return fail(cudaErrorInvalidValue);
    return issue("cudaLaunchHostFunc", stream, [=] {
        fn(userData);
        return cudaSuccess;
    });
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind)
{
    API_ENTER();
    if (cudaError_t e = check_legacy("cudaMemcpy")) return e;
    return do_memcpy("cudaMemcpy", dst, src, count, kind);
}

/* Copies and memsets issued to a stream are checked then, captured or not (CUDA
 * checks what it records), and a recorded one again when its graph runs: its
 * buffers may have been freed since. A recorded copy keeps its pointers, not
 * the data: it copies what host memory holds when the graph runs. */
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    API_ENTER();
    if (cudaError_t e = check_copy("cudaMemcpyAsync", dst, src, count, kind))
        return refuse(stream, e);
    return issue("cudaMemcpyAsync", stream,
                 [=] { return do_memcpy("cudaMemcpyAsync", dst, src, count, kind); });
}

cudaError_t cudaMemset(void *ptr, int value, size_t count)
{
    API_ENTER();
    if (cudaError_t e = check_legacy("cudaMemset")) return e;
    return do_memset("cudaMemset", ptr, value, count);
}

cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream)
{
    API_ENTER();
    if (cudaError_t e = check_set("cudaMemsetAsync", ptr, count)) return refuse(stream, e);
    return issue("cudaMemsetAsync", stream,
                 [=] { return do_memset("cudaMemsetAsync", ptr, value, count); });
}

cudaError_t cudaStreamCreate(cudaStream_t *stream) { return cudaStreamCreateWithFlags(stream, 0); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    API_ENTER();
    if (!stream) return fail(cudaErrorInvalidValue);
    static uintptr_t next = 0x5000;
    *stream = (cudaStream_t)(next += 16);
    g_streams[*stream].flags = flags;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    API_ENTER();
    if (capture_of(stream)) {
        report("cudaStreamDestroy: the stream is capturing; end the capture first "
               "(cudaStreamEndCapture) (CUDA reports: operation not permitted when stream is "
               "capturing)");
        return fail(cudaErrorStreamCaptureUnsupported);
    }
    if (!g_streams.erase(stream)) return fail(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    API_ENTER();
    return check_wait("cudaStreamSynchronize", stream);
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    API_ENTER();
    return check_wait("cudaStreamQuery", stream);
}

cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, 0); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    API_ENTER();
    (void)flags;
    if (!event) return fail(cudaErrorInvalidValue);
    static uintptr_t next = 0xe000;
    *event = (cudaEvent_t)(next += 16);
    g_events[*event] = Event();
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    API_ENTER();
    if (!g_events.erase(event)) return fail(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

/* Recorded in a capturing stream, an event only marks a point of the capture
 * (for cudaStreamWaitEvent in it): it takes no time, and the graph does not
 * record it when it runs. */
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    API_ENTER();
    auto it = g_events.find(event);
    if (it == g_events.end()) return fail(cudaErrorInvalidResourceHandle);
    cudaError_t e;
    Use use = stream_use("cudaEventRecord", stream, &e);
    if (use == REFUSED) return e;
    it->second.captured = use == RECORD ? stream : nullptr;
    it->second.ms = use == RECORD ? -1 : now_ms();
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    API_ENTER();
    return check_event_wait("cudaEventSynchronize", event);
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    API_ENTER();
    return check_event_wait("cudaEventQuery", event);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    API_ENTER();
    auto a = g_events.find(start), b = g_events.find(end);
    if (!ms || a == g_events.end() || b == g_events.end())
        return fail(cudaErrorInvalidResourceHandle);
    if (a->second.ms < 0 || b->second.ms < 0) {
        report("cudaEventElapsedTime: an event that was never recorded, or last recorded in a "
               "stream capture, which takes no time (CUDA reports: invalid resource handle)");
        return fail(cudaErrorInvalidResourceHandle);
    }
    *ms = (float)(b->second.ms - a->second.ms);
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    API_ENTER();
    (void)flags;
    auto it = g_events.find(event);
    if (it == g_events.end()) return fail(cudaErrorInvalidResourceHandle);
    cudaError_t e;
    Use use = stream_use("cudaStreamWaitEvent", stream, &e);
    if (use == REFUSED) return e;
    Stream *from = capture_of(it->second.captured);
    if (use == RECORD && from != capture_of(stream))
        return violation(cudaErrorStreamCaptureIsolation, {capture_of(stream)},
                         "cudaStreamWaitEvent",
                         "a capturing stream may wait only for events recorded in the same "
                         "capture (the graph cannot depend on work outside it): wait before "
                         "cudaStreamBeginCapture");
    if (use == RUN && from) {
        /* CUDA would capture this stream's later work into the same graph. */
        report("cudaStreamWaitEvent: the event was recorded in a capturing stream, so this "
               "stream would join the capture (cross-stream capture), which the simulator does "
               "not support: capture all the work on one stream. The capture is now "
               "invalidated (the simulator reports: operation not supported)");
        invalidate(*from, g_report);
        return fail(cudaErrorNotSupported);
    }
    return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value)
{
    API_ENTER();
    if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize || value < 0 ||
        (size_t)value > kSharedPerBlockOptin)
        return fail(cudaErrorInvalidValue);
    g_dynamic_limit[func] = value;
    return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode)
{
    API_ENTER();
    if (!stream) {
        report("cudaStreamBeginCapture: the legacy (NULL) stream cannot be captured: create a "
               "stream (cudaStreamCreate) and issue the work to it (CUDA reports: operation not "
               "permitted when stream is capturing)");
        return fail(cudaErrorStreamCaptureUnsupported);
    }
    auto it = g_streams.find(stream);
    if (it == g_streams.end()) {
        report("cudaStreamBeginCapture: a stream that does not exist (destroyed?) (CUDA reports: "
               "invalid resource handle)");
        return fail(cudaErrorInvalidResourceHandle);
    }
    if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
        mode != cudaStreamCaptureModeRelaxed) {
        report("cudaStreamBeginCapture: capture mode %d does not exist (CUDA reports: invalid "
               "argument)",
               (int)mode);
        return fail(cudaErrorInvalidValue);
    }
    Stream &s = it->second;
    if (s.capture != cudaStreamCaptureStatusNone) {
        report("cudaStreamBeginCapture: the stream is capturing already; end that capture first "
               "(cudaStreamEndCapture) (CUDA reports: the operation cannot be performed in the "
               "present state)");
        return fail(cudaErrorIllegalState);
    }
    s.capture = cudaStreamCaptureStatusActive;
    s.mode = mode;
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    API_ENTER();
    Stream *s = capture_of(stream);
    if (!s) {
        report("cudaStreamEndCapture: the stream is not capturing (no cudaStreamBeginCapture on "
               "it, or the capture was ended already) (CUDA reports: the operation cannot be "
               "performed in the present state)");
        return fail(cudaErrorIllegalState);
    }
    if (!pGraph) return fail(cudaErrorInvalidValue);
    Graph recorded = std::move(s->recorded);
    std::string why = std::move(s->why);
    bool invalidated = s->capture == cudaStreamCaptureStatusInvalidated;
    s->capture = cudaStreamCaptureStatusNone;
    s->recorded.clear();
    s->why.clear();
    for (auto &kv : g_events)
        if (kv.second.captured == stream) kv.second.captured = nullptr;
    if (invalidated) {
        *pGraph = nullptr;
        report("cudaStreamEndCapture: the capture was invalidated, so there is no graph. It was "
               "invalidated by %s (CUDA reports: operation failed due to a previous error during "
               "capture)",
               why.c_str());
        return fail(cudaErrorStreamCaptureInvalidated);
    }
    static uintptr_t next = 0x6000;
    *pGraph = (cudaGraph_t)(next += 16);
    g_graphs[*pGraph] = std::move(recorded);
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *pCaptureStatus)
{
    API_ENTER();
    if (!pCaptureStatus) return fail(cudaErrorInvalidValue);
    if (!stream_ok(stream)) return fail(cudaErrorInvalidResourceHandle);
    if (!stream && !blocking_captures().empty()) {
        /* As documented: the error, and the capture goes on. */
        report("cudaStreamIsCapturing: the legacy (NULL) stream cannot be used while a blocking "
               "stream captures (CUDA reports: operation would make the legacy stream depend on "
               "a capturing blocking stream)");
        return fail(cudaErrorStreamCaptureImplicit);
    }
    Stream *s = capture_of(stream);
    *pCaptureStatus = s ? s->capture : cudaStreamCaptureStatusNone;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags)
{
    API_ENTER();
    if (!pGraphExec || !graph) return fail(cudaErrorInvalidValue);
    auto it = g_graphs.find(graph);
    if (it == g_graphs.end()) {
        report("cudaGraphInstantiate: %p is not a graph (destroyed?) (CUDA reports: invalid "
               "resource handle)",
               (void *)graph);
        return fail(cudaErrorInvalidResourceHandle);
    }
    if (flags) {
        report("cudaGraphInstantiate: flags 0x%llx; the simulator knows only 0 (CUDA reports: "
               "invalid argument)",
               flags);
        return fail(cudaErrorInvalidValue);
    }
    static uintptr_t next = 0x8000;
    *pGraphExec = (cudaGraphExec_t)(next += 16);
    g_execs[*pGraphExec] = it->second;
    return cudaSuccess;
}

/* The nodes run one after another, each to its end before the next starts (as
 * everything in the simulator); a node that fails stops the launch, and its
 * report says which node of the graph it was. */
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    API_ENTER();
    auto it = g_execs.find(graphExec);
    if (it == g_execs.end()) {
        report("cudaGraphLaunch: %p is not an instantiated graph (cudaGraphInstantiate; "
               "destroyed?) (CUDA reports: invalid resource handle)",
               (void *)graphExec);
        return fail(cudaErrorInvalidResourceHandle);
    }
    cudaError_t e;
    Use use = stream_use("cudaGraphLaunch", stream, &e);
    if (use == REFUSED) return e;
    if (use == RECORD) {
        /* CUDA would record the graph as one node (a child graph). */
        report("cudaGraphLaunch: into a capturing stream, which the simulator does not support: "
               "launch the graph outside the capture. The capture is now invalidated (the "
               "simulator reports: operation not supported)");
        invalidate(*capture_of(stream), g_report);
        return fail(cudaErrorNotSupported);
    }
    const Graph &nodes = it->second;
    DeviceOp op; /* one for all the nodes: what they open stays open until the end */
    for (size_t i = 0; i < nodes.size() && !e; i++) {
        char where[160];
        snprintf(where, sizeof where, "cudaGraphLaunch, node %zu of %zu (%s): ", i + 1,
                 nodes.size(), nodes[i].what.c_str());
        g_report_context = where;
        e = nodes[i].run();
    }
    g_report_context.clear();
    return e ? fail(e) : cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    API_ENTER();
    if (!graphExec) return fail(cudaErrorInvalidValue);
    if (!g_execs.erase(graphExec)) {
        report("cudaGraphExecDestroy: %p is not an instantiated graph (destroyed twice?) (CUDA "
               "reports: invalid resource handle)",
               (void *)graphExec);
        return fail(cudaErrorInvalidResourceHandle);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    API_ENTER();
    if (!graph) return fail(cudaErrorInvalidValue);
    if (!g_graphs.erase(graph)) {
        report("cudaGraphDestroy: %p is not a graph (destroyed twice?) (CUDA reports: invalid "
               "resource handle)",
               (void *)graph);
        return fail(cudaErrorInvalidResourceHandle);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    API_ENTER();
    if (!graph || !numNodes) return fail(cudaErrorInvalidValue);
    auto it = g_graphs.find(graph);
    if (it == g_graphs.end()) {
        report("cudaGraphGetNodes: %p is not a graph (destroyed?) (CUDA reports: invalid "
               "resource handle)",
               (void *)graph);
        return fail(cudaErrorInvalidResourceHandle);
    }
    const Graph &g = it->second;
    if (nodes) {
        /* As documented: entries past the last node are NULL, and *numNodes
         * says how many were filled in. */
        for (size_t i = 0; i < *numNodes; i++) nodes[i] = i < g.size() ? g[i].handle : nullptr;
        if (*numNodes > g.size()) *numNodes = g.size();
    } else {
        *numNodes = g.size();
    }
    return cudaSuccess;
}

} // extern "C"

/* For cublas.cpp: is [p, p + n) simulated device memory? */
extern "C" int cudasim_is_device_range(const void *p, size_t n)
{
    uintptr_t start;
    const Alloc *a = find_alloc(p, &start);
    return a && a->device && (uintptr_t)p + n <= start + a->size;
}

extern "C" void cudasim_report(const char *message) { report("%s", message); }

/* For cublas.cpp: a cuBLAS call is work issued to its handle's stream, run now
 * or recorded by the stream's capture. */
namespace cudasim {
cudaError_t issue_work(const char *call, cudaStream_t stream, std::function<cudaError_t()> work)
{
    return issue(call, stream, [work = std::move(work)] {
        DeviceOp op;
        return work();
    });
}

/* For cublas.cpp: a cuBLAS call is about to touch the device buffer holding p. */
void device_operand(const void *p) { open_for_device(p); }

/* For cublas.cpp: a cuBLAS call wrote [p, p + n) (for the checks of reads of
 * memory never written). */
void device_written(const void *p, size_t n) { mark_written(p, n); }
} // namespace cudasim
