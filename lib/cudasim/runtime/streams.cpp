/*
 * streams.cpp: streams and events. Everything is synchronous: work issued to
 * a stream runs when it is issued, and an event records the host's clock.
 * A stream that captures (graphs.cpp) records the work issued to it instead,
 * and the rules of stream capture are checked here: what may not be used
 * while a capture goes on (the legacy stream, waits, allocations) fails and
 * invalidates the capture, as in CUDA. Another stream joins a capture by
 * waiting for an event recorded in it (cudaStreamWaitEvent): its work is then
 * recorded into the same graph, in the order it is issued (an order every
 * dependency of the fork and join respects), until the capture ends; the
 * capture's streams are one capture, invalidated together.
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

Stream *capture_origin(Stream *s)
{
    if (!s || !s->origin) return s;
    auto it = g_streams.find(s->origin);
    return it == g_streams.end() ? s : &it->second;
}

namespace {
/* The handle of the stream s (in g_streams). */
cudaStream_t handle_of(const Stream *s)
{
    for (auto &kv : g_streams)
        if (&kv.second == s) return kv.first;
    return nullptr;
}
} // namespace

/* The legacy (NULL) stream waits for every blocking stream (one created
 * without cudaStreamNonBlocking): while one of them captures, it cannot be
 * used. */
std::vector<Stream *> blocking_captures()
{
    return captures([](const Stream &s) { return !(s.flags & cudaStreamNonBlocking); });
}

void invalidate(Stream &s, const std::string &why)
{
    Stream *origin = capture_origin(&s);
    if (origin->capture != cudaStreamCaptureStatusActive) return; /* the first reason stays */
    cudaStream_t o = handle_of(origin);
    for (auto &kv : g_streams)
        if (&kv.second == origin || (o && kv.second.origin == o)) {
            kv.second.capture = cudaStreamCaptureStatusInvalidated;
            kv.second.why = why;
        }
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
    s.ops++;
    capture_origin(&s)->recorded.push_back(Node{what, std::move(run), (cudaGraphNode_t)(next += 16)});
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
    return cudaStreamCreateWithPriority(stream, flags, 0);
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
    if (!event) return fail(cudaErrorInvalidValue);
    const unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if ((flags & ~known) || ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))) {
        report("cudaEventCreateWithFlags: flags 0x%x; an event's flags are cudaEventDefault, "
               "cudaEventBlockingSync, cudaEventDisableTiming and cudaEventInterprocess (which "
               "needs cudaEventDisableTiming) (CUDA reports: invalid argument)",
               flags);
        return fail(cudaErrorInvalidValue);
    }
    static uintptr_t next = 0xe000;
    *event = (cudaEvent_t)(next += 16);
    g_events[*event] = Event();
    g_events[*event].flags = flags;
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
    it->second.ops = use == RECORD ? capture_of(stream)->ops : 0;
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

