/*
 * managed.cpp: managed memory (cudaMallocManaged) as the simulated device
 * has it, on one of two platforms (CUDASIM_MANAGED):
 *
 * - linux (the default): a Pascal or newer GPU under Linux, which reports
 *   concurrentManagedAccess = 1. Host code may touch managed memory while
 *   kernels run; what it reads or writes then races with them. So here: when
 *   device work runs (a kernel, a cuBLAS call), every managed buffer is shut
 *   to host code as a cudaMalloc buffer is (host_guard.cpp), and host code
 *   that touches one before the host has waited for the work is reported as
 *   a race with that work (faults.cpp), naming the work and both lines; the
 *   buffers then open and the program goes on. A host atomic (__sync_,
 *   __atomic_, std::atomic) is a system-scope atomic, ordered with the
 *   device's atomicAdd_system and the like: it opens its buffer without a
 *   report (and the host's other accesses to that buffer go unchecked until
 *   the next device work after a wait). cudaMemPrefetchAsync and
 *   cudaMemAdvise take a GPU or the host as the place.
 * - windows (or pre-pascal): GPUs under Windows and before Pascal, which
 *   report concurrentManagedAccess = 0: from a kernel launch until the host
 *   waits for it, the GPU has all managed memory to itself (whether the
 *   kernel uses it or not), and a CPU access faults. The buffers are shut as
 *   above; host code that touches one gets one line naming the work and
 *   both lines, then the SIGSEGV a GPU machine gives. cudaMemPrefetchAsync
 *   and cudaMemAdvise refuse, as CUDA does on such a device, a GPU as the
 *   place to move the data to, prefer or map it for.
 *
 * On both, the buffers open again when the host has waited for all of the
 * work: cudaDeviceSynchronize; cudaStreamSynchronize or cudaStreamQuery of
 * its stream (of the legacy stream: of every blocking stream too);
 * cudaEventSynchronize or cudaEventQuery of an event recorded after it on
 * its stream; a synchronous cudaMemcpy, which waits for the legacy stream;
 * cudaFree, which waits for the device. A buffer allocated with (or
 * attached by cudaStreamAttachMemAsync to) cudaMemAttachHost stays the
 * host's.
 */
#include <execinfo.h>

#include <algorithm>
#include <cstring>

#include "../internal.h"

