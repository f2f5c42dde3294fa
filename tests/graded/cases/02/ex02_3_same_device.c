/*
 * ex02_3_same_device.c: the cases of exercise 02.3, tensor_same_device: the
 * same-device rule and its message.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h. The
 * inputs are in tables and formulas both halves share; what they should give
 * is only in the JUDGE halves.
 */
#include "suite.h"

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