/* As CUDA documents it: an event never recorded, or created with
 * cudaEventDisableTiming, is an invalid resource handle here. (An event
 * recorded but not yet complete would be cudaErrorNotReady; here the work
 * before it has run when it is recorded, so every recorded event is
 * complete.) */
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    API_ENTER();
    if (!ms) return fail(cudaErrorInvalidValue);
    auto a = g_events.find(start), b = g_events.find(end);
    if (a == g_events.end() || b == g_events.end()) {
        report("cudaEventElapsedTime: the %s event does not exist (destroyed? never created?) "
               "(CUDA reports: invalid resource handle)",
               a == g_events.end() ? "start" : "end");
        return fail(cudaErrorInvalidResourceHandle);
    }
    for (auto *ev : {&*a, &*b})
        if (ev->second.flags & cudaEventDisableTiming) {
            report("cudaEventElapsedTime: the %s event was created with cudaEventDisableTiming, "
                   "so it keeps no time; create it with cudaEventCreate (CUDA reports: invalid "
                   "resource handle)",
                   ev == &*a ? "start" : "end");
            return fail(cudaErrorInvalidResourceHandle);
        }
    if (a->second.ms < 0 || b->second.ms < 0) {
        report("cudaEventElapsedTime: the %s event was never recorded (cudaEventRecord), or last "
               "recorded in a stream capture, which takes no time (CUDA reports: invalid resource "
               "handle)",
               a->second.ms < 0 ? "start" : "end");
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
    if (use == RECORD && capture_origin(from) != capture_origin(capture_of(stream)))
        return violation(cudaErrorStreamCaptureIsolation, {capture_of(stream)},
                         "cudaStreamWaitEvent",
                         "a capturing stream may wait only for events recorded in the same "
                         "capture (the graph cannot depend on work outside it): wait before "
                         "cudaStreamBeginCapture");
    if (use == RECORD) {
        /* Within one capture: the waiting stream's later work depends on the
         * event's stream's work up to the event, which the graph's order keeps.
         * That work is now joined. */
        if (from != capture_of(stream) && it->second.ops > from->joined)
            from->joined = it->second.ops;
        return cudaSuccess;
    }
    if (from) {
        /* A fork: this stream joins the capture the event was recorded in. */
        if (!stream) {
            report("cudaStreamWaitEvent: the legacy (NULL) stream cannot join a stream capture: "
                   "wait with a stream you created (CUDA reports: operation not permitted when "
                   "stream is capturing)");
            invalidate(*from, g_report);
            return fail(cudaErrorStreamCaptureUnsupported);
        }
        Stream &joiner = g_streams[stream];
        Stream *origin = capture_origin(from);
        joiner.capture = origin->capture;
        joiner.mode = origin->mode;
        joiner.origin = handle_of(origin);
        joiner.ops = joiner.joined = 0;
    }
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int priority)
{
    API_ENTER();
    if (!stream) return fail(cudaErrorInvalidValue);
    if (flags & ~(unsigned)cudaStreamNonBlocking) {
        report("cudaStreamCreateWithFlags: flags 0x%x; a stream's flags are cudaStreamDefault "
               "and cudaStreamNonBlocking (CUDA reports: invalid argument)",
               flags);
        return fail(cudaErrorInvalidValue);
    }
    static uintptr_t next = 0x5000;
    static unsigned long long next_id = 0;
    *stream = (cudaStream_t)(next += 16);
    Stream &s = g_streams[*stream];
    s.flags = flags;
    s.priority = priority > 0 ? 0 : priority < -5 ? -5 : priority;
    s.id = ++next_id;
    return cudaSuccess;
}

namespace {
/* The stream of a cudaStreamGet* call, or NULL (the legacy stream's
 * properties are the defaults); *e says whether it exists. */
const Stream *stream_of(const char *call, cudaStream_t stream, cudaError_t *e)
{
    *e = cudaSuccess;
    if (!stream) return nullptr;
    auto it = g_streams.find(stream);
    if (it != g_streams.end()) return &it->second;
    report("%s: a stream that does not exist (destroyed?) (CUDA reports: invalid resource "
           "handle)",
           call);
    *e = fail(cudaErrorInvalidResourceHandle);
    return nullptr;
}
} // namespace

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    API_ENTER();
    if (!flags) return fail(cudaErrorInvalidValue);
    cudaError_t e;
    const Stream *s = stream_of("cudaStreamGetFlags", hStream, &e);
    if (!e) *flags = s ? s->flags : cudaStreamDefault;
    return e;
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    API_ENTER();
    if (!priority) return fail(cudaErrorInvalidValue);
    cudaError_t e;
    const Stream *s = stream_of("cudaStreamGetPriority", hStream, &e);
    if (!e) *priority = s ? s->priority : 0;
    return e;
}

cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device)
{
    API_ENTER();
    if (!device) return fail(cudaErrorInvalidValue);
    cudaError_t e;
    stream_of("cudaStreamGetDevice", hStream, &e);
    if (!e) *device = 0; /* the one device */
    return e;
}

/* The legacy stream's id is 0 here; the streams the program creates count from 1. */
cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId)
{
    API_ENTER();
    if (!streamId) return fail(cudaErrorInvalidValue);
    cudaError_t e;
    const Stream *s = stream_of("cudaStreamGetId", hStream, &e);
    if (!e) *streamId = s ? s->id : 0;
    return e;
}

/* The callback runs in stream order, as every work of the stream: here, when
 * it is issued, after all the work issued to the stream before it. It is told
 * the stream and cudaSuccess (a failed kernel's error is sticky, and then the
 * call fails before it is issued). Unlike cudaLaunchHostFunc, it cannot be
 * captured into a graph. */
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void *userData, unsigned int flags)
{
    API_ENTER();
    if (!callback) return fail(cudaErrorInvalidValue);
    if (flags) {
        report("cudaStreamAddCallback: flags must be 0 (CUDA reports: invalid argument)");
        return fail(cudaErrorInvalidValue);
    }
    if (Stream *c = capture_of(stream))
        return violation(cudaErrorStreamCaptureUnsupported, {c}, "cudaStreamAddCallback",
                         "a stream callback cannot be recorded into a graph (CUDA does not "
                         "support it in stream capture): use cudaLaunchHostFunc, which can be");
    return issue("cudaStreamAddCallback", stream, [=] {
        callback(stream, cudaSuccess, userData);
        return cudaSuccess;
    });
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
