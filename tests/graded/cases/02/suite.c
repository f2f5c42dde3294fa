/*
 * grade02.c: the graded suite of Lesson 02 (lessons/02_device_transfer/
 * exercises.c and exercises.cu).
 *
 * 02.1 to 02.3 are plain C and are checked against cases worked out from
 * CUDA's and PyTorch's documented behaviour (the expected messages are the
 * ones lib/device/device.h and lib/device/tensor.h promise). 02.4 is a kernel: it runs on
 * the GPU when there is one, else on the CUDA simulator, which also reports a
 * write past the end of a buffer with the block and the thread, and kills
 * host code that touches device memory, as a GPU would; it is checked against
 * ReLU worked out here on sizes that need a partial last block and many
 * blocks, in place, on a stream that is being captured into a CUDA graph (so
 * the work must be a launch on the stream it is given), and with bad
 * arguments. The whole-lesson check trains Iris on the device from inputs drawn
 * for the grading run and compares with the judge's own training of the same
 * network in double (drawn_whole.h, oracle_mlp.h).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see graded.h. The
 * inputs are in tables and formulas both halves share; what they should give
 * is only in the JUDGE halves.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../../protocol/drawn.h"
#include "../../protocol/drawn_whole.h"
#include "../graded.h"
#include "lib/device/device.h"
#include "lib/core/err.h"
#include "lib/device/tensor.h"
#ifdef GRADE_JUDGE
#include "../../oracles/oracle_iris.h"
#include "../../oracles/oracle_mlp.h"
#endif
#ifdef GRADE_RUNNER
#include "kernels/kernels.h"
#include "lib/train/data.h"
#include "lib/nn/layers.h"
#include "lib/nn/loss.h"
#include "lib/nn/module.h"
#include "lib/nn/optim.h"
#include "lib/train/train.h"
#ifdef CUDASIM
#include "lib/cudasim/cudasim.h"
#endif
#endif

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- ex02.1 device_parse ------------------------------------------------------ */

/* One call: device_parse(text, env, visible, ...). */
typedef struct ParseIn {
    const char *text, *env;
    int visible;
} ParseIn;

/* What a device starts as before device_parse sets it: no device at all. */
#define POISON_KIND 77
#define POISON_INDEX (-7)

static const ParseIn parse_strings_in[] = {
    {"cpu", NULL, 0},    {"cuda", NULL, 1},     {"cuda:0", NULL, 3},
    {"cuda:2", NULL, 3}, {"cuda:12", NULL, 13},
};

/* With CUDA_VISIBLE_DEVICES=2,0 the program sees two GPUs: cuda:0 is the
 * machine's GPU 2 and cuda:1 its GPU 0. A UUID entry has no number. */
static const ParseIn parse_visible_in[] = {
    {"cuda:0", "2,0", 2},
    {"cuda:1", "2,0", 2},
    {"cuda", "3", 1},
    {"cuda:0", "GPU-5d2f0b6e", 1},
};

/* Entries of several digits, and entries that are not numbers. */
static const ParseIn parse_entries_in[] = {
    {"cuda:0", "10,3", 2},
    {"cuda:1", "10,3", 2},
    {"cuda:1", "3,10", 2},
    {"cuda:2", "0,1,12", 3},
    {"cuda", "1a", 1},
    {"cuda:0", "1a,4", 2},
    {"cuda:1", "1a,4", 2},
    {"cuda:0", "GPU-5d2f0b6e-7b1a-4c1e-9d3f-0a1b2c3d4e5f,1", 2},
    {"cuda:1", "GPU-5d2f0b6e-7b1a-4c1e-9d3f-0a1b2c3d4e5f,1", 2},
    {"cuda:1", "2,,3", 3},
    {"cuda:2", "2,,3", 3},
    {"cuda:0", "-1", 1},
    {"cuda:1", "4,-2", 2},
};

/* Malformed strings and missing devices; then two valid neighbours, which
 * must still parse. */
static const ParseIn parse_errors_in[] = {
    {"gpu", NULL, 1},    {"cuda:", NULL, 1}, {"cuda:1x", NULL, 2}, {"cuda:-1", NULL, 2},
    {"CUDA", NULL, 1},   {"cuda:1", "0", 1}, {"cuda:3", NULL, 2},  {"cuda", NULL, 0},
    {"cuda:1", NULL, 2}, {"cuda:0", "0", 1},
};

