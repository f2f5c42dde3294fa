/* check_optim.c: SGD against torch.optim.SGD, zero_grad, bad learning rates. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "tests/common/fixture.h"
#include "lib/err.h"
#include "lib/layers.h"
#include "lib/optim.h"
#include "suites.h"

#define FX "lesson01.txt"

START_TEST(test_sgd_matches_pytorch)
{
    Rng rng;
    rng_seed(&rng, 1, 0);
    Module *m = linear_new("one", 29, 1, &rng); /* weight (1, 29) */
    Param *w = module_find_param(m, "weight");
    memcpy(w->value->data, fixture(FX, "sgd.p")->cm, 29 * sizeof(float));
    memcpy(w->grad->data, fixture(FX, "sgd.grad")->cm, 29 * sizeof(float));
    Optimizer *opt = optim_sgd_new(m, fixture(FX, "sgd.lr")->cm[0]);
    ck_assert_ptr_nonnull(opt);
    ck_assert_int_eq(optim_step(opt), ERR_OK);
    assert_close("p after step", tensor_f32(w->value), fixture(FX, "sgd.p_new")->cm, 29, 1e-7,
                 1e-6);
    optim_zero_grad(opt);
    for (int i = 0; i < 29; i++) ck_assert_float_eq(tensor_f32(w->grad)[i], 0.0f);
    optim_free(opt);
    module_free(m);
}
END_TEST

START_TEST(test_sgd_rejects_bad_learning_rates)
{
    Rng rng;
    rng_seed(&rng, 1, 0);
    Module *m = linear_new("one", 2, 2, &rng);
    const float bad[4] = {0.0f, -0.1f, NAN, INFINITY};
    for (int i = 0; i < 4; i++) {
        ck_assert_ptr_null(optim_sgd_new(m, bad[i]));
        ck_assert_int_eq(err_code(), ERR_ARG);
        ck_assert_ptr_nonnull(strstr(err_message(), "learning rate"));
    }
    module_free(m);
}
END_TEST

Suite *optim_suite(void)
{
    Suite *s = suite_create("optim");
    TCase *tc = tcase_create("sgd");
    tcase_add_test(tc, test_sgd_matches_pytorch);
    tcase_add_test(tc, test_sgd_rejects_bad_learning_rates);
    suite_add_tcase(s, tc);
    return s;
}
