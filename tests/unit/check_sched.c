/* check_sched.c: StepLR and CosineAnnealingLR against PyTorch, and resuming them.
 *
 * The oracle is tests/fixtures/optim.txt (tests/gen_fixtures_optim.py):
 * get_last_lr() after construction and after each of 12 epochs, rounded to
 * float32, for StepLR(step_size=3, gamma=0.1) and CosineAnnealingLR with
 * T_max 5 (eta_min 0.001) and 3 (eta_min 0), more than two periods each.
 * Base rates and factors are float32 values, so both sides compute in double
 * from the same numbers; the only freedom is the last bit of a double cos()
 * in another libm, which moves a float by at most one ulp (SCHED_RTOL).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/common/fixture.h"
#include "lib/core/err.h"
#include "lib/nn/layers.h"
#include "lib/nn/optim.h"
#include "lib/nn/sched.h"
#include "suites.h"

#define OFX "optim.txt"
#define EPOCHS 12
#define SCHED_RTOL 1.2e-7 /* one float ulp (2^-23 relative) */

static const char *const CASES[] = {"steplr", "cosine", "cosine0"};

/* A model for the optimizer to hold; its values do not matter here. */
static Module *small_model(void)
{
    Rng rng;
    rng_seed(&rng, 5, 0);
    Module *m = linear_new("fc", 3, 2, &rng);
    ck_assert_ptr_nonnull(m);
    return m;
}

/* The scheduler of fixture case @p name over @p opt (made with the case's base rate). */
static Scheduler *case_scheduler(Optimizer *opt, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "%s.hyper", name);
    const float *h = fixture(OFX, key)->data; /* base lr, then step_size, gamma or t_max, eta_min */
    Scheduler *s = strcmp(name, "steplr") == 0 ? sched_step_new(opt, (int)h[1], h[2])
                                               : sched_cosine_new(opt, (int)h[1], h[2]);
    ck_assert_msg(s != NULL, "%s: %s", name, err_message());
    return s;
}

static Optimizer *case_optimizer(Module *m, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "%s.hyper", name);
    Optimizer *opt = optim_sgd_momentum_new(m, fixture(OFX, key)->data[0], 0.9f, 0.0f, false);
    ck_assert_ptr_nonnull(opt);
    return opt;
}

START_TEST(test_schedulers_match_pytorch)
{
    const char *name = CASES[_i];
    char key[64];
    snprintf(key, sizeof key, "%s.lrs", name);
    const Fixture *want = fixture(OFX, key);
    ck_assert_int_eq(want->n, EPOCHS + 1);
    Module *m = small_model();
    Optimizer *opt = case_optimizer(m, name);
    Scheduler *s = case_scheduler(opt, name);
    float got[EPOCHS + 1];
    got[0] = opt->lr; /* construction leaves the rate alone */
    for (int e = 1; e <= EPOCHS; e++) {
        ck_assert_int_eq(sched_step(s), ERR_OK);
        ck_assert_float_eq(sched_lr(s), opt->lr);
        got[e] = opt->lr;
    }
    ck_assert_int_eq(s->state.last_epoch, EPOCHS);
    snprintf(key, sizeof key, "%s: lr after epoch", name);
    assert_close(key, got, want->data, EPOCHS + 1, 0.0, SCHED_RTOL);
    sched_free(s);
    optim_free(opt);
    module_free(m);
}
END_TEST

/* The recursive cosine stays within rounding of the closed form (an oracle of its own). */
START_TEST(test_cosine_follows_the_closed_form)
{
    Module *m = small_model();
    Optimizer *opt = optim_sgd_new(m, 0.2f);
    Scheduler *s = sched_cosine_new(opt, 7, 0.01f);
    const double pi = 3.141592653589793, base = 0.2f, eta = 0.01f;
    for (int e = 1; e <= 30; e++) {
        ck_assert_int_eq(sched_step(s), ERR_OK);
        double closed = eta + (base - eta) * (1 + cos(pi * e / 7)) / 2;
        ck_assert_msg(fabs(s->state.lr - closed) <= 1e-12,
                      "epoch %d: recursive %.17g, closed form %.17g", e, s->state.lr, closed);
    }
    ck_assert_str_eq(sched_name(s), "CosineAnnealingLR");
    sched_free(s);
    optim_free(opt);
    module_free(m);
}
END_TEST

/* 5 epochs, the state saved, a new optimizer and scheduler restored from it,
 * 7 more epochs: the rates of 12 epochs in one go, to the bit. */