/* More strings that are not devices, the singular and plural of the
 * messages, no device at all; then two valid strings. */
static const ParseIn parse_edges_in[] = {
    {"", NULL, 1},        {"cpus", NULL, 1},    {"cuda0", NULL, 1},  {"cuda:+1", NULL, 2},
    {"cuda: 1", NULL, 2}, {"cuda:1 ", NULL, 2}, {"cuda:x", NULL, 0}, {"cuda:2", "2,0", 2},
    {"cuda:1", NULL, 1},  {"cuda:0", NULL, 0},  {"cuda", "", 0},     {"cpu", "1", 1},
    {"cuda:1", "5,7", 2}, {"cuda:100000", NULL, 2},
};

#ifdef GRADE_RUNNER
/* Each call's return value (with lib's error), device and physical GPU. */
static void parse_run(const ParseIn *in, int n)
{
    for (int i = 0; i < n; i++) {
        Device d = {(DeviceKind)POISON_KIND, POISON_INDEX};
        int physical = POISON_INDEX;
        err_clear();
        put_rc(key("%d.rc", i), device_parse(in[i].text, in[i].env, in[i].visible, &d, &physical));
        put_i64(key("%d.kind", i), (int64_t)d.kind);
        put_i64(key("%d.index", i), d.index);
        put_i64(key("%d.physical", i), physical);
    }
}

RUN(parse_strings) { parse_run(parse_strings_in, COUNT(parse_strings_in)); }
RUN(parse_visible_devices) { parse_run(parse_visible_in, COUNT(parse_visible_in)); }
RUN(parse_visible_entries) { parse_run(parse_entries_in, COUNT(parse_entries_in)); }
RUN(parse_errors) { parse_run(parse_errors_in, COUNT(parse_errors_in)); }
RUN(parse_edges) { parse_run(parse_edges_in, COUNT(parse_edges_in)); }
#endif

#ifdef GRADE_JUDGE
/* PyTorch's name of a recorded device ("cpu", "cuda:1"), or what it is instead. */
static const char *device_name(int64_t kind, int64_t index, char *buf, size_t size)
{
    if (kind == DEVICE_CPU)
        snprintf(buf, size, "cpu");
    else if (kind == DEVICE_CUDA)
        snprintf(buf, size, "cuda:%lld", (long long)index);
    else if (kind == POISON_KIND && index == POISON_INDEX)
        snprintf(buf, size, "nothing (the Device was not set)");
    else
        snprintf(buf, size, "a Device of kind %lld, index %lld", (long long)kind, (long long)index);
    return buf;
}

/* What a call should give: 0 and a device, or an error and its message. */
typedef struct ParseWant {
    int rc;              /* ERR_OK, ERR_ARG or ERR_DEVICE */
    Device device;       /* for ERR_OK */
    int physical;        /* for ERR_OK */
    const char *message; /* for an error */
} ParseWant;

#define WANT_OK(kind, index, physical) {ERR_OK, {kind, index}, physical, NULL}
#define CPU_OK WANT_OK(DEVICE_CPU, 0, -1)
#define GPU_OK(index, physical) WANT_OK(DEVICE_CUDA, index, physical)
#define REFUSED(code, message) {code, {DEVICE_CPU, 0}, 0, message}
#define UNKNOWN(text)                                                                              \
    REFUSED(ERR_ARG, "unknown device \"" text "\": use \"cpu\", \"cuda\" or \"cuda:N\"")

/* env as a C argument: "2,0" in quotes, or NULL (three %s). */
#define Q(env) (env) ? "\"" : "", (env) ? (env) : "NULL", (env) ? "\"" : ""

