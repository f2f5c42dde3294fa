/*
 * ex02_4_relu_kernel.c: the cases of exercise 02.4, the ReLU kernel
 * (k_relu_forward), on the GPU or the CUDA simulator.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h. The
 * inputs are in tables and formulas both halves share; what they should give
 * is only in the JUDGE halves.
 */
#include "suite.h"

/* ---- ex02.4 the ReLU kernel ---------------------------------------------------------- */

#define TAIL 64              /* sentinel floats after the output, checked on a GPU too */
#define SENTINEL (-12345.0f) /* what they hold */

/* The input: every fifth value a zero, the others negatives and positives (hundredths
 * in [-5, 5)) drawn for this grading run (drawn.h), so that a kernel which writes a
 * formula of its index instead of reading x meets values it cannot know. */
static float relu_in(int64_t i)
{
    static uint64_t seed;
    if (!seed) seed = drawn_start("02.4").state;
    if (i % 5 == 0) return 0.0f;
    Drawn d = {seed ^ ((uint64_t)i * 0xD1B54A32D192ED03ull)};
    return (float)(drawn_int(&d, -500, 499)) * 0.01f;
}

/* One call of the argument case: x and y are the case's buffers or NULL. */
static const struct {
    int x_null, y_null;
    int64_t n;
    const char *what;
} args_in[] = {
    {0, 0, 0, "n = 0 (nothing to do, no launch)"},
    {0, 0, -1, "n = -1"},
    {1, 0, 4, "x = NULL"},
    {0, 1, 4, "y = NULL"},
    {0, 0, (int64_t)1 << 32, "n = 2^32 (too big for int indices)"},
    {1, 0, 1, "x = NULL and n = 1"},
    {0, 1, 1, "y = NULL and n = 1"},
    {0, 0, (int64_t)INT_MAX + 1, "n = 2^31 (INT_MAX + 1, too big for int indices)"},
    {0, 0, INT64_MIN, "n = -2^63"},
    {1, 1, 0, "x = y = NULL and n = 0 (nothing to read: not an error)"},
};
#define ARGS_N 5 /* the good call after them: 5 values into a buffer of 5 + TAIL */

#ifdef GRADE_RUNNER
static const char *report(void)
{
#ifdef CUDASIM
    return cudasim_last_report();
#else
    return "";
#endif
}

/* A k_relu_forward call's records: name (put_rc), name.name (cudaGetErrorName),
 * name.string (cudaGetErrorString). */
static void put_cuda(const char *name, cudaError_t e)
{
    put_rc(name, (int)e);
    put_str(key("%s.name", name), cudaGetErrorName(e));
    put_str(key("%s.string", name), cudaGetErrorString(e));
}

/* Device buffers of n + TAIL floats: x holds relu_in and the sentinel, y
 * (unless it is x) NaN then the sentinel. */
