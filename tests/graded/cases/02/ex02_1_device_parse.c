/*
 * ex02_1_device_parse.c: the cases of exercise 02.1, device_parse: PyTorch's
 * device strings and CUDA_VISIBLE_DEVICES.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h. The
 * inputs are in tables and formulas both halves share; what they should give
 * is only in the JUDGE halves.
 */
#include "suite.h"

/* ---- ex02.1 device_parse ------------------------------------------------------ */

/* One call: device_parse(text, env, visible, ...). */
typedef struct ParseIn {
    const char *text, *env;
    int visible;
} ParseIn;

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