static void parse_judge(const ParseIn *in, const ParseWant *want, int n)
{
    for (int i = 0; i < n; i++) {
        const char *text = in[i].text, *env = in[i].env;
        int visible = in[i].visible;
        const char *rk = key("%d.rc", i);
        int rc = got_rc(rk);
        if (rc == ERR_TODO && got_rc_code(rk) == ERR_TODO)
            ck_abort_msg("device_parse is not written yet");
        if (want[i].rc == ERR_OK) {
            char got[64], exp[64];
            if (rc != ERR_OK) {
                const char *msg = got_rc_msg(rk);
                ck_abort_msg("device_parse(\"%s\", %s%s%s, %d) returned %d, expected 0 and "
                             "%s%s%s%s",
                             text, Q(env), visible, rc,
                             device_name(want[i].device.kind, want[i].device.index, exp,
                                         sizeof exp),
                             *msg ? " (its message: " : "", msg, *msg ? ")" : "");
            }
            int64_t kind = got_i64(key("%d.kind", i)), index = got_i64(key("%d.index", i));
            ck_assert_msg(kind == want[i].device.kind && index == want[i].device.index,
                          "device_parse(\"%s\", %s%s%s, %d) gave %s, expected %s", text,
                          Q(env), visible, device_name(kind, index, got, sizeof got),
                          device_name(want[i].device.kind, want[i].device.index, exp, sizeof exp));
            int64_t physical = got_i64(key("%d.physical", i));
            ck_assert_msg(physical == want[i].physical,
                          "device_parse(\"%s\", CUDA_VISIBLE_DEVICES=%s, %d visible): physical "
                          "GPU %lld, expected %d",
                          text, env ? env : "(unset)", visible, (long long)physical,
                          want[i].physical);
        } else {
            ck_assert_msg(rc == want[i].rc,
                          "device_parse(\"%s\", %s%s%s, %d) returned %d, expected %s (%d) with "
                          "the message \"%s\"",
                          text, Q(env), visible, rc,
                          want[i].rc == ERR_ARG ? "ERR_ARG" : "ERR_DEVICE", want[i].rc,
                          want[i].message);
            const char *msg = got_rc_msg(rk);
            ck_assert_msg(strcmp(msg, want[i].message) == 0,
                          "device_parse(\"%s\"): the message is \"%s\", expected \"%s\"", text,
                          msg, want[i].message);
        }
    }
}

#define PARSE_JUDGE(in, ...)                                                                       \
    do {                                                                                           \
        static const ParseWant want_[] = {__VA_ARGS__};                                            \
        ck_assert_msg(COUNT(want_) == COUNT(in), "grader: %d inputs but %d answers", COUNT(in),   \
                      COUNT(want_));                                                               \
        parse_judge(in, want_, COUNT(in));                                                         \
    } while (0)

JUDGE(parse_strings)
{
    PARSE_JUDGE(parse_strings_in, CPU_OK, GPU_OK(0, 0), GPU_OK(0, 0), GPU_OK(2, 2),
                GPU_OK(12, 12));
}

JUDGE(parse_visible_devices)
{
    PARSE_JUDGE(parse_visible_in, GPU_OK(0, 2), GPU_OK(1, 0), GPU_OK(0, 3), GPU_OK(0, -1));
}

JUDGE(parse_visible_entries)
{
    /* The physical GPU is the N-th entry when it is a whole number (all of
     * it: "10" is GPU 10, "1a" is not a number), else -1: a UUID, an empty
     * entry, a negative one. */
    PARSE_JUDGE(parse_entries_in, GPU_OK(0, 10), GPU_OK(1, 3), GPU_OK(1, 10), GPU_OK(2, 12),
                GPU_OK(0, -1), GPU_OK(0, -1), GPU_OK(1, 4), GPU_OK(0, -1), GPU_OK(1, 1),
                GPU_OK(1, -1), GPU_OK(2, 3), GPU_OK(0, -1), GPU_OK(1, -1));
}

JUDGE(parse_errors)
{
    PARSE_JUDGE(parse_errors_in, UNKNOWN("gpu"), UNKNOWN("cuda:"), UNKNOWN("cuda:1x"),
                UNKNOWN("cuda:-1"), UNKNOWN("CUDA"),
                REFUSED(ERR_DEVICE,
                        "cuda:1 requested but CUDA_VISIBLE_DEVICES=0 shows only 1 device"),
                REFUSED(ERR_DEVICE, "cuda:3 requested but only 2 CUDA devices are visible"),
                REFUSED(ERR_DEVICE, "cuda requested but no CUDA device is visible"),
                GPU_OK(1, 1), GPU_OK(0, 0));
}

