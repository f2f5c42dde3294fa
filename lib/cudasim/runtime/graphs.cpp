/*
 * graphs.cpp: stream capture and CUDA Graphs. Between cudaStreamBeginCapture
 * and cudaStreamEndCapture a stream records the work issued to it
 * (streams.cpp) as the nodes of a graph; cudaGraphLaunch runs an instance's
 * nodes one after another, each to its end, and a node that fails stops the
 * launch with a report that names the node.
 */
#include "../internal.h"
#include "../profile/profile.h"

namespace cudasim {
namespace internal {

namespace {
std::map<cudaGraph_t, Graph> g_graphs;
std::map<cudaGraphExec_t, Graph> g_execs; /* instances of graphs: copies */
} // namespace

void graphs_reset()
{
    g_graphs.clear();
    g_execs.clear();
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" {

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
    s.origin = nullptr;
    s.ops = s.joined = 0;
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
    if (s->origin) {
        report("cudaStreamEndCapture: this stream joined a capture that another stream began "
               "(cudaStreamWaitEvent on an event recorded in it); end the capture on the stream "
               "that began it, after it waits for this one's work (CUDA reports: capture was not "
               "initiated in this stream)");
        invalidate(*s, g_report);
        return fail(cudaErrorStreamCaptureUnmatched);
    }
    /* Every stream that joined must have been waited for, to its last work. */
    std::vector<cudaStream_t> members{stream};
    const Stream *unjoined = nullptr;
    for (auto &kv : g_streams)
        if (kv.second.origin == stream) {
            members.push_back(kv.first);
            if (kv.second.ops > kv.second.joined && !unjoined) unjoined = &kv.second;
        }
    if (unjoined && s->capture == cudaStreamCaptureStatusActive) {
        report("cudaStreamEndCapture: a stream that joined the capture has work the capture "
               "never waited for (the last %llu of its %llu operations): record an event after "
               "its last work and make this stream wait for it (cudaStreamWaitEvent) before "
               "ending the capture; there is no graph (CUDA reports: capture sequence contains a "
               "fork that was not joined to the primary stream)",
               unjoined->ops - unjoined->joined, unjoined->ops);
    }
    bool forked = unjoined && s->capture == cudaStreamCaptureStatusActive;
    Graph recorded = std::move(s->recorded);
    std::string why = std::move(s->why);
    bool invalidated = s->capture == cudaStreamCaptureStatusInvalidated;
    for (cudaStream_t m : members) {
        Stream &t = g_streams[m];
        t.capture = cudaStreamCaptureStatusNone;
        t.recorded.clear();
        t.why.clear();
        t.origin = nullptr;
        t.ops = t.joined = 0;
    }
    for (auto &kv : g_events)
        for (cudaStream_t m : members)
            if (kv.second.captured == m) kv.second.captured = nullptr;
    if (forked) {
        *pGraph = nullptr;
        return fail(cudaErrorStreamCaptureUnjoined);
    }
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
    GraphWork work(stream); /* their work is this stream's */
    model_graph(true); /* one launch for all its kernels */
    for (size_t i = 0; i < nodes.size() && !e; i++) {
        char where[160];
        snprintf(where, sizeof where, "cudaGraphLaunch, node %zu of %zu (%s): ", i + 1,
                 nodes.size(), nodes[i].what.c_str());
        g_report_context = where;
        e = nodes[i].run();
    }
    g_report_context.clear();
    model_graph(false);
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
