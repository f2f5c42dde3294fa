/*
 * streams.cpp: streams and events. Everything is synchronous: work issued to
 * a stream runs when it is issued, and an event records the host's clock.
 * A stream that captures (graphs.cpp) records the work issued to it instead,
 * and the rules of stream capture are checked here: what may not be used
 * while a capture goes on (the legacy stream, waits, allocations) fails and
 * invalidates the capture, as in CUDA.
 */
#include <time.h>

#include "../internal.h"
#include "../profile/profile.h"

namespace cudasim {
namespace internal {

std::map<cudaStream_t, Stream> g_streams;
std::map<cudaEvent_t, Event> g_events;

namespace {
double now_ms()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}
} // namespace

bool stream_ok(cudaStream_t s) { return s == nullptr || g_streams.count(s); }

/* The stream s if it captures (its capture active or invalidated), or NULL. */
Stream *capture_of(cudaStream_t s)
{
    auto it = g_streams.find(s);
    if (it == g_streams.end() || it->second.capture == cudaStreamCaptureStatusNone) return nullptr;
    return &it->second;
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

namespace {

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

void streams_reset()
{
    g_streams.clear();
    g_events.clear();
}

} // namespace internal

/* For cublas.cpp: a cuBLAS call is work issued to its handle's stream, run now
 * or recorded by the stream's capture. */
cudaError_t issue_work(const char *call, cudaStream_t stream, std::function<cudaError_t()> work)
{
    return internal::issue(call, stream, [call, stream, work = std::move(work)] {
        internal::DeviceOp op;
        cudaError_t e = work();
        internal::managed_work(stream, call, nullptr);
        return e;
    });
}

} // namespace cudasim

using namespace cudasim::internal;

extern "C" {

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
    cudaError_t e = check_wait("cudaStreamSynchronize", stream);
    if (!e) model_sync();
    if (!e) managed_stream_waited(stream);
    return e;
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    API_ENTER();
    cudaError_t e = check_wait("cudaStreamQuery", stream);
    if (!e) managed_stream_waited(stream); /* "done": as good as a wait */
    return e;
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
    if (use == RUN) managed_event_recorded(event, stream);
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    API_ENTER();
    cudaError_t e = check_event_wait("cudaEventSynchronize", event);
    if (!e) model_sync();
    if (!e) managed_event_waited(event);
    return e;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    API_ENTER();
    cudaError_t e = check_event_wait("cudaEventQuery", event);
    if (!e) managed_event_waited(event);
    return e;
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

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int priority)
{
    (void)priority;
    return cudaStreamCreateWithFlags(stream, flags);
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

} // extern "C"
