/*
 * ex03_4_transpose.c: the cases of exercise 03.4, the transpose kernel
 * (k_transpose): its result, its arguments, and its memory accesses (trace_check.h).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h.
 */
#include "suite.h"
#ifdef GRADE_JUDGE
#include "trace_check.h"
#endif

/* ---- ex03.4 the transpose ------------------------------------------------------------ */

/* k_transpose runs on the simulator (the Makefile's SIM_GRADED): the result cases check
 * the output; the counter cases also record every access the kernel made, and the judge
 * checks that record against the output and costs it itself (trace_check.h). */
#define TR_TAIL 64               /* sentinel floats after the output */
#define TR_SENTINEL (-23456.0f)  /* what they hold */

typedef struct TrShape {
    const char *p;
    int64_t rows, cols;
} TrShape;

/* The result's shapes: one element, not a multiple of a tile either way, one tile, a
 * column, a row, several tiles with ragged edges. */
static const TrShape tr_shapes[] = {
    {"a", 1, 1}, {"b", 3, 5}, {"c", 32, 32}, {"d", 33, 1}, {"e", 1, 65}, {"f", 70, 45},
};
#define N_TR ((int)(sizeof tr_shapes / sizeof tr_shapes[0]))
/* The counters' shapes: whole tiles, so every warp's request is a full one. */
static const TrShape tr_square = {"sq", 64, 64}, tr_wide = {"wide", 96, 160};

/* The input of shape p, drawn for this grading run: k / 256 in [-1024, 1024). */
static float *tr_input(const TrShape *s)
{
    int64_t n = s->rows * s->cols;
    float *h = malloc((size_t)(n ? n : 1) * sizeof *h);
    Drawn d = drawn_start(key("03.4.%s", s->p));
    for (int64_t i = 0; i < n; i++) h[i] = drawn_value(&d, 1024, 8);
    return h;
}

/* The argument checks: each call must return its error (or cudaSuccess) and launch nothing. */
static const struct {
    int in_null, out_null;
    int64_t rows, cols;
    const char *what;
    cudaError_t want;
} tr_args[] = {
    {0, 0, -1, 4, "rows = -1", cudaErrorInvalidValue},
    {0, 0, 4, -1, "cols = -1", cudaErrorInvalidValue},
    {0, 0, 65536, 65536, "rows = cols = 65536 (2^32 elements, too many for int indices)",
     cudaErrorInvalidValue},
    {0, 0, 1, (int64_t)INT_MAX + 1, "rows = 1, cols = 2^31 (too many for int indices)",
     cudaErrorInvalidValue},
    {1, 0, 4, 4, "in = NULL", cudaErrorInvalidValue},
    {0, 1, 4, 4, "out = NULL", cudaErrorInvalidValue},
    {0, 0, 0, 4, "rows = 0 (nothing to do, no launch)", cudaSuccess},
    {1, 1, 4, 0, "cols = 0 and NULL pointers (nothing to read: not an error)", cudaSuccess},
};
#define N_TR_ARGS ((int)(sizeof tr_args / sizeof tr_args[0]))

#ifdef GRADE_RUNNER
#include "../kernel_run.h"

/* k_transpose on shape s: name.rc (put_rc, with .name), name.sync, name.launches,
 * name.out (rows * cols + TR_TAIL floats), name.in (the input after the call), and
 * with `trace` the kernel's accesses (name.trace: their 32-bit words carried as the
 * bits of floats, never computed with) and the buffers' addresses. */