static void relu_buffers(int64_t n, int in_place, float **dx, float **dy)
{
    size_t bytes = (size_t)(n + TAIL) * sizeof(float);
    float *h = malloc(bytes);
    ck_assert_ptr_nonnull(h);
    for (int64_t i = 0; i < n + TAIL; i++) h[i] = i < n ? relu_in(i) : SENTINEL;
    ck_assert_int_eq(cudaMalloc((void **)dx, bytes), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(*dx, h, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    if (in_place) {
        *dy = *dx;
    } else {
        ck_assert_int_eq(cudaMalloc((void **)dy, bytes), cudaSuccess);
        /* NaN: every element must be written */
        ck_assert_int_eq(cudaMemset(*dy, 0xff, (size_t)n * sizeof(float)), cudaSuccess);
        ck_assert_int_eq(cudaMemcpy(*dy + n, h + n, TAIL * sizeof(float), cudaMemcpyHostToDevice),
                         cudaSuccess);
    }
    free(h);
}

/* Copy the n + TAIL floats of a device buffer back and record them (and
 * name.copy, what cudaMemcpy returned). */
static void put_device(const char *name, const float *d, int64_t n)
{
    size_t bytes = (size_t)(n + TAIL) * sizeof(float);
    float *h = malloc(bytes);
    ck_assert_ptr_nonnull(h);
    cudaError_t c = cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
    put_i64(key("%s.copy", name), c);
    put_str(key("%s.copy.string", name), cudaGetErrorString(c));
    if (c == cudaSuccess) put_f32(name, h, n + TAIL);
    free(h);
}

/* On the simulator, the same call again on buffers of exactly n floats (k.probe: the
 * simulator's report, "" when it had none). The case's own buffers have a tail of
 * sentinels, which a write past the end of y changes without a fault; here that write
 * leaves the buffer, and the simulator names the block, the thread and the line of the
 * first thread that made it. (The device is reset after a fault: the case goes on.) */
static void relu_probe(const char *k, int64_t n, int in_place)
{
#ifdef CUDASIM
    size_t bytes = (size_t)n * sizeof(float);
    float *h = malloc(bytes), *dx = NULL, *dy = NULL;
    ck_assert_ptr_nonnull(h);
    for (int64_t i = 0; i < n; i++) h[i] = relu_in(i);
    ck_assert_int_eq(cudaMalloc((void **)&dx, bytes), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(dx, h, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    dy = dx;
    if (!in_place) ck_assert_int_eq(cudaMalloc((void **)&dy, bytes), cudaSuccess);
    free(h);
    cudasim_clear_report();
    err_clear();
    cudaError_t e = k_relu_forward(dx, dy, n, 0);
    cudaError_t s = cudaDeviceSynchronize();
    put_str(key("%s.probe", k), e == cudaSuccess && s == cudaSuccess ? "" : report());
    if (s != cudaSuccess) {
        cudaDeviceReset();
        quiet_device();
        return;
    }
    cudaGetLastError();
    cudaFree(dx);
    if (!in_place) cudaFree(dy);
#else
    (void)k, (void)n, (void)in_place;
#endif
}

/* k_relu_forward on n values (zeros, negatives, positives), on stream 0.
 * Returns 0 when the device is left with an error (an illegal address is
 * sticky: nothing else can run, so the case stops there and the judge says
 * why). */
static int relu_run(const char *k, int64_t n, int in_place)
{
    quiet_device();
    float *dx = NULL, *dy = NULL;
    relu_buffers(n, in_place, &dx, &dy);
    long long before = launches();
    err_clear();
    cudaError_t e = k_relu_forward(dx, dy, n, 0);
    put_cuda(key("%s.rc", k), e);
    put_launches(key("%s.launches", k), before);
    cudaError_t s = cudaDeviceSynchronize();
    put_i64(key("%s.sync", k), s);
    put_str(key("%s.sync.string", k), cudaGetErrorString(s));
    put_str(key("%s.report", k), report());
    put_device(key("%s.y", k), dy, n);
    if (!in_place) put_device(key("%s.x", k), dx, n);
    cudaFree(dx);
    if (!in_place) cudaFree(dy);
    int ok = s == cudaSuccess && cudaGetLastError() == cudaSuccess;
    if (ok) relu_probe(k, n, in_place);
    return ok;
}

RUN(relu_kernel_small)
{
    if (relu_run("a", 1, 0)) relu_run("b", 100, 0);
}

RUN(relu_kernel_blocks)
{
    /* One element into a second block of 256; then hundreds of blocks. */
    if (relu_run("a", 257, 0)) relu_run("b", 70001, 0);
}

RUN(relu_kernel_in_place) { (void)relu_run("a", 1000, 1); }

RUN(relu_kernel_stream)
{
    /* k_relu_forward(x, y, 1000, s) while s is being captured into a CUDA
     * graph: a launch on s is recorded, not run, until the graph runs. */
    const int64_t n = 1000;
    quiet_device();
    float *dx = NULL, *dy = NULL;
    relu_buffers(n, 0, &dx, &dy);
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    long long before = launches();
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    err_clear();
    put_cuda("rc", k_relu_forward(dx, dy, n, s));
    cudaGraph_t graph = NULL;
    cudaError_t end = cudaStreamEndCapture(s, &graph);
    put_i64("end", end);
    put_str("end.name", cudaGetErrorName(end));
    put_str("report", report());
    put_launches("launches_captured", before);
    put_device("y_captured", dy, n); /* before the graph runs */
    if (end == cudaSuccess && graph) {
        size_t nodes = 0;
        ck_assert_int_eq(cudaGraphGetNodes(graph, NULL, &nodes), cudaSuccess);
        put_i64("nodes", (int64_t)nodes);
        cudaGraphExec_t exec = NULL;
        cudaError_t g = cudaGraphInstantiate(&exec, graph, 0);
        if (g == cudaSuccess) g = cudaGraphLaunch(exec, s);
        if (g == cudaSuccess) g = cudaStreamSynchronize(s);
        put_i64("graph", g);
        put_str("graph.string", cudaGetErrorString(g));
        put_str("graph.report", report());
        put_device("y", dy, n);
        put_device("x", dx, n);
        if (exec) cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
    }
    cudaStreamDestroy(s);
    cudaFree(dx);
    cudaFree(dy);
}

RUN(relu_kernel_launch_error)
{
    /* A launch that fails must be reported. The stream s is broken first: a
     * stream being captured cannot be synchronized, and trying invalidates
     * its capture, after which CUDA refuses every launch into s until
     * cudaStreamEndCapture. */
    const int64_t n = 300;
    quiet_device();
    float *dx = NULL, *dy = NULL;
    relu_buffers(n, 0, &dx, &dy);
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_msg(cudaStreamSynchronize(s) != cudaSuccess,
                  "grader: synchronizing a stream being captured did not fail");
    cudaGetLastError(); /* that error is not k_relu_forward's */
    long long before = launches();
    err_clear();
    put_cuda("rc", k_relu_forward(dx, dy, n, s));
    put_launches("launches", before);
    cudaGraph_t graph = NULL;
    cudaStreamEndCapture(s, &graph);
    if (graph) cudaGraphDestroy(graph);
    cudaDeviceSynchronize();
    cudaGetLastError();
    put_device("y", dy, n);
    cudaStreamDestroy(s);
    cudaFree(dx);
    cudaFree(dy);
    (void)relu_run("after", n, 0); /* and a good call still works */
}

RUN(relu_kernel_arguments)
{
    /* Bad calls on x and y, which must change nothing; then a good call on
     * the same buffers. */
    quiet_device();
    float *dx = NULL, *dy = NULL;
    relu_buffers(ARGS_N, 0, &dx, &dy);
    for (int i = 0; i < COUNT(args_in); i++) {
        long long before = launches();
        err_clear();
        cudaError_t e = k_relu_forward(args_in[i].x_null ? NULL : dx, args_in[i].y_null ? NULL : dy,
                                       args_in[i].n, 0);
        put_cuda(key("%d.rc", i), e);
        put_launches(key("%d.launches", i), before);
        cudaDeviceSynchronize();
        cudaGetLastError();
    }
    put_device("y_bad", dy, ARGS_N);
    long long before = launches();
    err_clear();
    put_cuda("good.rc", k_relu_forward(dx, dy, ARGS_N, 0));
    put_launches("good.launches", before);
    cudaError_t s = cudaDeviceSynchronize();
    put_i64("good.sync", s);
    put_str("good.sync.string", cudaGetErrorString(s));
    put_str("good.report", report());
    put_device("good.y", dy, ARGS_N);
    put_device("good.x", dx, ARGS_N);
    cudaFree(dx);
    cudaFree(dy);
}
#endif

#ifdef GRADE_JUDGE
/* Names of the errors the judge expects (it cannot ask CUDA). */
static const char *cuda_name(int e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    default: return "another error";
    }
}

static void expect_kernel_written(const char *rk)
{
    ck_assert_msg(!(got_rc(rk) != cudaSuccess && got_rc_code(rk) == ERR_TODO),
                  "k_relu_forward is not written yet");
}

/* " (the simulator says: ...)" when it said something. */
static const char *sim_says(const char *name, char *buf, size_t size)
{
    const char *r = got_str(name);
    snprintf(buf, size, "%s%s", *r ? "; the simulator says: " : "", r);
    return buf;
}

/* The n + TAIL floats of a device buffer that put_device recorded. */
static const float *got_device(const char *name, const char *what, int64_t n)
{
    if (got_i64(key("%s.copy", name)) != cudaSuccess)
        ck_abort_msg("reading %s back with cudaMemcpy failed: %s (an earlier kernel error?)", what,
                     got_str(key("%s.copy.string", name)));
    return got_f32(name, n + TAIL);
}

/* y = relu(x) in [0, n), and the sentinel after it; probe: what the simulator said of
 * the same call on buffers of exactly n floats (relu_probe), or "". */
static void expect_relu(const float *got, int64_t n, const char *where, const char *probe)
{
    for (int64_t i = n; i < n + TAIL; i++)
        ck_assert_msg(got[i] == SENTINEL,
                      "k_relu_forward(n = %lld) wrote past the end of y: y[%lld] changed (the "
                      "threads beyond n must do nothing: test i < n)%s%s",
                      (long long)n, (long long)i,
                      *probe ? "; on buffers of exactly n floats, the simulator says: " : "",
                      probe);
    for (int64_t i = 0; i < n; i++) {
        float x = relu_in(i), want = x > 0.0f ? x : 0.0f;
        ck_assert_msg(got[i] == want,
                      "y[%lld] is %g but should be %g (n = %lld%s; a NaN means no thread "
                      "wrote it: does the grid cover all n elements?): %s",
                      (long long)i, (double)got[i], (double)want, (long long)n, where,
                      drawn_note("x"));
    }
}

/* x must still hold its input (and the sentinel after it). */
static void expect_x_unchanged(const float *got, int64_t n)
{
    for (int64_t i = 0; i < n + TAIL; i++) {
        float want = i < n ? relu_in(i) : SENTINEL;
        if (memcmp(&got[i], &want, sizeof want) != 0)
            ck_abort_msg("k_relu_forward(n = %lld) changed its input x at [%lld] (%g became %g): "
                         "x must only be read (y is a different buffer here)",
                         (long long)n, (long long)i, (double)want, (double)got[i]);
    }
}

/* The records of one call with its launch count, synchronize and result. */
static void relu_call_judge(const char *k, int64_t n, int check_x, const char *where)
{
    char says[700];
    const char *rk = key("%s.rc", k);
    expect_kernel_written(rk);
    int e = got_rc(rk), s = (int)got_i64(key("%s.sync", k));
    if (e == cudaSuccess && got_has(key("%s.launches", k)) && got_i64(key("%s.launches", k)) == 0)
        ck_abort_msg("k_relu_forward(n = %lld) launched no kernel: the work must be done by a "
                     "CUDA kernel (on a GPU the CPU cannot even read these device arrays)",
                     (long long)n);
    ck_assert_msg(e == cudaSuccess && s == cudaSuccess,
                  "k_relu_forward(n = %lld) returned \"%s\" and cudaDeviceSynchronize \"%s\"%s",
                  (long long)n, got_str(key("%s.string", rk)), got_str(key("%s.sync.string", k)),
                  sim_says(key("%s.report", k), says, sizeof says));
    const char *probe = got_has(key("%s.probe", k)) ? got_str(key("%s.probe", k)) : "";
    expect_relu(got_device(key("%s.y", k), "y", n), n, where, probe);
    if (check_x) expect_x_unchanged(got_device(key("%s.x", k), "x", n), n);
}

JUDGE(relu_kernel_small)
{
    relu_call_judge("a", 1, 1, "");
    relu_call_judge("b", 100, 1, "");
}

JUDGE(relu_kernel_blocks)
{
    relu_call_judge("a", 257, 1, "");
    relu_call_judge("b", 70001, 1, "");
}

JUDGE(relu_kernel_in_place) { relu_call_judge("a", 1000, 0, ", in place"); }

JUDGE(relu_kernel_stream)
{
    const int64_t n = 1000;
    char says[700];
    expect_kernel_written("rc");
    int e = got_rc("rc");
    ck_assert_msg(e == cudaSuccess,
                  "k_relu_forward(x, y, %lld, s), with the stream s being captured into a CUDA "
                  "graph, returned \"%s\": launch the kernel on the stream it is given "
                  "(<<<blocks, threads, 0, s>>>), and do not synchronize or copy in it%s",
                  (long long)n, got_str("rc.name"), sim_says("report", says, sizeof says));
    ck_assert_msg(got_i64("end") == cudaSuccess,
                  "cudaStreamEndCapture after k_relu_forward(x, y, %lld, s) failed with %s: "
                  "k_relu_forward did something a stream capture cannot record (a launch on "
                  "another stream, a synchronous copy or a synchronize?)%s",
                  (long long)n, got_str("end.name"), sim_says("report", says, sizeof says));
    const float *y0 = got_device("y_captured", "y", n);
    for (int64_t i = 0; i < n; i++)
        ck_assert_msg(isnan(y0[i]),
                      "y[%lld] was written (%g) while the stream s was being captured, before "
                      "the graph ran: k_relu_forward must launch its kernel on the stream s it "
                      "is given, not do the work at once",
                      (long long)i, (double)y0[i]);
    if (got_has("launches_captured") && got_i64("launches_captured") != 0)
        ck_abort_msg("k_relu_forward(x, y, %lld, s) launched %lld kernels at once while s was "
                     "being captured: launch on the stream s it is given",
                     (long long)n, (long long)got_i64("launches_captured"));
    int64_t nodes = got_i64("nodes");
    ck_assert_msg(nodes == 1,
                  "k_relu_forward(x, y, %lld, s) put %lld operations on the stream s, expected "
                  "one: the kernel launch (and no copies or memsets)",
                  (long long)n, (long long)nodes);
    ck_assert_msg(got_i64("graph") == cudaSuccess,
                  "running the captured graph of k_relu_forward(x, y, %lld, s) failed: %s%s",
                  (long long)n, got_str("graph.string"),
                  sim_says("graph.report", says, sizeof says));
    expect_relu(got_device("y", "y", n), n, ", launched on a stream captured into a graph", "");
    expect_x_unchanged(got_device("x", "x", n), n);
}

JUDGE(relu_kernel_launch_error)
{
    const int64_t n = 300;
    expect_kernel_written("rc");
    ck_assert_msg(got_rc("rc") != cudaSuccess,
                  "k_relu_forward(x, y, %lld, s) returned cudaSuccess, but its launch failed (s "
                  "was a stream whose capture had failed, and CUDA refuses launches into it): "
                  "return cudaGetLastError() right after the launch, so that a failed launch "
                  "is reported",
                  (long long)n);
    const float *y = got_device("y", "y", n);
    for (int64_t i = 0; i < n; i++)
        ck_assert_msg(isnan(y[i]),
                      "y[%lld] became %g, but the launch into s should have failed (s was a "
                      "stream whose capture had failed): launch on the stream s it is given",
                      (long long)i, (double)y[i]);
    relu_call_judge("after", n, 1, ", the call after the failed launch");
}

JUDGE(relu_kernel_arguments)
{
    static const cudaError_t want[] = {
        cudaSuccess,           cudaErrorInvalidValue, cudaErrorInvalidValue,
        cudaErrorInvalidValue, cudaErrorInvalidValue, cudaErrorInvalidValue,
        cudaErrorInvalidValue, cudaErrorInvalidValue, cudaErrorInvalidValue,
        cudaSuccess,
    };
    ck_assert(COUNT(want) == COUNT(args_in));
    for (int i = 0; i < COUNT(args_in); i++) {
        const char *rk = key("%d.rc", i);
        expect_kernel_written(rk);
        int e = got_rc(rk);
        ck_assert_msg(e == (int)want[i], "k_relu_forward with %s returned %s, expected %s",
                      args_in[i].what, got_str(key("%s.name", rk)), cuda_name(want[i]));
        const char *lk = key("%d.launches", i);
        if (got_has(lk) && got_i64(lk) != 0)
            ck_abort_msg("k_relu_forward with %s launched %lld kernel%s, expected none",
                         args_in[i].what, (long long)got_i64(lk), got_i64(lk) == 1 ? "" : "s");
    }
    const float *y = got_device("y_bad", "y", ARGS_N);
    for (int64_t i = 0; i < ARGS_N; i++)
        ck_assert_msg(isnan(y[i]),
                      "y[%lld] became %g after the calls with bad arguments: they must do "
                      "nothing but return their error",
                      (long long)i, (double)y[i]);
    relu_call_judge("good", ARGS_N, 1, ", after the calls with bad arguments");
}
#endif