JUDGE(parse_edges)
{
    PARSE_JUDGE(parse_edges_in, UNKNOWN(""), UNKNOWN("cpus"), UNKNOWN("cuda0"),
                UNKNOWN("cuda:+1"), UNKNOWN("cuda: 1"), UNKNOWN("cuda:1 "), UNKNOWN("cuda:x"),
                REFUSED(ERR_DEVICE,
                        "cuda:2 requested but CUDA_VISIBLE_DEVICES=2,0 shows only 2 devices"),
                REFUSED(ERR_DEVICE, "cuda:1 requested but only 1 CUDA device is visible"),
                REFUSED(ERR_DEVICE, "cuda:0 requested but no CUDA device is visible"),
                REFUSED(ERR_DEVICE, "cuda requested but no CUDA device is visible"), CPU_OK,
                GPU_OK(1, 7),
                REFUSED(ERR_DEVICE, "cuda:100000 requested but only 2 CUDA devices are visible"));
}
#endif

/* ---- ex02.2 copy_kind ------------------------------------------------------------ */

static const struct {
    Device from, to;
} copy_in[] = {
    {{DEVICE_CPU, 0}, {DEVICE_CPU, 0}},   {{DEVICE_CPU, 0}, {DEVICE_CUDA, 1}},
    {{DEVICE_CUDA, 2}, {DEVICE_CPU, 0}},  {{DEVICE_CUDA, 1}, {DEVICE_CUDA, 1}},
    {{DEVICE_CUDA, 0}, {DEVICE_CUDA, 1}}, {{DEVICE_CUDA, 3}, {DEVICE_CUDA, 0}},
    {{DEVICE_CPU, 0}, {DEVICE_CUDA, 0}},  {{DEVICE_CUDA, 0}, {DEVICE_CPU, 0}},
    {{DEVICE_CUDA, 0}, {DEVICE_CUDA, 0}}, {{DEVICE_CUDA, 1}, {DEVICE_CUDA, 0}},
};

#define POISON_COPY (-1)

#ifdef GRADE_RUNNER
RUN(copy_kinds)
{
    for (int i = 0; i < COUNT(copy_in); i++) {
        CopyKind k = (CopyKind)POISON_COPY;
        err_clear();
        put_rc(key("%d.rc", i), copy_kind(copy_in[i].from, copy_in[i].to, &k));
        put_i64(key("%d.kind", i), (int)k);
    }
}
#endif

#ifdef GRADE_JUDGE
JUDGE(copy_kinds)
{
    static const CopyKind want[] = {
        COPY_HOST_TO_HOST,     COPY_HOST_TO_DEVICE, COPY_DEVICE_TO_HOST, COPY_DEVICE_TO_DEVICE,
        COPY_PEER,             COPY_PEER,           COPY_HOST_TO_DEVICE, COPY_DEVICE_TO_HOST,
        COPY_DEVICE_TO_DEVICE, COPY_PEER,
    };
    static const char *const names[] = {"COPY_HOST_TO_HOST", "COPY_HOST_TO_DEVICE",
                                        "COPY_DEVICE_TO_HOST", "COPY_DEVICE_TO_DEVICE",
                                        "COPY_PEER"};
    ck_assert(COUNT(want) == COUNT(copy_in));
    for (int i = 0; i < COUNT(copy_in); i++) {
        char a[64], b[64];
        const Device f = copy_in[i].from, t = copy_in[i].to;
        expect_ok(key("%d.rc", i), "copy_kind");
        int64_t k = got_i64(key("%d.kind", i));
        ck_assert_msg(k == want[i], "copy_kind(%s, %s) gave %lld%s, expected %s",
                      device_name(f.kind, f.index, a, sizeof a),
                      device_name(t.kind, t.index, b, sizeof b), (long long)k,
                      k == POISON_COPY ? " (*kind was not set)" : "", names[want[i]]);
    }
}
#endif

/* ---- ex02.3 tensor_same_device ------------------------------------------------------ */

/* tensor_same_device(op, a, b) for tensors on these devices (a same-device
 * pair is two tensors, except the first, which passes one tensor twice). */