START_TEST(test_scheduler_restore_resumes_exactly)
{
    const char *name = CASES[_i];
    Module *m = small_model();
    Optimizer *opt = case_optimizer(m, name);
    Scheduler *s = case_scheduler(opt, name);
    double straight[EPOCHS + 1];
    for (int e = 1; e <= EPOCHS; e++) {
        ck_assert_int_eq(sched_step(s), ERR_OK);
        straight[e] = s->state.lr;
    }
    sched_free(s);
    optim_free(opt);

    opt = case_optimizer(m, name);
    s = case_scheduler(opt, name);
    for (int e = 1; e <= 5; e++) ck_assert_int_eq(sched_step(s), ERR_OK);
    SchedState saved;
    sched_state(s, &saved);
    ck_assert_int_eq(saved.last_epoch, 5);
    sched_free(s);
    optim_free(opt);

    opt = optim_sgd_momentum_new(m, 0.5f, 0.9f, 0.0f, false); /* any rate: the state sets it */
    s = case_scheduler(opt, name);
    ck_assert_int_eq(sched_restore(s, &saved), ERR_OK);
    ck_assert_float_eq(opt->lr, (float)saved.lr);
    for (int e = 6; e <= EPOCHS; e++) {
        ck_assert_int_eq(sched_step(s), ERR_OK);
        ck_assert_msg(s->state.lr == straight[e],
                      "%s epoch %d after a restore: %.17g, without one: %.17g", name, e,
                      s->state.lr, straight[e]);
    }
    SchedState bad = saved;
    bad.last_epoch = -1;
    ck_assert_int_eq(sched_restore(s, &bad), ERR_ARG);
    bad = saved;
    bad.lr = NAN;
    ck_assert_int_eq(sched_restore(s, &bad), ERR_ARG);
    bad = saved;
    bad.t_max = 0, bad.step_size = 0; /* arguments the constructor refuses */
    ck_assert_int_eq(sched_restore(s, &bad), ERR_ARG);
    ck_assert_int_eq(s->state.last_epoch, EPOCHS); /* a refused restore changes nothing */
    sched_free(s);
    optim_free(opt);
    module_free(m);
}
END_TEST

/* A rate set by hand between epochs is where the next epoch goes on from, as in PyTorch. */
START_TEST(test_scheduler_follows_a_rate_set_by_hand)
{
    Module *m = small_model();
    Optimizer *opt = optim_sgd_new(m, 0.1f);
    Scheduler *s = sched_step_new(opt, 2, 0.5f);
    ck_assert_str_eq(sched_name(s), "StepLR");
    ck_assert_int_eq(sched_step(s), ERR_OK);
    ck_assert_float_eq(opt->lr, 0.1f);
    ck_assert_int_eq(optim_set_lr(opt, 1.0f), ERR_OK);
    ck_assert_int_eq(sched_step(s), ERR_OK);
    ck_assert_float_eq(opt->lr, 0.5f);
    ck_assert_float_eq(sched_lr(s), 0.5f);
    ck_assert_double_eq(s->state.base_lr, (double)0.1f); /* the base stays */
    sched_free(s);
    optim_free(opt);
    module_free(m);
}
END_TEST

START_TEST(test_schedulers_reject_bad_arguments)
{
    Module *m = small_model();
    Optimizer *opt = optim_sgd_new(m, 0.1f);
    ck_assert_ptr_null(sched_step_new(opt, 0, 0.1f));
    ck_assert_int_eq(err_code(), ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err_message(), "step_size"));
    ck_assert_ptr_null(sched_step_new(opt, 3, -0.1f));
    ck_assert_ptr_null(sched_step_new(opt, 3, NAN));
    ck_assert_ptr_null(sched_cosine_new(opt, 0, 0.0f));
    ck_assert_ptr_nonnull(strstr(err_message(), "t_max"));
    ck_assert_ptr_null(sched_cosine_new(opt, 10, -1e-3f));
    ck_assert_ptr_null(sched_cosine_new(opt, 10, INFINITY));
    sched_free(NULL);
    optim_free(opt);
    module_free(m);
}
END_TEST

Suite *sched_suite(void)
{
    Suite *s = suite_create("sched");
    TCase *tc = tcase_create("schedulers");
    tcase_add_loop_test(tc, test_schedulers_match_pytorch, 0, 3);
    tcase_add_test(tc, test_cosine_follows_the_closed_form);
    tcase_add_loop_test(tc, test_scheduler_restore_resumes_exactly, 0, 3);
    tcase_add_test(tc, test_scheduler_follows_a_rate_set_by_hand);
    tcase_add_test(tc, test_schedulers_reject_bad_arguments);
    suite_add_tcase(s, tc);
    return s;
}
