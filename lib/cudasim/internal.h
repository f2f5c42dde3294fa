/*
 * internal.h: what the files of the CUDA simulator's rooms declare to each
 * other. The programs' calls are in cudasim.h and include/, the translated
 * kernels' in exec/kernel_api.h; this header is for the .cpp files of
 * lib/cudasim alone. Each section names the room and file that defines what
 * it declares (lib/cudasim/README.md walks the rooms; docs/simulator.md,
 * "How the simulator is built", lists every file).
 */
#ifndef CUDASIM_INTERNAL_H
#define CUDASIM_INTERNAL_H

#include <setjmp.h>
#include <stdint.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "include/cuda_runtime_api.h"
#include "exec/kernel_api.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define CUDASIM_ASAN 1
#else
#define CUDASIM_ASAN 0
#endif

/* Memory protection keys (host_guard.cpp) where the CPU and the system have them. */
#if defined(__x86_64__) && defined(PKEY_DISABLE_ACCESS)
#define CUDASIM_HAVE_PKEYS 1
#else
#define CUDASIM_HAVE_PKEYS 0
#endif

namespace cudasim {
namespace internal {

/* The limits of the device the simulator presents (a compute capability 8.0
 * part, the oldest the workbook's build targets with all features). */
const int kMaxThreadsPerBlock = 1024;
const int kMaxBlockDim[3] = {1024, 1024, 64};
const int kMaxGridDim[3] = {2147483647, 65535, 65535};
const size_t kSharedPerBlock = 48 * 1024;
const size_t kSharedPerBlockOptin = 163 * 1024;
const size_t kTotalMemory = (size_t)16 << 30;

/* ---- reports, errors and source lines (check/report.cpp) ---------------- */

extern cudaError_t g_last;          /* what cudaGetLastError returns next */
extern cudaError_t g_sticky;        /* a kernel fault: returned until reset */
extern std::string g_report;        /* the last report */
extern std::string g_report_context; /* prefixed to reports: where a graph launch is */
extern bool g_report_at_exit;        /* reports made at exit name no call site */

/* Report a problem: at the program's line that called the simulator, on the
 * report stream, and as the last report. */
void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern unsigned long long g_report_count; /* reports so far (a launch with none is clean) */
/* Fail a runtime call with e (cudaGetLastError returns it next). */
cudaError_t fail(cudaError_t e);
/* "file:line" of the code at pc ("" if unknown); a return address unless exact. */
std::string source_line(const void *pc, bool exact = false);
/* " at file:line", or "". */
std::string at_line(const void *pc, bool exact = false);

/* Hazards (races, reads of memory never written) do not stop a kernel; each
 * is reported once per pair of code addresses and once per pair of source
 * lines, at most kMaxHazardReports in all. */
extern unsigned long long g_hazards;
uint32_t pc_id(const void *pc); /* a number for the code address pc */
bool hazard_reported(int kind, uint64_t a, uint64_t b);
bool first_report(int kind, uint64_t a, uint64_t b, const std::string &lines);

/* ---- device memory and its allocation table (runtime/memory.cpp) -------- */

/* A buffer: device memory (cudaMalloc, cudaMallocManaged) or pinned host
 * memory (cudaMallocHost), placed against a guard page. */
struct Alloc {
    size_t size;      /* what the caller asked for */
    char *map;        /* the mapping: [slack][data][guard page] */
    size_t map_bytes;
    bool device;      /* false: pinned host memory from cudaMallocHost */
    bool guarded;     /* shut to host code: device memory a program allocated */
    bool open;        /* opened for the device operation running now */
    bool managed;     /* cudaMallocManaged: host code may touch it too */
    const void *pc;   /* where it was allocated (a return address), or NULL */
    unsigned long long serial = 0; /* the program's n-th allocation: a new buffer, a new number */
};
/* A freed device buffer, remembered while its addresses are not reused. */
struct Freed {
    size_t size;
    char *map;
    size_t map_bytes;
    bool managed;
    const void *alloc_pc, *free_pc;
};
extern std::map<uintptr_t, Alloc> g_allocs; /* by start address */
extern size_t g_in_use;                     /* bytes of device memory allocated */
extern size_t g_page;
extern size_t g_region_bytes; /* the device region's size */

/* The region and its shadow: one byte per 4 bytes of the region says which
 * bytes a kernel may touch (SH_ADDR and the low 3 bits: how many of the 4)
 * and which have been written (SH_INIT). */
extern uint8_t *g_shadow;
extern uintptr_t g_rg_lo, g_rg_span; /* [g_rg_lo, g_rg_lo + g_rg_span): the region */
enum : uint8_t {
    SH_ADDR = 0x80, /* a byte of a live buffer (the low 3 bits: how many of the 4) */
    SH_INIT = 0x40, /* written since it was allocated */
    SH_FULL = 0x84, /* 4 addressable bytes, not yet written */
    SH_DONE = 0xc4  /* 4 addressable bytes, written */
};
inline uint8_t *shadow_of(uintptr_t a) { return g_shadow + ((a - g_rg_lo) >> 2); }
inline bool in_region(uintptr_t a) { return a - g_rg_lo < g_rg_span; }

/* A device operation wrote [p, p + n) (a copy, a memset, cuBLAS). */
void mark_written(const void *p, size_t n);
/* The allocation that contains p (its start in *start), or NULL. */
const Alloc *find_alloc(const void *p, uintptr_t *start = nullptr);
/* The freed buffer whose mapping holds address a, or NULL. */
const Freed *find_freed(uintptr_t a, uintptr_t *start = nullptr);
/* The allocation whose mapping holds a (for the fault handler), or NULL. */
Alloc *mapping_of(uintptr_t a, uintptr_t *start);
/* A new buffer (device memory when device; shut to host code when guarded). */
void *map_buffer(size_t size, bool device, bool guarded, bool managed = false,
                 const void *pc = nullptr);
/* Give a buffer's pages back; with free_pc, remember that it was freed there. */
void unmap_buffer(uintptr_t start, const Alloc &a, const void *free_pc = nullptr);
/* The first buffer written outside its bounds (per its canaries), or NULL. */
const Alloc *check_canaries(uintptr_t *start, bool *before);
/* How reports name buffers. */
const char *alloc_name(bool device, bool managed);
std::string buffer_text(const Alloc &a);
std::string freed_text(const Freed &f);
/* __device__ and __constant__ variables known by their address and size. */
extern std::map<uintptr_t, size_t> g_symbols;
const size_t *find_symbol(const void *p, uintptr_t *start);
/* cudaDeviceReset: every buffer, freed buffer and symbol forgotten. */
void memory_reset();
/* Host memory that cudaHostRegister made usable by kernels (api_host_register.cpp),
 * and cudaDeviceReset's forgetting of it. */
bool host_registered(const void *p);
void host_register_reset();

/* ---- the leak check at exit (runtime/leaks.cpp) ------------------------- */

/* The program allocated (call: "cudaMalloc", ...; pc: where) or freed a device
 * buffer; cudaDeviceReset freed them all. */
void leak_allocated(const void *p, size_t size, const char *call, const void *pc);
void leak_freed(const void *p);
void leaks_reset();

/* ---- keeping host code out of device memory (runtime/host_guard.cpp) ---- */

extern int g_pkey;                 /* the protection key of device buffers, or -1 */
extern bool g_use_pkeys;           /* shut with g_pkey (else with mprotect) */
extern std::atomic<int> g_device_ops; /* device operations running (they nest) */
size_t data_bytes(const Alloc &a); /* a buffer's mapping less its guard page */
void shut(Alloc &a);
void open_to_all(Alloc &a);
void open_buffer(uintptr_t start, Alloc &a);
void open_for_device(const void *p);
void allow_device_memory(bool allow);

/* A device operation: kernels, copies, memsets, cuBLAS calls, graph
 * launches. While one runs (they nest), device buffers may be touched. */
struct DeviceOp {
    DeviceOp();
    ~DeviceOp();
    DeviceOp(const DeviceOp &) = delete;
    DeviceOp &operator=(const DeviceOp &) = delete;
};

/* ---- faults (check/faults.cpp) ------------------------------------------- */

/* The handler of SIGSEGV, SIGBUS and SIGFPE; the page size; protection keys. */
void install_fault_handler();

/* ---- host threads (runtime/host_threads.cpp) ----------------------------- */

/* The lock every API call and launch holds while it runs: a program whose
 * host threads call CUDA at once (a stream callback that starts a thread, an
 * OpenMP loop) has its calls run one at a time, as one device would take them.
 * Recursive: a stream callback, run inside the call that ran its stream's
 * work, may call the runtime itself. */
std::recursive_mutex &api_mutex();

/* Entry of most API calls: the API's lock, then a sticky error wins. */
#define API_ENTER()                                                                            \
    std::lock_guard<std::recursive_mutex> cudasim_api_lock_(cudasim::internal::api_mutex());   \
    do {                                                                                       \
        cudasim::internal::install_fault_handler();                                           \
        if (cudasim::internal::g_sticky) return cudasim::internal::fail(cudasim::internal::g_sticky); \
    } while (0)

/* ---- managed memory and the host's waits (runtime/managed.cpp) ----------- */

/* A cudaMallocManaged buffer is allocated (flags: cudaMallocManaged's), freed. */
void managed_allocated(uintptr_t start, unsigned flags);
void managed_freed(uintptr_t start);
/* Device work ran on stream ("kernel", its name): managed memory is the
 * GPU's until the host waits for it. */
void managed_work(cudaStream_t stream, const char *what, const char *name);
/* The host waited: for a stream (cudaStreamSynchronize, cudaStreamQuery, a
 * synchronous copy on the legacy stream), for an event, for the device. */
void managed_stream_waited(cudaStream_t stream);
void managed_event_recorded(cudaEvent_t event, cudaStream_t stream);
void managed_event_waited(cudaEvent_t event);
void managed_device_waited();
void managed_reset();
/* While a graph launch runs its nodes: their work is the launch's stream's. */
struct GraphWork {
    explicit GraphWork(cudaStream_t stream);
    ~GraphWork();
    GraphWork(const GraphWork &) = delete;
    GraphWork &operator=(const GraphWork &) = delete;
};
/* The platform CUDASIM_MANAGED names: true for linux (the default: a Pascal or
 * newer GPU under Linux, concurrentManagedAccess = 1), false for windows or
 * pre-pascal (concurrentManagedAccess = 0). */
bool managed_concurrent();
/* For the fault handler, on the linux platform: host code touched managed
 * memory while work may run, and that was reported as a race; the buffers open
 * until the next device work. */
void managed_host_raced();
/* A host atomic (a translated file's __sync_, __atomic_ or std::atomic operation) is
 * about to touch a: on the linux platform it is a system-scope atomic, ordered with
 * the device's *_system atomics, and the managed buffer it falls in opens to host
 * code without a report. (check/access.cpp's atomic hooks; the caller's line, for a
 * fault on the windows platform, is in t_host_atomic_caller meanwhile.) */
void managed_host_atomic(const volatile void *a);
extern CUDASIM_TLS const void *t_host_atomic_caller;
/* For the fault handler: the work that has managed memory now ("kernel k")
 * and the call stack that issued it; NULL when it is the host's. */
const char *managed_busy_with(void *const **frames, int *nframes);

/* ---- streams and events, graphs (runtime/streams.cpp, graphs.cpp) ------ */

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
    int priority = 0;              /* clamped into cudaDeviceGetStreamPriorityRange's */
    unsigned long long id = 0;     /* cudaStreamGetId's */
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
    Graph recorded;  /* by the capture so far (the capture's origin stream's) */
    std::string why; /* what invalidated the capture */
    /* A stream that joined another's capture (cudaStreamWaitEvent on an event
     * recorded in it): the stream that began the capture, which records its
     * work; NULL for the origin, and outside a capture. */
    cudaStream_t origin = nullptr;
    unsigned long long ops = 0;    /* work recorded from this stream in the capture */
    unsigned long long joined = 0; /* of which the capture waited for (an event after it) */
};
struct Event {
    unsigned flags = 0; /* cudaEventCreateWithFlags's */
    double ms = -1;     /* when it was last recorded (-1: never, or in a capture) */
    cudaStream_t captured = nullptr; /* last recorded by this stream's capture */
    unsigned long long ops = 0;      /* and after how much of that stream's work */
};
extern std::map<cudaStream_t, Stream> g_streams;
extern std::map<cudaEvent_t, Event> g_events;

bool stream_ok(cudaStream_t s);
/* The stream s if it captures (its capture active or invalidated), or NULL. */
Stream *capture_of(cudaStream_t s);
/* The stream that began the capture s takes part in (s itself, or the stream
 * it joined). */
Stream *capture_origin(Stream *s);
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
std::vector<Stream *> blocking_captures();
void invalidate(Stream &s, const std::string &why);
cudaError_t violation(cudaError_t e, const std::vector<Stream *> &broken, const char *call,
                      const char *why);
extern const char *const kLegacyWhy;
cudaError_t refuse(cudaStream_t stream, cudaError_t e);
enum Use { RUN, RECORD, REFUSED };
Use stream_use(const char *call, cudaStream_t s, cudaError_t *e);
void record(Stream &s, const std::string &what, std::function<cudaError_t()> run);
cudaError_t issue(const char *call, cudaStream_t stream, std::function<cudaError_t()> work);
cudaError_t check_unsafe(const char *call);
cudaError_t check_legacy(const char *call);
/* cudaDeviceReset: streams and events, graphs and their instances forgotten. */
void streams_reset();
void graphs_reset();

/* ---- a launch and its blocks' threads (exec/launch.cpp, fibers.cpp) ---- */

enum State { READY, AT_BARRIER, AT_WARP, DONE, AT_AWAIT /* a cuda::barrier's phase */,
             AT_GRID /* a grid sync (exec/cooperative.cpp) */ };

struct Thread {
#if !defined(__x86_64__)
    ucontext_t ctx; /* (x86-64 switches without it, fibers.cpp: a smaller Thread to scan) */
#endif
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
    const void *awaits = nullptr, *await_pc = nullptr; /* AT_AWAIT: the barrier, and where */
};

/* Buffers a launch passes only as pointers to const: read-only, so their
 * words cannot race and are not tracked (the kernel's inputs, most of its
 * global accesses). */
struct ReadOnly {
    uintptr_t lo, n;
};

/* The launch that runs now (one at a time): what was launched, the threads
 * of its running block, and the state of the checks of its accesses. One
 * object, reused from launch to launch (its vectors keep their capacity);
 * launch_begin and launch_end (launch.cpp) are where each launch takes it
 * and leaves it. */
struct Launch {
    /* what runs (launch.cpp) */
    const cudasim::LaunchConfig *cfg = nullptr;
    const cudasim::Args *args = nullptr;
    cudaError_t error = cudaSuccess;     /* how the launch ended */
    bool fibers = false;                 /* its threads run as fibers */
    const void *twin = nullptr;          /* the kernel's uninstrumented twin, which an
                                          * unchecked launch runs (exec/twins.cpp) */
    bool twin_parallel = false;          /* the twin may run blocks at once (parallel.cpp) */
    bool instrumented = false;           /* the kernel's accesses call the checks */
    bool need_fibers = false;            /* run without fibers, it reached a barrier */
    size_t static_shared = 0;            /* bytes of __shared__ variables this launch */
    unsigned long long block_serial = 0; /* blocks run since the program started */
    unsigned long long first_block = 0;  /* the block_serial of the launch's first block */
    bool in_kernel = false;              /* its blocks are running */
    sigjmp_buf abort_env;                /* where abort_launch leaves to */

