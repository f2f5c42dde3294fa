/*
 * check_sim_graphs.c: CUDA Graphs. A captured epoch replayed must give what
 * running it directly gives, with the arguments it was captured with; each
 * call that breaks a rule of stream capture must fail and invalidate the
 * capture; a replay's errors are reported.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "lib/cudasim/cudasim.h"
#include "tests/sim/sim_kernels.h"
#include "tests/sim/sim_test.h"

/* ---- CUDA Graphs: stream capture and replay ------------------------------- */

enum { kN = 384, kRows = 16, kInner = 24, kCols = 4, kState = 2 * kN + 2 * kRows * kCols };

/* The buffers of a small training-like epoch, and where their contents go. */
struct Epoch {
    float *x, *y, *w, *c; /* device: kN, kN, kInner x kCols, kRows x kCols */
    float *out;           /* host: c copied back, kRows x kCols */
    cublasHandle_t blas;
    cudaStream_t stream;
};

static void epoch_setup(struct Epoch *e)
{
    e->x = dev(kN * sizeof(float));
    e->y = dev(kN * sizeof(float));
    e->w = dev(kInner * kCols * sizeof(float));
    e->c = dev(kRows * kCols * sizeof(float));
    e->out = calloc(kRows * kCols, sizeof(float));
    ck_assert_int_eq(cudaStreamCreate(&e->stream), cudaSuccess);
    ck_assert_int_eq(cublasCreate(&e->blas), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasSetStream(e->blas, e->stream), CUBLAS_STATUS_SUCCESS);
}

static void epoch_teardown(struct Epoch *e)
{
    free(e->out);
    cublasDestroy(e->blas);
    ck_assert_int_eq(cudaStreamDestroy(e->stream), cudaSuccess);
}