namespace cudasim {
namespace internal {

namespace {

std::vector<uintptr_t> g_managed; /* live managed buffers attached globally (by start) */
struct Work {
    cudaStream_t stream;
    unsigned long long serial; /* of its last work */
};
std::vector<Work> g_pending; /* streams whose work the host has not waited for */
std::map<cudaEvent_t, Work> g_marks; /* what each event was recorded after */
unsigned long long g_serial = 0;
bool g_busy = false;
char g_busy_what[160];   /* the work that shut managed memory: "kernel add_one" */
void *g_busy_frames[24]; /* and where the program issued it */
int g_busy_nframes = 0;
bool g_in_graph = false;
cudaStream_t g_graph_stream = nullptr;

bool is_legacy(cudaStream_t s) { return s == nullptr; }

bool blocking(cudaStream_t s)
{
    auto it = g_streams.find(s);
    return it == g_streams.end() || !(it->second.flags & cudaStreamNonBlocking);
}

void set_shut(uintptr_t start, bool shut_it)
{
    auto it = g_allocs.find(start);
    if (it == g_allocs.end()) return;
    Alloc &a = it->second;
    if (shut_it) {
        a.guarded = true;
        shut(a);
        return;
    }
    a.guarded = false;
    a.open = false;
    open_to_all(a);
}

/* The host waited: managed memory is its own again once no work is pending. */
void waited()
{
    if (!g_busy || !g_pending.empty()) return;
    g_busy = false;
    for (uintptr_t start : g_managed) set_shut(start, false);
}

/* Work of stream s up to serial `upto` is done (of the legacy stream: that of
 * every blocking stream too, as the legacy stream waits for them). */
void done_up_to(cudaStream_t s, unsigned long long upto)
{
    g_pending.erase(std::remove_if(g_pending.begin(), g_pending.end(),
                                   [&](const Work &w) {
                                       bool covered = w.stream == s ||
                                                      (is_legacy(s) && blocking(w.stream));
                                       return covered && w.serial <= upto;
                                   }),
                    g_pending.end());
    waited();
}

} // namespace

void managed_allocated(uintptr_t start, unsigned flags)
{
    if (flags & cudaMemAttachHost) return;
    g_managed.push_back(start);
    if (g_busy) set_shut(start, true);
}

void managed_freed(uintptr_t start)
{
    g_managed.erase(std::remove(g_managed.begin(), g_managed.end(), start), g_managed.end());
}

void managed_work(cudaStream_t stream, const char *what, const char *name)
{
    if (g_in_graph) stream = g_graph_stream;
    ++g_serial;
    bool found = false;
    for (Work &w : g_pending)
        if (w.stream == stream) w.serial = g_serial, found = true;
    if (!found) g_pending.push_back(Work{stream, g_serial});
    if (g_busy || g_managed.empty()) return;
    g_busy = true;
    snprintf(g_busy_what, sizeof g_busy_what, "%s%s%s", what, name ? " " : "", name ? name : "");
    g_busy_nframes = backtrace(g_busy_frames, 24);
    for (uintptr_t start : g_managed) set_shut(start, true);
}

void managed_stream_waited(cudaStream_t stream) { done_up_to(stream, ~0ull); }

bool managed_concurrent()
{
    const char *env = getenv("CUDASIM_MANAGED");
    return !env || (strcmp(env, "windows") != 0 && strcmp(env, "pre-pascal") != 0);
}

void managed_host_raced()
{
    if (!g_busy) return;
    g_busy = false; /* the work stays pending: its next launch shuts them again */
    for (uintptr_t start : g_managed) set_shut(start, false);
}

thread_local const void *t_host_atomic_caller = nullptr;

void managed_host_atomic(const volatile void *a)
{
    if (!g_busy || !managed_concurrent()) return;
    std::lock_guard<std::recursive_mutex> lock(api_mutex()); /* (host threads at once) */
    uintptr_t start;
    const Alloc *al = find_alloc((const void *)a, &start);
    if (al && al->managed && al->guarded)
        set_shut(start, false); /* shut again by the next work after a wait */
}

void managed_event_recorded(cudaEvent_t event, cudaStream_t stream)
{
    g_marks[event] = Work{stream, g_serial};
}

void managed_event_waited(cudaEvent_t event)
{
    auto it = g_marks.find(event);
    if (it != g_marks.end()) done_up_to(it->second.stream, it->second.serial);
}

void managed_device_waited()
{
    g_pending.clear();
    waited();
}

void managed_reset()
{
    g_managed.clear();
    g_pending.clear();
    g_marks.clear();
    g_busy = false;
}

GraphWork::GraphWork(cudaStream_t stream)
{
    g_in_graph = true;
    g_graph_stream = stream;
}

GraphWork::~GraphWork() { g_in_graph = false; }

const char *managed_busy_with(void *const **frames, int *nframes)
{
    if (!g_busy) return nullptr;
    *frames = g_busy_frames;
    *nframes = g_busy_nframes;
    return g_busy_what;
}

namespace {

/* cudaMemPrefetchAsync's and cudaMemAdvise's location: where the data may
 * go on this device (a GPU only with concurrentManagedAccess). */
cudaError_t check_location(const char *call, const char *what, cudaMemLocation where)
{
    int devices = 0;
    cudaError_t last = g_last; /* (a count of 0 is no error of this call) */
    cudaGetDeviceCount(&devices);
    g_last = last;
    switch ((int)where.type) {
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNumaCurrent: return cudaSuccess;
    case cudaMemLocationTypeHostNuma:
        if (where.id == 0) return cudaSuccess;
        report("%s: host NUMA node %d does not exist (the simulator's host has node 0) (CUDA "
               "reports: invalid argument)",
               call, where.id);
        return cudaErrorInvalidValue;
    case cudaMemLocationTypeDevice:
        if (where.id < 0 || where.id >= devices) {
            report("%s: device %d does not exist (%d device%s) (CUDA reports: invalid device "
                   "ordinal)",
                   call, where.id, devices, devices == 1 ? "" : "s");
            return cudaErrorInvalidDevice;
        }
        if (managed_concurrent()) return cudaSuccess;
        report("%s: %s device %d, which has concurrentManagedAccess = 0 (as GPUs under Windows and "
               "before Pascal: CUDASIM_MANAGED=windows), where CUDA allows it only on a device "
               "that has it; check cudaDevAttrConcurrentManagedAccess first (CUDA reports: "
               "invalid device ordinal)",
               call, what, where.id);
        return cudaErrorInvalidDevice;
    default:
        report("%s: location type %d is not one of cudaMemLocationTypeDevice, Host, HostNuma, "
               "HostNumaCurrent (CUDA reports: invalid argument)",
               call, (int)where.type);
        return cudaErrorInvalidValue;
    }
}

/* [p, p + n) must be managed memory. */
cudaError_t check_managed_range(const char *call, const void *p, size_t n)
{
    const Alloc *a = find_alloc(p);
    if (!a || !a->managed) {
        report("%s(%p): not cudaMallocManaged memory (CUDA reports: invalid argument)", call, p);
        return cudaErrorInvalidValue;
    }
    if (!n) return cudaSuccess;
    return check_device_range(call, "managed", p, n) ? cudaErrorInvalidValue : cudaSuccess;
}

} // namespace

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" {

cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t count, struct cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream)
{
    API_ENTER();
    if (!stream_ok(stream)) return fail(cudaErrorInvalidResourceHandle);
    if (flags) {
        report("cudaMemPrefetchAsync: flags must be 0 (CUDA reports: invalid argument)");
        return fail(cudaErrorInvalidValue);
    }
    if (cudaError_t e = check_managed_range("cudaMemPrefetchAsync", ptr, count)) return fail(e);
    if (cudaError_t e = check_location("cudaMemPrefetchAsync", "a prefetch to", location))
        return fail(e);
    return cudaSuccess; /* the simulator keeps managed memory in one place, the host's */
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location)
{
    API_ENTER();
    if (cudaError_t e = check_managed_range("cudaMemAdvise", devPtr, count)) return fail(e);
    switch (advice) {
    case cudaMemAdviseSetReadMostly:
    case cudaMemAdviseUnsetReadMostly:
    case cudaMemAdviseUnsetPreferredLocation: return cudaSuccess; /* location ignored */
    case cudaMemAdviseSetPreferredLocation:
        if (cudaError_t e = check_location("cudaMemAdvise", "a preferred location on", location))
            return fail(e);
        return cudaSuccess;
    case cudaMemAdviseSetAccessedBy:
    case cudaMemAdviseUnsetAccessedBy:
        if (location.type != cudaMemLocationTypeDevice && location.type != cudaMemLocationTypeHost) {
            report("cudaMemAdvise: cudaMemAdvise%sAccessedBy takes a device or the host (CUDA "
                   "reports: invalid argument)",
                   advice == cudaMemAdviseSetAccessedBy ? "Set" : "Unset");
            return fail(cudaErrorInvalidValue);
        }
        if (advice == cudaMemAdviseSetAccessedBy)
            if (cudaError_t e = check_location("cudaMemAdvise", "access by", location))
                return fail(e);
        return cudaSuccess;
    }
    report("cudaMemAdvise: advice %d is not a cudaMemoryAdvise (CUDA reports: invalid argument)",
           (int)advice);
    return fail(cudaErrorInvalidValue);
}

/* Which streams may use a managed buffer. The simulator keeps one rule for
 * all of them: cudaMemAttachHost keeps the buffer the host's (no device work
 * shuts it), cudaMemAttachGlobal and cudaMemAttachSingle make it the device
 * work's, whatever the stream (a buffer attached to one stream is shut by
 * work on any stream, which is stricter than CUDA). */
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                     unsigned int flags)
{
    API_ENTER();
    if (!stream_ok(stream)) return fail(cudaErrorInvalidResourceHandle);
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost &&
        flags != cudaMemAttachSingle) {
        report("cudaStreamAttachMemAsync: flags 0x%x; one of cudaMemAttachGlobal, "
               "cudaMemAttachHost, cudaMemAttachSingle (CUDA reports: invalid argument)",
               flags);
        return fail(cudaErrorInvalidValue);
    }
    if (flags == cudaMemAttachSingle && !stream) {
        report("cudaStreamAttachMemAsync: cudaMemAttachSingle to the legacy (NULL) stream; "
               "attach to a stream you created (CUDA reports: invalid argument)");
        return fail(cudaErrorInvalidValue);
    }
    uintptr_t start = 0;
    const Alloc *a = find_alloc(devPtr, &start);
    if (!a || !a->managed || (uintptr_t)devPtr != start || (length && length != a->size)) {
        report("cudaStreamAttachMemAsync(%p, %zu): not a cudaMallocManaged buffer from its "
               "start, with length 0 or its size (CUDA reports: invalid argument)",
               devPtr, length);
        return fail(cudaErrorInvalidValue);
    }
    managed_freed(start);
    managed_allocated(start, flags == cudaMemAttachHost ? cudaMemAttachHost : cudaMemAttachGlobal);
    if (flags == cudaMemAttachHost) set_shut(start, false);
    return cudaSuccess;
}

} // extern "C"