static const struct {
    const char *op;
    Device a, b;
} same_in[] = {
    {"add", {DEVICE_CPU, 0}, {DEVICE_CPU, 0}},
    {"add", {DEVICE_CUDA, 0}, {DEVICE_CUDA, 0}},
    {"Linear fc1", {DEVICE_CUDA, 0}, {DEVICE_CPU, 0}},
    {"Linear fc1", {DEVICE_CPU, 0}, {DEVICE_CUDA, 1}},
    {"Linear fc1", {DEVICE_CUDA, 1}, {DEVICE_CUDA, 0}},
    {"mul", {DEVICE_CUDA, 1}, {DEVICE_CUDA, 1}},
    {"matmul", {DEVICE_CUDA, 0}, {DEVICE_CUDA, 2}},
    {"Linear fc2", {DEVICE_CUDA, 10}, {DEVICE_CPU, 0}},
};

#ifdef GRADE_RUNNER
RUN(same_device_rule)
{
    /* Only the device field is read: no memory is needed for these tensors. */
    for (int i = 0; i < COUNT(same_in); i++) {
        Tensor a = {0}, b = {0};
        a.device = same_in[i].a;
        b.device = same_in[i].b;
        err_clear();
        put_rc(key("%d.rc", i), tensor_same_device(same_in[i].op, &a, i == 0 ? &a : &b));
    }
}
#endif

#ifdef GRADE_JUDGE
JUDGE(same_device_rule)
{
    static const char *const want[] = {
        NULL,
        NULL,
        "Linear fc1: expected all tensors to be on the same device, but found cuda:0 and cpu",
        "Linear fc1: expected all tensors to be on the same device, but found cpu and cuda:1",
        "Linear fc1: expected all tensors to be on the same device, but found cuda:1 and cuda:0",
        NULL,
        "matmul: expected all tensors to be on the same device, but found cuda:0 and cuda:2",
        "Linear fc2: expected all tensors to be on the same device, but found cuda:10 and cpu",
    };
    ck_assert(COUNT(want) == COUNT(same_in));
    for (int i = 0; i < COUNT(same_in); i++) {
        const char *rk = key("%d.rc", i);
        if (!want[i]) {
            char a[64], b[64];
            expect_written(rk, "tensor_same_device");
            int rc = got_rc(rk);
            const char *msg = got_rc_msg(rk);
            ck_assert_msg(rc == ERR_OK,
                          "tensor_same_device(\"%s\", a, b) with a and b on %s and %s returned "
                          "%d, expected 0 (the same device)%s%s%s",
                          same_in[i].op,
                          device_name(same_in[i].a.kind, same_in[i].a.index, a, sizeof a),
                          device_name(same_in[i].b.kind, same_in[i].b.index, b, sizeof b), rc,
                          *msg ? " (its message: " : "", msg, *msg ? ")" : "");
            continue;
        }
        char a[64], b[64];
        int rc = got_rc(rk);
        ck_assert_msg(!(rc == ERR_TODO && got_rc_code(rk) == ERR_TODO),
                      "tensor_same_device is not written yet");
        ck_assert_msg(rc == ERR_DEVICE,
                      "tensor_same_device(\"%s\", a, b) with a on %s and b on %s returned %d, "
                      "expected ERR_DEVICE (%d)",
                      same_in[i].op,
                      device_name(same_in[i].a.kind, same_in[i].a.index, a, sizeof a),
                      device_name(same_in[i].b.kind, same_in[i].b.index, b, sizeof b), rc,
                      ERR_DEVICE);
        ck_assert_msg(strcmp(got_rc_msg(rk), want[i]) == 0,
                      "the message is \"%s\", expected \"%s\"", got_rc_msg(rk), want[i]);
    }
}
#endif

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
#include "../kernel_run.h"

static const char *report(void)
{
#ifdef CUDASIM
    return cudasim_last_report();
#else
    return "";
#endif
}