static void tr_run(const TrShape *s, int trace)
{
    quiet_device();
    int64_t n = s->rows * s->cols;
    float *h = tr_input(s), *back = malloc((size_t)(n + TR_TAIL) * sizeof *back);
    ck_assert(h && back);
    float *din = NULL, *dout = NULL;
    ck_assert_int_eq(cudaMalloc((void **)&din, (size_t)(n ? n : 1) * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&dout, (size_t)(n + TR_TAIL) * sizeof(float)), cudaSuccess);
    if (n)
        ck_assert_int_eq(cudaMemcpy(din, h, (size_t)n * sizeof(float), cudaMemcpyHostToDevice),
                         cudaSuccess);
    for (int64_t i = 0; i < n + TR_TAIL; i++) back[i] = i < n ? NAN : TR_SENTINEL;
    ck_assert_int_eq(cudaMemcpy(dout, back, (size_t)(n + TR_TAIL) * sizeof(float),
                                cudaMemcpyHostToDevice),
                     cudaSuccess);
    put_i64(key("%s.in_base", s->p), (int64_t)(uintptr_t)din);
    put_i64(key("%s.out_base", s->p), (int64_t)(uintptr_t)dout);
#ifdef CUDASIM
    if (trace) cudasim_trace_start();
#endif
    long long before = launches();
    err_clear();
    cudaError_t e = k_transpose(din, dout, s->rows, s->cols, 0);
    put_rc(key("%s.rc", s->p), (int)e);
    put_str(key("%s.rc.name", s->p), cudaGetErrorName(e));
    cudaError_t sync = cudaDeviceSynchronize();
    put_i64(key("%s.sync", s->p), sync);
    put_str(key("%s.sync.name", s->p), cudaGetErrorString(sync));
    if (before >= 0) put_i64(key("%s.launches", s->p), launches() - before);
#ifdef CUDASIM
    if (trace) {
        cudasim_trace_stop();
        size_t nw = 0;
        const uint32_t *w = cudasim_trace_words(&nw);
        float *bits = malloc((nw ? nw : 1) * sizeof *bits);
        ck_assert(bits);
        memcpy(bits, w, nw * sizeof *w);
        put_f32(key("%s.trace", s->p), bits, (int64_t)nw);
        free(bits);
    }
#else
    (void)trace; /* a GPU records no accesses: the counter cases fail and say why */
#endif
    if (cudaMemcpy(back, dout, (size_t)(n + TR_TAIL) * sizeof(float), cudaMemcpyDeviceToHost) ==
        cudaSuccess)
        put_f32(key("%s.out", s->p), back, n + TR_TAIL);
    if (n && cudaMemcpy(back, din, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess)
        put_f32(key("%s.in", s->p), back, n);
    cudaFree(din);
    cudaFree(dout);
    free(h);
    free(back);
}

RUN(transpose_result)
{
    for (int i = 0; i < N_TR; i++) tr_run(&tr_shapes[i], 0);
}

RUN(transpose_arguments)
{
    quiet_device();
    float *din = NULL, *dout = NULL;
    ck_assert_int_eq(cudaMalloc((void **)&din, 16 * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&dout, 16 * sizeof(float)), cudaSuccess);
    for (int i = 0; i < N_TR_ARGS; i++) {
        long long before = launches();
        cudaError_t e = k_transpose(tr_args[i].in_null ? NULL : din, tr_args[i].out_null ? NULL : dout,
                                    tr_args[i].rows, tr_args[i].cols, 0);
        put_rc(key("arg%d.rc", i), (int)e);
        if (before >= 0) put_i64(key("arg%d.launches", i), launches() - before);
        cudaGetLastError();
    }
    cudaFree(din);
    cudaFree(dout);
    tr_run(&tr_shapes[1], 0); /* and a good call after them */
}

RUN(transpose_counters_square) { tr_run(&tr_square, 1); }
RUN(transpose_counters_wide) { tr_run(&tr_wide, 1); }
#endif

#ifdef GRADE_JUDGE
static void tr_expect_written(const char *rk)
{
    ck_assert_msg(!(got_rc(rk) != cudaSuccess && got_rc_code(rk) == ERR_TODO),
                  "k_transpose is not written yet");
}

/* The output of shape s: out(j, i) = in(i, j), and the sentinels after it untouched. */
static const float *tr_expect_result(const TrShape *s)
{
    const char *p = s->p;
    long long r = (long long)s->rows, c = (long long)s->cols;
    int64_t n = s->rows * s->cols;
    tr_expect_written(key("%s.rc", p));
    ck_assert_msg(got_rc(key("%s.rc", p)) == cudaSuccess,
                  "k_transpose(rows = %lld, cols = %lld) returned %s; a good call returns "
                  "cudaSuccess",
                  r, c, got_str(key("%s.rc.name", p)));
    ck_assert_msg(got_i64(key("%s.sync", p)) == cudaSuccess,
                  "k_transpose(rows = %lld, cols = %lld): the kernel failed: %s", r, c,
                  got_str(key("%s.sync.name", p)));
    if (got_has(key("%s.launches", p)))
        ck_assert_msg(got_i64(key("%s.launches", p)) >= 1,
                      "k_transpose(rows = %lld, cols = %lld) launched no kernel: the work must "
                      "be done by a kernel on the GPU",
                      r, c);
    const float *out = got_f32(key("%s.out", p), n + TR_TAIL);
    float *in = tr_input(s);
    graded_note = drawn_note("the input's values");
    for (int64_t k = n; k < n + TR_TAIL; k++)
        ck_assert_msg(out[k] == TR_SENTINEL,
                      "k_transpose(rows = %lld, cols = %lld) wrote past the end of out: out[%lld] "
                      "changed (skip the threads of the last tiles that fall outside rows or "
                      "cols)",
                      r, c, (long long)k);
    for (int64_t j = 0; j < s->cols; j++)
        for (int64_t i = 0; i < s->rows; i++) {
            float want = in[i + j * s->rows], got = out[j + i * s->cols];
            ck_assert_msg(memcmp(&got, &want, sizeof got) == 0,
                          "k_transpose(rows = %lld, cols = %lld): out(%lld, %lld) = out[%lld] is "
                          "%g, expected in(%lld, %lld) = in[%lld] = %g (out is (cols, rows): "
                          "out(j, i) at out[j + i * cols], in(i, j) at in[i + j * rows]); %s",
                          r, c, (long long)j, (long long)i, (long long)(j + i * s->cols),
                          (double)got, (long long)i, (long long)j, (long long)(i + j * s->rows),
                          (double)want, graded_note);
        }
    if (n) {
        const float *after = got_f32(key("%s.in", p), n);
        for (int64_t k = 0; k < n; k++)
            ck_assert_msg(memcmp(&after[k], &in[k], sizeof in[k]) == 0,
                          "k_transpose(rows = %lld, cols = %lld) changed its input in[%lld]: "
                          "in is only read",
                          r, c, (long long)k);
    }
    free(in);
    graded_note = NULL;
    return out;
}

JUDGE(transpose_result)
{
    for (int i = 0; i < N_TR; i++) tr_expect_result(&tr_shapes[i]);
}

JUDGE(transpose_arguments)
{
    tr_expect_written("arg0.rc");
    for (int i = 0; i < N_TR_ARGS; i++) {
        const char *rk = key("arg%d.rc", i);
        int rc = got_rc(rk);
        ck_assert_msg(rc == (int)tr_args[i].want,
                      "k_transpose with %s returned %s (%d), expected %s", tr_args[i].what,
                      rc == cudaSuccess ? "cudaSuccess"
                      : rc == cudaErrorInvalidValue ? "cudaErrorInvalidValue" : "another error",
                      rc, tr_args[i].want == cudaSuccess ? "cudaSuccess" : "cudaErrorInvalidValue");
        if (got_has(key("arg%d.launches", i)))
            ck_assert_msg(got_i64(key("arg%d.launches", i)) == 0,
                          "k_transpose with %s launched a kernel: check the arguments first and "
                          "launch nothing when there is nothing to do",
                          tr_args[i].what);
    }
    tr_expect_result(&tr_shapes[1]);
}

/* A global access kind (loads or stores) of shape s at its ideal sectors, or the failure:
 * sectors per request against the ideal, the first costly instruction's first two lanes
 * as elements of their buffer, and what would fix it. */
static void tr_expect_sectors(const TrShape *s, const char *what, unsigned long long req,
                              unsigned long long sec, unsigned long long ideal,
                              const uint64_t bad[2], const char *fix)
{
    if (sec <= ideal) return;
    uint64_t in = (uint64_t)got_i64(key("%s.in_base", s->p)),
             out = (uint64_t)got_i64(key("%s.out_base", s->p));
    int64_t n = s->rows * s->cols;
    int is_out = bad[0] >= out && bad[0] < out + (uint64_t)n * 4;
    uint64_t base = is_out ? out : in;
    ck_abort_msg("k_transpose(rows = %lld, cols = %lld): global %s take %.2f sectors per request "
                 "where %.2f would hold their bytes (lane 0 at %s[%lld], lane 1 at %s[%lld]: "
                 "%lld bytes apart). A GPU moves whole 32-byte sectors, so that is %.1fx the "
                 "traffic: %s",
                 (long long)s->rows, (long long)s->cols, what, (double)sec / req,
                 (double)ideal / req, is_out ? "out" : "in", (long long)((bad[0] - base) / 4),
                 is_out ? "out" : "in", (long long)((bad[1] - base) / 4),
                 (long long)(bad[1] - bad[0]), (double)sec / ideal, fix);
}

/* The counter cases: the output right, the trace consistent with it, then every counter
 * at its ideal, the first one that is not named with what it means. */
static void tr_expect_counters(const TrShape *s)
{
    tr_expect_result(s);
    const char *p = s->p;
    long long r = (long long)s->rows, c = (long long)s->cols;
    ck_assert_msg(got_has(key("%s.trace", p)),
                  "no record of the kernel's accesses: these counters are the simulator's "
                  "(make grade grades Lesson 03 on the simulator)");
    int64_t nw = 0;
    const float *bits = got_f32_n(key("%s.trace", p), &nw);
    uint32_t *words = malloc((size_t)(nw ? nw : 1) * sizeof *words);
    ck_assert(words);
    memcpy(words, bits, (size_t)nw * sizeof *words);
    size_t n = 0;
    TraceAccess *a = trace_parse(words, (size_t)nw, &n);
    free(words);
    ck_assert_msg(a, "the record of the kernel's accesses is malformed");
    int64_t elems = s->rows * s->cols;
    TraceBuffer bufs[2] = {
        {"in", (uint64_t)got_i64(key("%s.in_base", p)), elems, 0, NULL, NULL},
        {"out", (uint64_t)got_i64(key("%s.out_base", p)), elems, 1, NULL, NULL},
    };
    float *in = tr_input(s), *fill = malloc((size_t)elems * sizeof *fill);
    uint64_t *writers = calloc((size_t)elems, sizeof *writers);
    ck_assert(in && fill && writers);
    bufs[1].writer = writers;
    for (int64_t k = 0; k < elems; k++) fill[k] = NAN;
    bufs[0].now = (uint8_t *)in;
    bufs[1].now = (uint8_t *)fill;
    char why[400];
    ck_assert_msg(trace_replay(a, n, bufs, 2, why, sizeof why) == 0,
                  "k_transpose(rows = %lld, cols = %lld): %s", r, c, why);
    const float *out = got_f32(key("%s.out", p), elems + TR_TAIL);
    ck_assert_msg(memcmp(fill, out, (size_t)elems * sizeof *fill) == 0,
                  "k_transpose(rows = %lld, cols = %lld): the kernel's recorded stores do not "
                  "make the output it left: the output must be written by the kernel",
                  r, c);
    TraceCost cost;
    ck_assert(trace_cost(a, n, &cost) == 0);
    free(a);
    free(in);
    free(fill);
    free(writers);
    ck_assert_msg(cost.ld_req > 0 && cost.st_req > 0,
                  "k_transpose(rows = %lld, cols = %lld): no global loads or no global stores "
                  "in the kernel's accesses",
                  r, c);
    tr_expect_sectors(s, "loads", cost.ld_req, cost.ld_sec, cost.ld_ideal, cost.bad_ld,
                      "make consecutive lanes (threadIdx.x) read consecutive addresses of in, "
                      "in[i + j * rows] with i from threadIdx.x");
    tr_expect_sectors(s, "stores", cost.st_req, cost.st_sec, cost.st_ideal, cost.bad_st,
                      "stage the tile in shared memory and let consecutive lanes (threadIdx.x) "
                      "write consecutive addresses of out, out[j + r * cols] with j from "
                      "threadIdx.x");
    ck_assert_msg(cost.sh_ld > 0 && cost.sh_st > 0,
                  "k_transpose(rows = %lld, cols = %lld): no shared-memory loads or stores: the "
                  "transpose goes through a __shared__ tile",
                  r, c);
    ck_assert_msg(cost.sh_st_wf <= cost.sh_st_ideal,
                  "k_transpose(rows = %lld, cols = %lld): shared stores take %.2f wavefronts per "
                  "instruction where %.2f is the ideal: a bank conflict (lanes 0 and 1 in banks "
                  "%llu and %llu, %lld bytes apart). Lanes that ask one bank for different words "
                  "wait in turn: write a row of the tile, tile[k][threadIdx.x]",
                  r, c, (double)cost.sh_st_wf / cost.sh_st, (double)cost.sh_st_ideal / cost.sh_st,
                  (unsigned long long)(cost.bad_sh_st[0] / 4 % 32),
                  (unsigned long long)(cost.bad_sh_st[1] / 4 % 32),
                  (long long)(cost.bad_sh_st[1] - cost.bad_sh_st[0]));
    ck_assert_msg(cost.sh_ld_wf <= cost.sh_ld_ideal,
                  "k_transpose(rows = %lld, cols = %lld): shared loads take %.2f wavefronts per "
                  "instruction where %.2f is the ideal: a %.0f-way bank conflict (lanes 0 and 1 in "
                  "banks %llu and %llu, %lld bytes apart). A column of a 32-column tile is 32 "
                  "words apart, all in one bank: pad the tile (tile[32][33]) so that a column "
                  "spans the 32 banks",
                  r, c, (double)cost.sh_ld_wf / cost.sh_ld, (double)cost.sh_ld_ideal / cost.sh_ld,
                  (double)cost.sh_ld_wf / cost.sh_ld_ideal,
                  (unsigned long long)(cost.bad_sh_ld[0] / 4 % 32),
                  (unsigned long long)(cost.bad_sh_ld[1] / 4 % 32),
                  (long long)(cost.bad_sh_ld[1] - cost.bad_sh_ld[0]));
}

JUDGE(transpose_counters_square) { tr_expect_counters(&tr_square); }
JUDGE(transpose_counters_wide) { tr_expect_counters(&tr_wide); }
#endif