/* The same non-uniform starting values every time. */
static void epoch_inputs(struct Epoch *e)
{
    float *h = ramp(kN);
    ck_assert_int_eq(cudaMemcpy(e->x, h, kN * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(e->y, h, kN * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(e->w, h + 7, kInner * kCols * sizeof(float),
                                cudaMemcpyHostToDevice),
                     cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(e->c, h + 11, kRows * kCols * sizeof(float),
                                cudaMemcpyHostToDevice),
                     cudaSuccess);
    memset(e->out, 0, kRows * kCols * sizeof(float));
    free(h);
}

/* x, y, c and out, side by side. */
static void epoch_state(const struct Epoch *e, float *state)
{
    cudaMemcpy(state, e->x, kN * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(state + kN, e->y, kN * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(state + 2 * kN, e->c, kRows * kCols * sizeof(float), cudaMemcpyDeviceToHost);
    memcpy(state + 2 * kN + kRows * kCols, e->out, kRows * kCols * sizeof(float));
}

/* One epoch: the kinds of work lib's GPU backend captures, on one stream. A
 * memset, x = 2x + 1, y = x reversed per block of 128 (two blocks; barriers
 * and dynamic shared memory), c += 0.5 y w (y as a 16 x 24 matrix), c += 0.25,
 * and c copied to the host. Each step depends on the ones before, and x and c
 * on every earlier epoch. */
static void epoch_run(const struct Epoch *e)
{
    const float alpha = 0.5f, beta = 1.0f;
    ck_assert_int_eq(cudaMemsetAsync(e->y, 0, kN * sizeof(float), e->stream), cudaSuccess);
    ck_assert_int_eq(sim_axpb(e->x, 2.0f, 1.0f, kN, e->stream), cudaSuccess);
    ck_assert_int_eq(sim_reverse_blocks(e->x, e->y, 2, e->stream), cudaSuccess);
    ck_assert_int_eq(cublasSgemm(e->blas, CUBLAS_OP_N, CUBLAS_OP_N, kRows, kCols, kInner, &alpha,
                                 e->y, kRows, e->w, kInner, &beta, e->c, kRows),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(sim_axpb(e->c, 1.0f, 0.25f, kRows * kCols, e->stream), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(e->out, e->c, kRows * kCols * sizeof(float),
                                     cudaMemcpyDeviceToHost, e->stream),
                     cudaSuccess);
}

static enum cudaStreamCaptureStatus capture_status(cudaStream_t s)
{
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusInvalidated;
    ck_assert_int_eq(cudaStreamIsCapturing(s, &status), cudaSuccess);
    return status;
}

START_TEST(test_graph_replays_an_epoch)
{
    quiet();
    struct Epoch e;
    epoch_setup(&e);
    float want[kState], before[kState], got[kState];

    /* What three epochs give when run directly. */
    epoch_inputs(&e);
    for (int i = 0; i < 3; i++) epoch_run(&e);
    ck_assert_int_eq(cudaStreamSynchronize(e.stream), cudaSuccess);
    epoch_state(&e, want);

    epoch_inputs(&e);
    epoch_state(&e, before);
    unsigned long long launches = cudasim_launch_count();
    cudaGraph_t graph = NULL;
    ck_assert_int_eq(cudaStreamBeginCapture(e.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(capture_status(e.stream), cudaStreamCaptureStatusActive);
    epoch_run(&e);
    ck_assert_int_eq(cudaStreamEndCapture(e.stream, &graph), cudaSuccess);
    ck_assert_ptr_nonnull(graph);
    ck_assert_int_eq(capture_status(e.stream), cudaStreamCaptureStatusNone);

    /* Nothing ran: the work was recorded. */
    ck_assert_uint_eq(cudasim_launch_count(), launches);
    epoch_state(&e, got);
    ck_assert_msg(memcmp(got, before, sizeof got) == 0, "the capture changed the data");

    /* Six nodes, as cudaGraphGetNodes documents: NULL after the last. */
    size_t count = 0;
    ck_assert_int_eq(cudaGraphGetNodes(graph, NULL, &count), cudaSuccess);
    ck_assert_uint_eq(count, 6);
    cudaGraphNode_t nodes[8];
    count = 8;
    ck_assert_int_eq(cudaGraphGetNodes(graph, nodes, &count), cudaSuccess);
    ck_assert_uint_eq(count, 6);
    for (int i = 0; i < 8; i++) {
        if (i >= 6) {
            ck_assert_ptr_null(nodes[i]);
            continue;
        }
        ck_assert_ptr_nonnull(nodes[i]);
        for (int j = 0; j < i; j++) ck_assert_ptr_ne(nodes[i], nodes[j]);
    }

    cudaGraphExec_t exec = NULL;
    ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    /* The instance is a copy: the graph may go first. */
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);
    for (int i = 0; i < 3; i++) ck_assert_int_eq(cudaGraphLaunch(exec, e.stream), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(e.stream), cudaSuccess);
    ck_assert_uint_eq(cudasim_launch_count(), launches + 3 * 3);
    epoch_state(&e, got);
    for (int i = 0; i < kState; i++)
        ck_assert_msg(got[i] == want[i], "value %d after 3 replays: %g, run directly: %g", i,
                      (double)got[i], (double)want[i]);
    ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaSuccess);
    epoch_teardown(&e);
}
END_TEST

/* An epoch's C = alpha X W + beta C captured and instantiated (after x = a x, when a is
 * given): the arguments are read from the variables as the calls are captured. */
static cudaGraphExec_t capture_sgemm(const struct Epoch *e, const float *a, const float *alpha,
                                     const float *beta)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    ck_assert_int_eq(cudaStreamBeginCapture(e->stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    if (a) ck_assert_int_eq(sim_axpb(e->x, *a, 0.0f, kN, e->stream), cudaSuccess);
    ck_assert_int_eq(cublasSgemm(e->blas, CUBLAS_OP_N, CUBLAS_OP_N, kRows, kCols, kInner, alpha,
                                 e->x, kRows, e->w, kInner, beta, e->c, kRows),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cudaStreamEndCapture(e->stream, &graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);
    return exec;
}

START_TEST(test_graph_arguments_are_frozen)
{
    quiet();
    struct Epoch e;
    epoch_setup(&e);
    epoch_inputs(&e);
    float *h = ramp(kN), *z = dev(kN * sizeof(float));
    float a = 3.0f, alpha = 2.0f, beta = 0.0f;
    cudaGraphExec_t exec = capture_sgemm(&e, &a, &alpha, &beta);

    /* New values in the variables, and a launch that reuses the stack where
     * the captured launch kept its arguments. */
    a = 100.0f, alpha = -7.0f, beta = 5.0f;
    ck_assert_int_eq(sim_axpb(z, a, 7.0f, kN, e.stream), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, e.stream), cudaSuccess);

    float x[kN], c[kRows * kCols], w[kInner * kCols];
    cudaMemcpy(x, e.x, sizeof x, cudaMemcpyDeviceToHost);
    cudaMemcpy(c, e.c, sizeof c, cudaMemcpyDeviceToHost);
    cudaMemcpy(w, e.w, sizeof w, cudaMemcpyDeviceToHost);
    for (int i = 0; i < kN; i++) ck_assert_float_eq(x[i], 3.0f * h[i]);
    for (int j = 0; j < kCols; j++)
        for (int i = 0; i < kRows; i++) {
            double want = 0;
            for (int p = 0; p < kInner; p++) want += 2.0 * x[i + p * kRows] * w[p + j * kInner];
            ck_assert_float_eq_tol(c[i + j * kRows], (float)want, 1e-3f * (float)fabs(want));
        }
    ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaSuccess);
    free(h);
    epoch_teardown(&e);
}
END_TEST

/* What the calls that break a rule of stream capture (kViolations) use; the
 * capture is on stream. */
struct Violation {
    cudaStream_t stream;
    cudaEvent_t event;
    float *x;
    void *spare;
};

static cudaError_t v_device_synchronize(struct Violation *v)
{
    (void)v;
    return cudaDeviceSynchronize();
}
static cudaError_t v_stream_synchronize(struct Violation *v)
{
    return cudaStreamSynchronize(v->stream);
}
static cudaError_t v_stream_query(struct Violation *v) { return cudaStreamQuery(v->stream); }
static cudaError_t v_memcpy(struct Violation *v)
{
    float one = 1.0f;
    return cudaMemcpy(v->x, &one, sizeof one, cudaMemcpyHostToDevice);
}
static cudaError_t v_memset(struct Violation *v) { return cudaMemset(v->x, 0, 4); }
static cudaError_t v_malloc(struct Violation *v)
{
    (void)v;
    void *p = NULL;
    return cudaMalloc(&p, 64);
}
static cudaError_t v_free(struct Violation *v) { return cudaFree(v->spare); }
static cudaError_t v_legacy_launch(struct Violation *v) { return sim_axpb(v->x, 1.0f, 0.0f, 4, 0); }
static cudaError_t v_event_query(struct Violation *v)
{
    ck_assert_int_eq(cudaEventRecord(v->event, v->stream), cudaSuccess);
    return cudaEventQuery(v->event);
}
static cudaError_t v_wait_outside_event(struct Violation *v)
{
    return cudaStreamWaitEvent(v->stream, v->event, 0); /* recorded before the capture */
}
static cudaError_t v_bad_launch(struct Violation *v)
{
    dim3 one = {1, 1, 1}, big = {1025, 1, 1};
    return sim_launch_config(v->x, one, big, 0, v->stream);
}
static cudaError_t v_memset_host(struct Violation *v)
{
    static float host[4];
    return cudaMemsetAsync(host, 0, sizeof host, v->stream);
}

static const struct {
    const char *call; /* what the reports must name */
    cudaError_t (*run)(struct Violation *);
    cudaError_t want;
} kViolations[] = {
    {"cudaDeviceSynchronize", v_device_synchronize, cudaErrorStreamCaptureUnsupported},
    {"cudaStreamSynchronize", v_stream_synchronize, cudaErrorStreamCaptureUnsupported},
    {"cudaStreamQuery", v_stream_query, cudaErrorStreamCaptureUnsupported},
    {"cudaMemcpy", v_memcpy, cudaErrorStreamCaptureImplicit},
    {"cudaMemset", v_memset, cudaErrorStreamCaptureImplicit},
    {"cudaMalloc", v_malloc, cudaErrorStreamCaptureUnsupported},
    {"cudaFree", v_free, cudaErrorStreamCaptureUnsupported},
    {"kernel axpb", v_legacy_launch, cudaErrorStreamCaptureImplicit},
    {"cudaEventQuery", v_event_query, cudaErrorCapturedEvent},
    {"cudaStreamWaitEvent", v_wait_outside_event, cudaErrorStreamCaptureIsolation},
    {"kernel trivial", v_bad_launch, cudaErrorInvalidConfiguration},
    {"cudaMemsetAsync", v_memset_host, cudaErrorInvalidValue},
};

START_TEST(test_capture_violation_invalidates)
{
    quiet();
    struct Violation v;
    v.x = dev(64 * sizeof(float));
    v.spare = dev(64);
    ck_assert_int_eq(cudaStreamCreate(&v.stream), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&v.event), cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(v.event, v.stream), cudaSuccess);

    ck_assert_int_eq(cudaStreamBeginCapture(v.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(sim_axpb(v.x, 2.0f, 0.0f, 64, v.stream), cudaSuccess);
    ck_assert_int_eq(kViolations[_i].run(&v), kViolations[_i].want);
    report_has(kViolations[_i].call);
    cudaGetLastError();
    ck_assert_int_eq(capture_status(v.stream), cudaStreamCaptureStatusInvalidated);
    /* More work on the stream is refused, until the capture ends. */
    ck_assert_int_eq(cudaMemsetAsync(v.x, 0, 4, v.stream), cudaErrorStreamCaptureInvalidated);
    cudaGraph_t graph = (cudaGraph_t)&v; /* not NULL: the call must set it */
    ck_assert_int_eq(cudaStreamEndCapture(v.stream, &graph), cudaErrorStreamCaptureInvalidated);
    ck_assert_ptr_null(graph);
    report_has("the capture was invalidated");
    report_has(kViolations[_i].call);
    cudaGetLastError();

    /* The stream works again, and can capture again. */
    ck_assert_int_eq(capture_status(v.stream), cudaStreamCaptureStatusNone);
    ck_assert_int_eq(cudaStreamSynchronize(v.stream), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(v.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(sim_axpb(v.x, 2.0f, 0.0f, 64, v.stream), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(v.stream, &graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);
    cudaEventDestroy(v.event);
    ck_assert_int_eq(cudaStreamDestroy(v.stream), cudaSuccess);
}
END_TEST

START_TEST(test_capture_rules)
{
    quiet();
    cudaStream_t s, nb;
    cudaGraph_t graph = NULL, empty;
    cudaGraphExec_t exec;
    enum cudaStreamCaptureStatus status;
    float *x = dev(64 * sizeof(float)), one = 1.0f;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);

    /* The legacy stream cannot capture. */
    ck_assert_int_eq(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal),
                     cudaErrorStreamCaptureUnsupported);
    report_has("the legacy (NULL) stream cannot be captured");
    ck_assert_str_eq(cudaGetErrorString(cudaErrorStreamCaptureUnsupported),
                     "operation not permitted when stream is capturing");
    ck_assert_str_eq(cudaGetErrorName(cudaErrorStreamCaptureUnsupported),
                     "cudaErrorStreamCaptureUnsupported");
    ck_assert_int_eq(cudaStreamEndCapture(s, &graph), cudaErrorIllegalState);
    report_has("the stream is not capturing");
    ck_assert_int_eq(cudaStreamBeginCapture(s, (enum cudaStreamCaptureMode)7),
                     cudaErrorInvalidValue);
    cudaGetLastError();

    /* While a blocking stream captures, the legacy stream cannot even be
     * asked (and asking invalidates nothing); a capturing stream cannot be
     * destroyed, nor capture twice, nor launch a graph. */
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
    ck_assert_int_eq(cudaStreamIsCapturing(0, &status), cudaErrorStreamCaptureImplicit);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaErrorStreamCaptureUnsupported);
    report_has("end the capture first");
    ck_assert_int_eq(capture_status(s), cudaStreamCaptureStatusActive);
    ck_assert_int_eq(cudaStreamEndCapture(s, &empty), cudaSuccess);
    size_t count = 1;
    ck_assert_int_eq(cudaGraphGetNodes(empty, NULL, &count), cudaSuccess);
    ck_assert_uint_eq(count, 0);
    ck_assert_int_eq(cudaGraphInstantiate(&exec, empty, 1), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGraphInstantiate(&exec, empty, 0), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, s), cudaErrorNotSupported);
    ck_assert_int_eq(cudaStreamEndCapture(s, &graph), cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();

    /* In relaxed mode, allocations are allowed. */
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
    void *p = NULL;
    ck_assert_int_eq(cudaMalloc(&p, 64), cudaSuccess);
    ck_assert_int_eq(cudaFree(p), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(s, &graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);

    /* The legacy stream does not wait for a non-blocking stream, so it can be
     * used while one captures: a launch on it runs at once. */
    ck_assert_int_eq(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(x, &one, sizeof one, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(sim_axpb(x, 3.0f, 0.0f, 1, 0), cudaSuccess);
    ck_assert_int_eq(cudaStreamIsCapturing(0, &status), cudaSuccess);
    ck_assert_int_eq(status, cudaStreamCaptureStatusNone);
    ck_assert_int_eq(cudaStreamEndCapture(nb, &graph), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(&one, x, sizeof one, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_float_eq(one, 3.0f);

    /* Destroying in any order; twice is an error. */
    ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaSuccess);
    ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaGraphLaunch(exec, s), cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaGraphDestroy(empty), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaErrorInvalidResourceHandle);
    report_has("destroyed twice");
    ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaErrorInvalidResourceHandle);
    cudaGetLastError();
    ck_assert_int_eq(cudaStreamDestroy(nb), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
}
END_TEST

START_TEST(test_graph_replay_errors_are_reported)
{
    quiet();
    struct Epoch e;
    epoch_setup(&e);
    epoch_inputs(&e);
    const float alpha = 1.0f, beta = 0.0f;
    float *freed = dev(64), *y = dev(300 * sizeof(float));
    cudaGraph_t graph;
    cudaGraphExec_t exec;

    /* A buffer freed after the capture: the node finds it gone. */
    ck_assert_int_eq(cudaStreamBeginCapture(e.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(freed, 0, 64, e.stream), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(e.stream, &graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);
    ck_assert_int_eq(cudaFree(freed), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, e.stream), cudaErrorInvalidValue);
    report_has("cudaGraphLaunch, node 1 of 1 (cudaMemsetAsync): cudaMemsetAsync:");
    report_has("that the cudaFree at tests/sim/check_sim_graphs.c:");
    report_has("a use after free");
    cudaGetLastError();
    ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaSuccess);

    exec = capture_sgemm(&e, NULL, &alpha, &beta);
    ck_assert_int_eq(cudaFree(e.c), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, e.stream), cudaErrorInvalidValue);
    report_has("cudaGraphLaunch, node 1 of 1 (cublasSgemm): cublasSgemm: C is not a device buffer");
    cudaGetLastError();
    ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaSuccess);

    /* A kernel that writes out of bounds: reported as for a plain launch. */
    ck_assert_int_eq(cudaStreamBeginCapture(e.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(sim_axpb(e.x, 1.0f, 1.0f, kN, e.stream), cudaSuccess);
    ck_assert_int_eq(sim_double_off_by_one(e.x, y, 300, e.stream), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(e.stream, &graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, e.stream), cudaErrorIllegalAddress);
    report_has("cudaGraphLaunch, node 2 of 2 (kernel double_off_by_one): Invalid __global__ write "
               "of size 4 bytes in kernel double_off_by_one, block (2,0,0), thread (44,0,0)");
    report_has("0 bytes past the end of a 1200-byte cudaMalloc buffer");
    /* Sticky, as after a plain launch. */
    ck_assert_int_eq(cudaStreamSynchronize(e.stream), cudaErrorIllegalAddress);
    ck_assert_int_eq(cudaGraphLaunch(exec, e.stream), cudaErrorIllegalAddress);
    /* The reset takes the graph and its instance with it. */
    free(e.out);
    cublasDestroy(e.blas);
    ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
    ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaErrorInvalidResourceHandle);
}
END_TEST

TCase *sim_graphs_tcase(void)
{
    TCase *tc = tcase_create("graphs");
    tcase_add_test(tc, test_graph_replays_an_epoch);
    tcase_add_test(tc, test_graph_arguments_are_frozen);
    tcase_add_loop_test(tc, test_capture_violation_invalidates, 0, (int)(sizeof kViolations / sizeof kViolations[0]));
    tcase_add_test(tc, test_capture_rules);
    tcase_add_test(tc, test_graph_replay_errors_are_reported);
    return tc;
}

void sim_graphs_again(TCase *tc)
{
    tcase_add_test(tc, test_graph_replays_an_epoch);
    tcase_add_test(tc, test_graph_replay_errors_are_reported);
}