static void put_launches(const char *name, long long before)
{
    if (before >= 0) put_i64(name, launches() - before);
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

/* ---- all of them: Iris on the device ---------------------------------------------------- */

/* Lesson 01's network trained on the device, full-batch SGD with lr 0.01, from the
 * inputs drawn for this grading run (drawn_whole.h); its loss read at these epochs. */
#define IRIS_EPOCHS 1000
static const int iris_epochs[] = {1, 250, 500, 750, 1000};
#define N_IRIS_EPOCHS ((int)(sizeof iris_epochs / sizeof iris_epochs[0]))

#ifdef GRADE_RUNNER
RUN(iris_on_device)
{
    /* Lesson 01's network on "cuda" (your device_parse), moved with your
     * copy_kind, checked by your tensor_same_device, with your ReLU kernel; the
     * judge trains the same network on the same drawn inputs itself. */
    DrawnIris d;
    drawn_iris("02", &d);
    IrisTensors t;
    drawn_iris_tensors(&d, &t);
    Module *model = drawn_iris_model(&d);
    Loss *loss = loss_cross_entropy_new();
    quiet_device();
    Device g = {(DeviceKind)POISON_KIND, POISON_INDEX};
    err_clear();
    int rc = device_from_string("cuda", &g);
    put_rc("device", rc);
    put_i64("device.kind", (int64_t)g.kind);
    put_i64("device.index", g.index);
    if (rc != ERR_OK || g.kind != DEVICE_CUDA) return;
    err_clear();
    rc = module_to(model, g);
    put_rc("model_to", rc);
    if (rc != ERR_OK) return;
    Param *w = module_find_param(model, "fc1.weight");
    ck_assert_ptr_nonnull(w);
    put_i64("weight.kind", (int64_t)w->value->device.kind);
    put_i64("weight.index", w->value->device.index);
    Tensor *gx = NULL, *gy = NULL;
    err_clear();
    rc = tensor_to(t.x_train, g, &gx);
    put_rc("x_to", rc);
    if (rc != ERR_OK) return;
    put_i64("x.kind", (int64_t)gx->device.kind);
    put_i64("x.index", gx->device.index);
    err_clear();
    rc = tensor_to(t.y_train, g, &gy);
    put_rc("y_to", rc);
    if (rc != ERR_OK) return;
    Optimizer *opt = optim_sgd_new(model, 0.01f);
    long long before = launches();
    for (int e = 1, k = 0; e <= IRIS_EPOCHS; e++) {
        float v;
        err_clear();
        rc = train_step(model, loss, opt, gx, gy, &v);
        if (rc != ERR_OK) {
            put_rc("step", rc);
            put_i64("failed_epoch", e);
            return;
        }
        if (k < N_IRIS_EPOCHS && e == iris_epochs[k]) put_f64(key("loss.%d", e), v), k++;
    }
    put_launches("launches", before);
}
#endif

#ifdef GRADE_JUDGE
/* The judge's run in double (oracle_mlp.h) against the device's in float32: as in
 * Lesson 01's whole-lesson case (grade01.c, where it was measured), a float32 run may
 * drift a fraction of an epoch from the run in double where the loss falls fastest, so
 * a loss must lie within IRIS_SHIFT epochs of the curve and IRIS_RTOL of a value it
 * takes there. */
#define IRIS_SHIFT 2
#define IRIS_RTOL 2e-5

JUDGE(iris_on_device)
{
    char got[64];
    ck_assert_msg(got_rc("device") == ERR_OK, "device \"cuda\": %s", got_rc_msg("device"));
    int64_t kind = got_i64("device.kind"), index = got_i64("device.index");
    ck_assert_msg(kind == DEVICE_CUDA && index == 0,
                  "device \"cuda\" (device_parse) gave %s, expected cuda:0",
                  device_name(kind, index, got, sizeof got));
    ck_assert_msg(got_rc("model_to") == ERR_OK, "model.to(cuda): %s", got_rc_msg("model_to"));
    kind = got_i64("weight.kind"), index = got_i64("weight.index");
    ck_assert_msg(kind == DEVICE_CUDA && index == 0,
                  "after model.to(cuda), fc1.weight is on %s, expected cuda:0",
                  device_name(kind, index, got, sizeof got));
    ck_assert_msg(got_rc("x_to") == ERR_OK, "X_train.to(cuda): %s", got_rc_msg("x_to"));
    kind = got_i64("x.kind"), index = got_i64("x.index");
    ck_assert_msg(kind == DEVICE_CUDA && index == 0, "X_train.to(cuda) is on %s, expected cuda:0",
                  device_name(kind, index, got, sizeof got));
    ck_assert_msg(got_rc("y_to") == ERR_OK, "y_train.to(cuda): %s", got_rc_msg("y_to"));
    const char *note = drawn_whole_note("02", DRAWN_IRIS_SHAPE);
    if (got_has("failed_epoch"))
        ck_abort_msg("epoch %lld on the device: %s, %s", (long long)got_i64("failed_epoch"),
                     got_rc_msg("step"), note);
    DrawnIris d;
    drawn_iris("02", &d);
    OracleIris data;
    OracleMlp m;
    static double want[IRIS_EPOCHS + IRIS_SHIFT];
    oracle_iris_start(&d, &data, &m);
    ck_assert_msg(oracle_mlp_train(&m, data.x_train, data.y_train, IRIS_TRAIN, IRIS_TRAIN,
                                   (double)0.01f, IRIS_EPOCHS + IRIS_SHIFT, want) == 0,
                  "grader: out of memory");
    oracle_mlp_free(&m);
    for (int k = 0; k < N_IRIS_EPOCHS; k++) {
        int e = iris_epochs[k];
        double vg = got_f64(key("loss.%d", e)), lo, hi;
        oracle_curve_range(want, IRIS_EPOCHS + IRIS_SHIFT, e, IRIS_SHIFT, &lo, &hi);
        ck_assert_msg(oracle_curve_fits(want, IRIS_EPOCHS + IRIS_SHIFT, e, IRIS_SHIFT, IRIS_RTOL,
                                        vg),
                      "epoch %d: loss %.7f on the device; the same network trained in double "
                      "on the CPU gives %.7f (%.7f to %.7f within %d epochs, relative tolerance "
                      "%.0e), %s",
                      e, vg, want[e - 1], lo, hi, IRIS_SHIFT, IRIS_RTOL, note);
    }
    if (got_has("launches"))
        ck_assert_msg(got_i64("launches") > 0, "1000 epochs on the device launched no kernel");
}
#endif

#define CU_FILE "lessons/02_device_transfer/exercises.cu"

/* name, exercise, function, what it checks, points, timeout (s), reference?, file */
#define CASES(X)                                                                                   \
    X(parse_strings, "02.1", "device_parse", "\"cpu\", \"cuda\", \"cuda:N\"", 4, 5, 0, NULL)      \
    X(parse_visible_devices, "02.1", "device_parse",                                               \
      "physical GPUs through CUDA_VISIBLE_DEVICES", 4, 5, 0, NULL)                                 \
    X(parse_visible_entries, "02.1", "device_parse",                                               \
      "CUDA_VISIBLE_DEVICES entries of several digits, and not numbers (-1)", 3, 5, 0, NULL)       \
    X(parse_errors, "02.1", "device_parse", "malformed and missing devices, exact messages", 5, 5, \
      0, NULL)                                                                                     \
    X(parse_edges, "02.1", "device_parse",                                                         \
      "\"\", \"cuda:+1\", spaces; 1 device or none: exact messages", 3, 5, 0, NULL)                \
    X(copy_kinds, "02.2", "copy_kind", "all five directions", 5, 5, 0, NULL)                       \
    X(same_device_rule, "02.3", "tensor_same_device", "same devices pass, PyTorch's message", 6,   \
      5, 0, NULL)                                                                                  \
    X(relu_kernel_small, "02.4", "k_relu_forward", "1 and 100 values against ReLU", 4, 10, 0,      \
      CU_FILE)                                                                                     \
    X(relu_kernel_blocks, "02.4", "k_relu_forward",                                                \
      "257 and 70001 values: a partial last block, many blocks", 5, 20, 0, CU_FILE)                \
    X(relu_kernel_in_place, "02.4", "k_relu_forward", "in place (y == x)", 2, 10, 0, CU_FILE)     \
    X(relu_kernel_stream, "02.4", "k_relu_forward",                                                \
      "launches on the stream it is given (captured into a CUDA graph)", 3, 10, 0, CU_FILE)        \
    X(relu_kernel_launch_error, "02.4", "k_relu_forward",                                          \
      "a launch that fails is reported (cudaGetLastError); a good call after it", 2, 10, 0,        \
      CU_FILE)                                                                                     \
    X(relu_kernel_arguments, "02.4", "k_relu_forward",                                             \
      "n = 0 and bad arguments change nothing; then a good call", 3, 10, 0, CU_FILE)              \
    X(iris_on_device, "02", "all of Lesson 02",                                                    \
      "Iris trains on the device to the judge's own losses (drawn split and weights)", 10, 60, 0,  \
      NULL)

GRADED_SUITE("02", "Moving work to the GPU", "lessons/02_device_transfer/exercises.c", CASES)
