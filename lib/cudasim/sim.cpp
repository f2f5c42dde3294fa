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
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <sys/mman.h>
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
#include <string>
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

void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void report(const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    g_report = g_report_context + buf;
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

struct Alloc {
    size_t size;      /* what the caller asked for */
    char *map;        /* the mapping: [slack][data][guard page] */
    size_t map_bytes;
    bool device;      /* false: pinned host memory from cudaMallocHost */
    bool guarded;     /* shut to host code: device memory a program allocated */
    bool open;        /* opened for the device operation running now */
};
std::map<uintptr_t, Alloc> g_allocs; /* by start address */
size_t g_in_use = 0;
size_t g_page = 4096;
const unsigned char kCanary = 0xcd;

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

/* The alignment of a buffer: as much as its size allows, up to 16 bytes, so
 * that a buffer of floats ends exactly at its guard page (an access one
 * element too far faults at once). Sizes that are not a multiple of 4 get 16
 * and a few canary bytes. */
size_t alignment_for(size_t size)
{
    return size % 16 == 0 ? 16 : size % 8 == 0 ? 8 : size % 4 == 0 ? 4 : 16;
}

size_t rounded_size(size_t size)
{
    size_t a = alignment_for(size);
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

/* A buffer: device memory (a cudaMalloc, shut to host code when guarded),
 * pinned host memory, or a launch's dynamic shared memory (device, not
 * guarded: it lives only during the launch). */
void *map_buffer(size_t size, bool device, bool guarded)
{
    /* Data ending at most 15 bytes (usually 0) before a guard page; the bytes
     * between its end and the page are canaries. */
    size_t rounded = rounded_size(size);
    size_t data_pages = (rounded + kFront + g_page - 1) / g_page;
    size_t map_bytes = (data_pages + 1) * g_page;
    char *map = (char *)mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED) return nullptr;
    char *guard = map + data_pages * g_page;
    mprotect(guard, g_page, PROT_NONE);
    char *data = guard - rounded;
    memset(data + size, kCanary, rounded - size);
    /* Canaries before the start too, for index -1 (the page before is ours). */
    size_t front = front_bytes(data, map);
    memset(data - front, kCanary, front);
#if CUDASIM_ASAN
    __asan_poison_memory_region(data + size, rounded - size); /* ASan names the thread */
    __asan_poison_memory_region(data - front, front);
#endif
    Alloc &a = g_allocs[(uintptr_t)data] = Alloc{size, map, map_bytes, device, guarded, false};
    if (guarded) shut(a);
    if (device) g_in_use += size;
    return data;
}

/* Give a buffer's pages back (and, under ASan, its shadow: the next mapping
 * at this address must not inherit the slack's poison). */
void unmap_buffer(const Alloc &a)
{
#if CUDASIM_ASAN
    __asan_unpoison_memory_region(a.map, a.map_bytes);
#endif
    munmap(a.map, a.map_bytes);
}

/* Check the canaries around every device buffer; returns the first buffer
 * written outside its bounds (and in *before whether before its start), or NULL.
 * (With mprotect, a buffer still shut was not touched: it is skipped.) */
const Alloc *check_canaries(uintptr_t *start, bool *before)
{
    for (auto &kv : g_allocs) {
        const Alloc &a = kv.second;
        if (a.guarded && !a.open && !g_use_pkeys) continue;
        size_t rounded = rounded_size(a.size);
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

/* name -> uses barriers or warp operations; filled by static initializers of
 * translated files, hence a function-local static (constructed on first use). */
std::map<std::string, int> &kernels()
{
    static std::map<std::string, int> table;
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
    char *dynamic_shared = nullptr;
    unsigned long long block_serial = 0;
    std::map<void *, unsigned long long> shared_seen; /* address -> block serial */
    size_t static_shared = 0;
    sigjmp_buf abort_env;
    bool in_kernel = false;
    bool on_fiber = false; /* running on a fiber's stack (not the scheduler's) */
} g_run;

/* AddressSanitizer must be told about every switch between stacks. */
#if CUDASIM_ASAN
void *g_main_fake_stack = nullptr;
const void *g_main_stack_bottom = nullptr;
size_t g_main_stack_size = 0;
#endif

std::vector<char *> g_stack_pool;

void describe_thread(char *buf, size_t n)
{
    const uint3 &b = cudasim_block_idx, &t = cudasim_thread_idx;
    snprintf(buf, n, "kernel %s, block (%u,%u,%u), thread (%u,%u,%u)", g_run.cfg->name, b.x, b.y,
             b.z, t.x, t.y, t.z);
}

/* Leave the launch: from a fiber, a plain thread or the fault handler. */
[[noreturn]] void abort_launch(cudaError_t e)
{
    if (e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure) g_sticky = e;
    g_last = g_run.error = e;
#if CUDASIM_ASAN
    /* Leaving a fiber for good: tell ASan we are back on the main stack. */
    if (g_run.on_fiber) __sanitizer_start_switch_fiber(nullptr, g_main_stack_bottom, g_main_stack_size);
#endif
    siglongjmp(g_run.abort_env, 1);
}

/* ---- faults ------------------------------------------------------------------ */

char g_altstack[64 * 1024];

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
    int n;
    if (al.device)
        n = snprintf(msg, sizeof msg,
                     "cudasim: host code %s device memory at %p (%s): on a GPU the CPU cannot "
                     "dereference device pointers; copy the data with cudaMemcpy first\n",
                     did, (void *)a, where);
    else
        n = snprintf(msg, sizeof msg,
                     "cudasim: host code %s memory at %p (%s): an index beyond the buffer\n",
                     did, (void *)a, where);
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
        signal(sig, SIG_DFL); /* crash as usual: the access faults again */
        return;
    }
    char who[256], what[512];
    describe_thread(who, sizeof who);
    if (sig == SIGFPE)
        snprintf(what, sizeof what,
                 "an integer division by zero (a GPU does not stop there, it gives an "
                 "undefined result; the simulator stops the kernel so you find it)");
    else if (al)
        snprintf(what, sizeof what,
                 "an access %lld bytes past the end of a %zu-byte %s buffer (an index "
                 "beyond its last element: check the bounds test)",
                 (long long)(a - (start + al->size)), al->size,
                 al->device ? "cudaMalloc" : "cudaMallocHost");
    else
        snprintf(what, sizeof what, "an invalid memory access at address %p", info->si_addr);
    report("%s: %s%s", who, what,
           sig == SIGFPE ? " (reported as an unspecified launch failure)"
                         : " (CUDA reports: an illegal memory access was encountered)");
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

void set_coordinates(const Thread &t) { cudasim_thread_idx = t.idx; }

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
    std::vector<int> waiting, done, elsewhere;
    const Thread *first = nullptr;
    for (int i = 0; i < g_run.nthreads; i++) {
        Thread &t = g_run.threads[i];
        if (t.state == AT_BARRIER) {
            if (!first) first = &t;
            if (t.line != first->line || strcmp(t.file, first->file) != 0)
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
    for (int i : waiting) g_run.threads[i].state = READY;
    return true;
}

void run_block_fibers()
{
    for (int i = 0; i < g_run.nthreads; i++) {
        Thread &t = g_run.threads[i];
        t.state = READY;
        t.started = false;
    }
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
    for (unsigned k = 0; k < count; k++) {
        unsigned i = reverse ? count - 1 - k : k;
        cudasim_thread_idx = uint3{i % b.x, i / b.x % b.y, i / (b.x * b.y)};
        g_run.args->run();
    }
}

bool kernel_uses_barriers(const char *name)
{
    std::string base(name);
    size_t lt = base.find('<');
    if (lt != std::string::npos) base.resize(lt);
    size_t colon = base.rfind("::");
    if (colon != std::string::npos) base = base.substr(colon + 2);
    auto it = kernels().find(base);
    return it == kernels().end() || it->second; /* unknown: the safe choice */
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
    g_run.fibers = kernel_uses_barriers(cfg->name);
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
    g_run.shared_seen.clear();
    g_run.dynamic_shared = nullptr;
    if (cfg->shared_bytes) {
        g_run.dynamic_shared = (char *)map_buffer(cfg->shared_bytes, true, false);
        g_in_use -= cfg->shared_bytes; /* not device memory the program allocated */
        if (!g_run.dynamic_shared) return fail(cudaErrorLaunchOutOfResources);
    }
    cudasim_grid_dim = cfg->grid;
    cudasim_block_dim = cfg->block;
    /* With mprotect, open the buffers passed as arguments now: cheaper than
     * a fault each (those reached otherwise fault, and open then). */
    if (!g_use_pkeys) args->pointers(open_for_device);

    g_run.in_kernel = true;
    g_run.on_fiber = false;
    if (sigsetjmp(g_run.abort_env, 1) != 0) {
#if CUDASIM_ASAN
        if (g_run.on_fiber) __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
        g_run.on_fiber = false;
        /* Back from the fault handler, which ran with the signal's PKRU. */
        allow_device_memory(true);
    } else {
        for (unsigned z = 0; z < cfg->grid.z; z++)
            for (unsigned y = 0; y < cfg->grid.y; y++)
                for (unsigned x = 0; x < cfg->grid.x; x++) {
                    cudasim_block_idx = uint3{x, y, z};
                    g_run.block_serial++;
                    if (g_run.dynamic_shared) /* garbage, as on a GPU, but loud garbage */
                        memset(g_run.dynamic_shared, 0xff, cfg->shared_bytes);
                    if (g_run.fibers)
                        run_block_fibers();
                    else
                        run_block_plain();
                }
        g_run.in_kernel = false;
        uintptr_t start;
        bool before = false;
        const Alloc *bad = check_canaries(&start, &before);
        if (bad) {
            report("kernel %s wrote %s a %zu-byte %s buffer (run the test under "
                   "AddressSanitizer, make test SAN=1, to learn which thread) (CUDA reports: an "
                   "illegal memory access was encountered)",
                   cfg->name, before ? "before the start of" : "past the end of", bad->size,
                   bad->device ? "cudaMalloc" : "cudaMallocHost");
            g_sticky = g_last = g_run.error = cudaErrorIllegalAddress;
        }
    }
    g_run.in_kernel = false;
    if (g_run.dynamic_shared) {
        uintptr_t start = (uintptr_t)g_run.dynamic_shared;
        Alloc a = g_allocs[start];
        g_allocs.erase(start);
        unmap_buffer(a);
        g_run.dynamic_shared = nullptr;
    }
    return g_run.error;
}

} // namespace

/* ---- the kernel-side entry points ----------------------------------------------- */

extern "C" int cudasim_register_kernel(const char *name, int uses_barriers)
{
    int &v = kernels()[name];
    v = v || uses_barriers;
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

extern "C" void cudasim_syncthreads(const char *file, int line)
{
    if (!g_run.fibers) {
        report("kernel %s: __syncthreads at %s:%d, but the kernel was run without fibers "
               "(the translator did not see it; call it from the kernel or a __device__ "
               "function of the same file)",
               g_run.cfg->name, file, line);
        abort_launch(cudaErrorLaunchFailure);
    }
    Thread *t = g_run.current;
    t->state = AT_BARRIER;
    t->file = file;
    t->line = line;
    yield();
    set_coordinates(*t);
}

extern "C" unsigned long long cudasim_warp_op(int op, unsigned mask, unsigned long long value,
                                              int arg, int width, const char *file, int line)
{
    if (!g_run.fibers) {
        report("kernel %s: a warp operation at %s:%d, but the kernel was run without fibers",
               g_run.cfg->name, file, line);
        abort_launch(cudaErrorLaunchFailure);
    }
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

extern "C" void *cudasim_dynamic_shared(void) { return g_run.dynamic_shared; }

extern "C" void cudasim_shared_note(void *addr, size_t bytes, const char *file, int line)
{
    unsigned long long &seen = g_run.shared_seen[addr];
    if (seen == g_run.block_serial) return;
    if (seen == 0) {
        g_run.static_shared += bytes;
        /* With the opt-in (cudaFuncSetAttribute), a block may have up to the
         * device's opt-in maximum in all; without it, 48 KiB. */
        size_t limit = g_dynamic_limit.count(g_run.cfg->fn) ? kSharedPerBlockOptin
                                                            : kSharedPerBlock;
        if (g_run.static_shared + g_run.cfg->shared_bytes > limit) {
            report("kernel %s: the __shared__ variable at %s:%d brings the block's shared "
                   "memory to %zu bytes (%zu static + %zu dynamic); a block may use at most %zu "
                   "(nvcc refuses too much static shared memory when it compiles) (CUDA "
                   "reports: too many resources requested for launch)",
                   g_run.cfg->name, file, line, g_run.static_shared + g_run.cfg->shared_bytes,
                   g_run.static_shared, g_run.cfg->shared_bytes, limit);
            abort_launch(cudaErrorLaunchOutOfResources);
        }
    }
    seen = g_run.block_serial;
    memset(addr, 0xff, bytes); /* a new block finds garbage there, as on a GPU */
}

/* ---- the simulator's own API ---------------------------------------------------- */

extern "C" const char *cudasim_last_report(void) { return g_report.c_str(); }
extern "C" void cudasim_clear_report(void) { g_report.clear(); }
extern "C" void cudasim_set_report_stream(FILE *stream) { g_report_stream = stream; }
extern "C" unsigned long long cudasim_launch_count(void) { return g_launches; }

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
char kind_of(const void *p) { return find_alloc(p) && find_alloc(p)->device ? 'd' : 'h'; }

cudaError_t check_device_range(const char *call, const char *which, const void *p, size_t n)
{
    uintptr_t start;
    const Alloc *a = find_alloc(p, &start);
    if (!a || !a->device) {
        report("%s: the %s pointer %p is not device memory (a host pointer, or freed; did you "
               "swap dst and src?) (CUDA reports: invalid argument)",
               call, which, p);
        return cudaErrorInvalidValue;
    }
    size_t left = start + a->size - (uintptr_t)p;
    if (n > left) {
        report("%s: %zu bytes from the %s pointer, but the device buffer has only %zu bytes "
               "from there (it holds %zu) (CUDA reports: invalid argument)",
               call, n, which, left, a->size);
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
    case cudaErrorLaunchFailure: return "unspecified launch failure";
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
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
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
    p->major = 8;
    p->minor = 0;
    p->pciBusID = physical_of(device); /* which simulated GPU of the machine */
    return cudaSuccess;
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
    for (auto &kv : g_allocs) unmap_buffer(kv.second);
    g_allocs.clear();
    g_in_use = 0;
    g_streams.clear();
    g_events.clear();
    g_graphs.clear();
    g_execs.clear();
    g_dynamic_limit.clear();
    g_sticky = g_last = cudaSuccess;
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **ptr, size_t size)
{
    API_ENTER();
    if (!ptr) return fail(cudaErrorInvalidValue);
    if (cudaError_t e = check_unsafe("cudaMalloc")) return e;
    *ptr = nullptr;
    if (size == 0) return cudaSuccess;
    if (size > kTotalMemory - g_in_use) {
        report("cudaMalloc(%zu bytes): only %zu of the simulated %zu bytes are free (CUDA "
               "reports: out of memory)",
               size, kTotalMemory - g_in_use, kTotalMemory);
        return fail(cudaErrorMemoryAllocation);
    }
    void *p = map_buffer(size, true, true);
    if (!p) return fail(cudaErrorMemoryAllocation);
    *ptr = p;
    return cudaSuccess;
}

cudaError_t cudaFree(void *ptr)
{
    API_ENTER();
    if (!ptr) return cudaSuccess;
    if (cudaError_t e = check_unsafe("cudaFree")) return e;
    auto it = g_allocs.find((uintptr_t)ptr);
    if (it == g_allocs.end() || !it->second.device) {
        report("cudaFree(%p): not the start of a cudaMalloc buffer (freed twice, or a host "
               "pointer?) (CUDA reports: invalid argument)",
               ptr);
        return fail(cudaErrorInvalidValue);
    }
    g_in_use -= it->second.size;
    unmap_buffer(it->second);
    g_allocs.erase(it);
    return cudaSuccess;
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
    unmap_buffer(it->second);
    g_allocs.erase(it);
    return cudaSuccess;
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
} // namespace cudasim