    /* the running block's threads (fibers.cpp) */
    int nthreads = 0;
    std::vector<Thread> threads;
    Thread *current = nullptr;
    ucontext_t scheduler;
    void *scheduler_sp = nullptr;
    bool on_fiber = false;           /* running on a fiber's stack (not the scheduler's) */
    int turn = 0;                    /* the running fiber's turn in the pass (fibers.cpp) */
    bool from_scheduler = false;     /* (AddressSanitizer) the fiber starting now was entered
                                      * from the scheduler's stack, not another fiber's */
    unsigned plain_done = 0;         /* threads of the block run to their end (without fibers) */
    int tid = 0;                     /* the running thread: its index in the block */
    uint16_t wsync = 0;              /* its Thread::wsync */
    std::vector<uint16_t> warp_sync; /* per warp of the block: synchronizations so far */
    unsigned plain_k = 0;            /* the running thread's turn in run_block_plain */
    int stack_first = 0;             /* its block's first stack (cooperative.cpp: one per thread
                                      * of the grid, the blocks' threads waiting at a grid sync) */

    /* the block's faults (launch.cpp): a thread that faults stops, the block's others run
     * on, and the launch stops at the block's end with the report of the first thread
     * (the lowest index) and how many more faulted */
    bool faulted = false;
    int fault_tid = 0;                     /* the first of them */
    cudaError_t fault_error = cudaSuccess; /* the error CUDA gives for it */
    std::string fault_report;              /* its report */
    size_t fault_who_end = 0;              /* where the thread's name ends in it */
    unsigned fault_more = 0;               /* the block's other threads that faulted */

