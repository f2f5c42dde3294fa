/* check_loss.c: cross-entropy against PyTorch (also for huge logits), label
 * checks and accuracy. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "tests/common/fixture.h"
#include "lib/core/err.h"
#include "lib/nn/loss.h"
#include "suites.h"

#define FX "lesson01.txt"

START_TEST(test_cross_entropy_matches_pytorch)
{
    Tensor *logits = fixture_tensor(FX, "ce.logits", DTYPE_F32);
    Tensor *targets = fixture_tensor(FX, "ce.targets", DTYPE_I32);
    Loss *loss = loss_cross_entropy_new();
    float value;
    const Tensor *d;
    ck_assert_int_eq(loss_forward(loss, logits, targets, &value), ERR_OK);
    ck_assert(isfinite(value));
    assert_close("loss", &value, fixture(FX, "ce.loss")->cm, 1, 1e-5, 1e-5);
    assert_close("probs", tensor_f32(loss->probs), fixture(FX, "ce.probs")->cm, 36, 1e-6, 1e-5);
    ck_assert_int_eq(loss_backward(loss, &d), ERR_OK);
    assert_close("dlogits", tensor_f32(d), fixture(FX, "ce.dlogits")->cm, 36, 1e-6, 1e-5);
    loss_free(loss);
    tensor_free(logits);
    tensor_free(targets);
}
END_TEST

START_TEST(test_cross_entropy_bad_targets)
{
    Tensor *logits = tensor_new_2d(4, 3);
    int64_t n = 4;
    Tensor *t = tensor_new(DTYPE_I32, device_cpu(), 1, &n);
    tensor_i32(t)[2] = 3;
    Loss *loss = loss_cross_entropy_new();
    float v;
    const Tensor *d;
    ck_assert_int_eq(loss_backward(loss, &d), ERR_ARG);
    ck_assert_int_eq(loss_forward(loss, logits, t, &v), ERR_ARG);
    ck_assert_str_eq(err_message(), "cross_entropy: target 3 in row 2 is out of bounds (the "
                                    "logits have 3 classes, so labels must be 0..2)");
    tensor_i32(t)[2] = -1;
    ck_assert_int_eq(loss_forward(loss, logits, t, &v), ERR_ARG);
    Tensor *wrong = tensor_new_1d(4);
    ck_assert_int_eq(loss_forward(loss, logits, wrong, &v), ERR_SHAPE);
    ck_assert_ptr_nonnull(strstr(err_message(), "expected (4) int32"));
    tensor_free(wrong);
    tensor_free(logits);
    tensor_free(t);
    loss_free(loss);
}
END_TEST

/* The build lets reductions reassociate but keeps IEEE NaN and inf (no
 * -ffinite-math-only): a NaN logit must give a NaN loss that isnan() sees,
 * which is how a training loop notices that it diverged. */
START_TEST(test_nan_stays_detectable)
{
    Tensor *logits = tensor_new_2d(3, 2);
    int64_t n = 3;
    Tensor *t = tensor_new(DTYPE_I32, device_cpu(), 1, &n);
    volatile float zero = 0.0f;
    tensor_f32(logits)[4] = zero / zero;
    Loss *loss = loss_cross_entropy_new();
    float v = 0.0f;
    ck_assert_int_eq(loss_forward(loss, logits, t, &v), ERR_OK);
    ck_assert_msg(isnan(v), "loss %g: NaN got lost (is -ffinite-math-only or -ffast-math on?)",
                  (double)v);
    ck_assert(!isfinite(v));
    loss_free(loss);
    tensor_free(logits);
    tensor_free(t);
}
END_TEST

START_TEST(test_accuracy_with_ties)
{
    Tensor *z = tensor_new_2d(4, 3);
    const float v[12] = {1, 1, 0, /* tie: index 0 wins */ 0, 2, 1, 5, -1, 5, 0, 0, 3};
    ck_assert_int_eq(tensor_set_rows(z, v), ERR_OK); /* v is written row by row */
    int64_t n = 4;
    Tensor *t = tensor_new(DTYPE_I32, device_cpu(), 1, &n);
    const int32_t lab[4] = {0, 1, 2, 2};
    memcpy(t->data, lab, sizeof lab);
    float acc;
    ck_assert_int_eq(loss_accuracy(z, t, &acc), ERR_OK);
    ck_assert_float_eq_tol(acc, 0.75f, 1e-7f);
    tensor_free(z);
    tensor_free(t);
}
END_TEST

START_TEST(test_backward_scaled_is_weight_times_backward)
{
    /* The gradient of weight x loss: PyTorch's dlogits times the weight, exactly. */
    Tensor *logits = fixture_tensor(FX, "ce.logits", DTYPE_F32);
    Tensor *targets = fixture_tensor(FX, "ce.targets", DTYPE_I32);
    Loss *loss = loss_cross_entropy_new();
    const Tensor *d;
    const float *want = fixture(FX, "ce.dlogits")->cm;
    ck_assert_int_eq(loss_forward(loss, logits, targets, NULL), ERR_OK);
    ck_assert_int_eq(loss_backward_scaled(loss, 0.375f, &d), ERR_OK);
    float scaled[36];
    for (int i = 0; i < 36; i++) scaled[i] = 0.375f * want[i];
    assert_close("0.375 x dlogits", tensor_f32(d), scaled, 36, 1e-7, 1e-5);
    ck_assert_int_eq(loss_backward_scaled(loss, 1.0f, &d), ERR_OK);
    assert_close("dlogits", tensor_f32(d), want, 36, 1e-6, 1e-5);
    ck_assert_int_eq(loss_backward_scaled(loss, INFINITY, &d), ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err_message(), "weight is inf"));
    loss_free(loss);
    tensor_free(logits);
    tensor_free(targets);
}
END_TEST

Suite *loss_suite(void)
{
    Suite *s = suite_create("loss");
    TCase *tc = tcase_create("cross_entropy");
    tcase_add_test(tc, test_cross_entropy_matches_pytorch);
    tcase_add_test(tc, test_cross_entropy_bad_targets);
    tcase_add_test(tc, test_accuracy_with_ties);
    tcase_add_test(tc, test_nan_stays_detectable);
    tcase_add_test(tc, test_backward_scaled_is_weight_times_backward);
    suite_add_tcase(s, tc);
    return s;
}
