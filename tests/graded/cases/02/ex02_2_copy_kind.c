/*
 * ex02_2_copy_kind.c: the cases of exercise 02.2, copy_kind: which way a copy
 * between two devices goes.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h. The
 * inputs are in tables and formulas both halves share; what they should give
 * is only in the JUDGE halves.
 */
#include "suite.h"

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