    /* the checks of its accesses (access.cpp, check_races.cpp) */
    bool checking = false;     /* the hooks call on_access: its accesses are checked or profiled */
    bool profiling = false;    /* on_access gives them to the profiler (profile_groups.cpp) */
    bool global_races = false; /* races on global memory are checked too */
    bool check_accesses = false; /* its accesses are checked (else only profiled, or neither) */
    uint64_t shape = 0;              /* its shape (launch.cpp's launch_shape), 0: none */
    unsigned long long reports_before = 0; /* g_report_count when it began */
    uint64_t stamp = 1;        /* block_serial << 24 | barriers the block has passed */
    ReadOnly readonly[8];      /* the buffers that only pointers to const reach */
    int readonly_n = 0;
};
/* The launch state of this thread: the program's thread's, g_main_launch, or a
 * worker's that runs some of a launch's blocks at once with the others
 * (exec/parallel.cpp). Everything of the simulator names it g_launch. */
extern Launch g_main_launch;
extern CUDASIM_TLS Launch *t_launch;
#define g_launch (*::cudasim::internal::t_launch)
extern unsigned long long g_launches;
/* cudaFuncSetAttribute's limits of dynamic shared memory, by kernel. */
extern std::map<const void *, int> g_dynamic_limit;
/* What the translator registered of the kernel at fn (exec/kernel_registry.cpp):
 * its __launch_bounds__' threads per block (0 without), and its static shared
 * memory, its __device__ functions' included. */
int kernel_max_threads(const void *fn);
size_t kernel_static_shared(const void *fn);
/* cudaFuncAttributePreferredSharedMemoryCarveout, kept by kernel (-1: none). */
void kernel_set_carveout(const void *fn, int carveout);
int kernel_carveout(const void *fn);
void kernel_carveouts_reset();

/* "kernel k, block (x,y,z), thread (x,y,z)": the running thread. */
void describe_thread(char *buf, size_t n);
/* Leave the launch: from a fiber, a plain thread or the fault handler. */
[[noreturn]] void abort_launch(cudaError_t e);
/* A thread's access faulted (memcheck, or the fault handler): keep its report (who:
 * describe_thread's words for it, which the report holds) if it is the block's first
 * thread to fault so far, and count it; then leave_faulted_thread. */
void note_fault(cudaError_t e, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Leave the faulting thread: the block's other threads run on (launch.cpp). */
[[noreturn]] void leave_faulted_thread();
/* Print what the block's threads printf'd since its last barrier. */
void printf_flush();
/* cudaDeviceReset: the kernels' attributes forgotten. */
void launch_reset();

/* Run the block's threads (resume: where they stopped, at a grid sync) to their end, or
 * until every one waits at a grid sync (cooperative.cpp). */
void run_block_fibers(bool resume = false);
void run_block_plain(unsigned from = 0); /* a kernel without barriers: plain calls */
/* The kernel at fn's uninstrumented twin (twins.cpp), or NULL where it has none;
 * *parallel: whether its launches may run their blocks on several cores at once. */
const void *kernel_twin(const void *fn, bool *parallel);
/* Whether the launch under way runs its blocks after the first on several cores,
 * and run blocks [from, end) so (parallel.cpp): 0 when every block ran to its end,
 * else as run_grid's sigsetjmp would come back (1 aborted, after its report; 2 a
 * thread faulted, the rest of its block ran), with the lowest such block's state in
 * g_launch. */
bool launch_runs_parallel();
int parallel_threads(); /* how many: CUDASIM_THREADS, or the CPUs this process may use */
int run_blocks_parallel(unsigned long long from, unsigned long long end);
/* The running thread runs the launch's kernel (its twin, where the launch runs one). */
inline void run_thread()
{
    if (g_launch.twin)
        g_launch.args->run_as(g_launch.twin);
    else
        g_launch.args->run();
}
/* After a thread faulted: the block's threads that can run, run to their end or their
 * next barrier (which nobody releases now). */
void finish_block_fibers();
/* The running thread waits (AT_AWAIT) on the cuda::barrier at bar until some
 * thread makes it READY again (fibers.cpp; pc: the program's wait). */
void fiber_await(const void *bar, const void *pc);

/* ---- a cooperative launch (exec/cooperative.cpp) ------------------------ */

/* cudaLaunchCooperativeKernel's check when it is issued: the grid must fit
 * on the device at once (else cudaErrorCooperativeLaunchTooLarge). */
cudaError_t cooperative_check(const cudasim::LaunchConfig *cfg);
/* Run a cooperative launch's blocks (run_grid's loop for one): each to its
 * first grid sync, in turn, then each on to its next, until all end. */
void run_grid_cooperative();
/* A cooperative launch's blocks are done, or it stopped: the numbers of its blocks
 * (Launch::block_serial) and the threads' stacks as after any launch. */
void cooperative_end();
/* run_block_fibers found no thread that can run: true when every thread
 * waits at a grid sync (the block stops there), a report and the launch's
 * end when some returned instead. */
bool block_at_grid_sync();
/* The running thread waits at a grid sync (fibers.cpp). */
void fiber_grid_wait(const char *file, int line);

/* ---- libcu++'s barriers and asynchronous copies (exec/barriers.cpp,
 *      async_copy.cpp) ----------------------------------------------------- */

/* Why the block's threads that wait at cuda::barriers can never go on, for
 * the report of a block that is stuck; false when none waits. */
bool explain_await(char *buf, size_t n);
/* The barrier at bar completed its phase `phase`: the copies bound to it land. */
void async_copies_land(const void *bar, unsigned phase);
#if CUDASIM_ASAN
extern const void *g_main_stack_bottom;
extern size_t g_main_stack_size;
#endif

/* ---- shared memory (exec/shared_memory.cpp) ------------------------------ */

/* A word's (or byte's) accesses since the last barrier, for the race check. */
struct Cell {
    uint64_t w_stamp; /* the last write: its epoch, code, thread */
    const void *w_pc;
    uint16_t w_tid, w_wsync;
    uint16_t r_tid, r_wsync, r2_tid, r2_wsync; /* reads since: by one thread, and another */
    uint64_t r_stamp;
    const void *r_pc, *r2_pc;
};
const uint16_t kNone = 0xffff;

extern CUDASIM_TLS char *g_arena;            /* the launch's shared memory */
extern size_t g_arena_used;      /* offsets taken this launch, red zones included */
extern uint16_t *g_arena_var;    /* per 4 bytes: the variable (index + 1), 0: red zone */
extern Cell *g_cells;            /* per 4 bytes of the arena */
extern Cell *g_bcells;           /* per byte, for accesses of less than a word */
extern CUDASIM_TLS uintptr_t g_sh_lo, g_sh_span; /* the arena and its guards */
bool arena_init();
void arena_begin(const cudasim::LaunchConfig *cfg);
void arena_block();
/* Where a bad shared access of n bytes at a went, for a report. */
std::string missed_shared(uintptr_t a, size_t n);
/* "s[3][5]" for the word at arena offset off. */
std::string shared_name(size_t off);

/* ---- the checks of every access (check/: access.cpp, check_memory.cpp,
 *      check_races.cpp) -------------------------------------------------- */

extern int g_check_level; /* CUDASIM_CHECK (see check_level) */
int check_level();
/* What an access of a kernel does (access.cpp's on_access sees each). */
enum AccessKind : uint8_t { LOAD, STORE, ATOMIC };
/* Words of shared memory that asynchronous copies will write when they land
 * (exec/async_copy.cpp): while there are any, every shared access is asked
 * whether it touches one (a read of the old bytes, a write the copy will
 * overwrite: reported as the hazards they are). */
extern unsigned long long g_async_pending;
void async_shared_access(uintptr_t a, size_t n, AccessKind kind, const void *pc);

/* memcheck and initcheck (check_memory.cpp) */
[[noreturn]] void report_oob(bool shared, uintptr_t a, size_t n, AccessKind kind, const void *pc);
[[noreturn]] void report_misaligned(uintptr_t a, size_t n, AccessKind kind, const void *pc);
void report_uninit(uintptr_t a, size_t n, const void *pc);
/* "Invalid __global__ read of size 4 bytes", as compute-sanitizer says it. */
std::string invalid_access(const char *space, AccessKind kind, size_t n);
std::string address_text(uintptr_t a); /* "0x..." (shared memory: its offset) */
std::string missed_global(uintptr_t a, size_t n);
/* "byte 20 (4-byte element 5) of a 1024-byte cudaMalloc buffer allocated at ..." */
std::string global_name(uintptr_t a, size_t n);

/* The memory space compute-sanitizer names for address a: "__global__",
 * "__shared__", "__constant__" or "__local__" (a thread's own). */
const char *space_name(uintptr_t a);

/* racecheck (check_races.cpp, and between blocks check_races_blocks.cpp; its
 * step at every access is in check_races.h) */
const unsigned long long kGlobalRaceLaunches = 4;
/* Under CUDASIM_CHECK=1 or 2, a kernel's launches of one shape (its grid,
 * block, shared memory, and arguments: each scalar's value, each pointer's
 * buffer and offset) are checked until this many of them ran clean (no
 * report); its later launches of that shape run unchecked (exec/launch.cpp). */
const unsigned long long kCheckedLaunches = kGlobalRaceLaunches;
void find_read_only_buffers(const cudasim::Args *args);
/* The launch's blocks are done (or it stopped): reads that were given an
 * older value (check_races_blocks.cpp) see memory as it is again. */
void races_launch_end();
/* A grid sync of a cooperative launch: accesses before it are ordered with those after. */
void races_grid_sync();

/* ---- variables (runtime/variables.cpp) ---------------------------------- */

/* A namespace-scope __device__, __constant__ or __managed__ variable of a
 * translated file, registered by it (cu2sim_variables.pl). Those the
 * translator could rewrite lie between two red zones of red_zone bytes each
 * (256); those it left as written (const, __managed__, ...) have none. The
 * program's other variables may lie between them, in [g_var_lo, g_var_lo +
 * g_var_span). access.cpp's variable_access checks a kernel's accesses to
 * them: memcheck (red zones, writes to __constant__), then races. */
enum VariableKind : uint8_t { VAR_DEVICE, VAR_CONSTANT, VAR_MANAGED };
struct Variable {
    uintptr_t lo;
    size_t size;
    const char *name, *file;
    int line;
    VariableKind kind;
    uint32_t red_zone;
};
extern uintptr_t g_var_lo, g_var_span;
/* The variable whose bytes or red zones hold a, or NULL. */
const Variable *find_variable(uintptr_t a);
/* "__device__ bins (64 bytes, declared at f.cu:9)"; with noun, "__device__
 * variable bins (...)". */
std::string variable_name(const Variable &v, bool noun);
/* "byte 4 of __device__ v (32 bytes, declared at ...)", or "" where a is in
 * no variable or its red zones. */
std::string variable_text(uintptr_t a);
/* memcheck's report of an access that misses v (in its red zones, or past its
 * end) or that writes a __constant__ one (check_memory.cpp). */
[[noreturn]] void report_variable(const Variable &v, uintptr_t a, size_t n, AccessKind kind,
                                  const void *pc);

/* ---- the runtime API (runtime/: api_device, api_memory, api_copy.cpp) -- */

extern int g_device; /* cudaSetDevice's */
/* Whether [p, p + n) is in one device buffer or variable (reported if not). */
cudaError_t check_device_range(const char *call, const char *which, const void *p, size_t n);
/* cudaDeviceReset: CUDA arrays freed, texture and surface objects destroyed
 * (runtime/api_texture.cpp; the texture files share runtime/texture.h). */
void textures_reset();

} // namespace internal

/* For cublas.cpp: run work as a device operation on the stream (or record
 * it); while it runs it may touch device memory, which host code may not. */
cudaError_t issue_work(const char *call, cudaStream_t stream, std::function<cudaError_t()> work);
/* The operation is about to touch the device buffer holding p: open it to
 * every thread (OpenBLAS's too) now. */
void device_operand(const void *p);
/* The operation wrote [p, p + n) of device memory. */
void device_written(const void *p, size_t n);

} // namespace cudasim

extern "C" int cudasim_is_device_range(const void *p, size_t n);
extern "C" void cudasim_report(const char *message);

#endif /* CUDASIM_INTERNAL_H */
