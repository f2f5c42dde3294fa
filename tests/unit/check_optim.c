/* check_optim.c: the optimizers and clip_grad_norm against PyTorch, state save/restore.
 *
 * The oracle is tests/fixtures/optim.txt (tests/gen_fixtures_optim.py):
 * torch.optim.SGD and Adam on a Linear(5, 7) for five steps with given
 * gradients, and torch.nn.utils.clip_grad_norm_. Every hyperparameter there
 * is a float32 value, so PyTorch and lib start from the same numbers.
 *
 * Tolerances are in units in the last place (ulps) of float. lib repeats
 * PyTorch's operations in order (fused multiply-adds where PyTorch's x86
 * kernels fuse them), and on an x86-64 machine with FMA the results agree to
 * the bit; but PyTorch's CPU kernels fuse differently on other machines (and
 * in the scalar tails of its vector loops), each such difference is half an
 * ulp of one operation, and five steps carry it on. OPTIM_ULPS allows for
 * that and nothing more: an update computed in another order or with a
 * wrong bias correction is off by thousands of ulps.
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/fixture.h"
#include "lib/core/err.h"
#include "lib/nn/layers.h"
#include "lib/nn/optim.h"
#include "suites.h"

#define FX "lesson01.txt"
#define OFX "optim.txt"
#define STEPS 5
#define OPTIM_ULPS 8 /* see the top of the file */
#define CLIP_ULPS 4  /* the norm: PyTorch sums in float in its own order, lib in double */

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
    ck_assert_int_eq(optim_zero_grad(opt), ERR_OK);
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

/* ---- helpers --------------------------------------------------------------- */

/* Distance in ulps between two floats (0 for equal values, +0 and -0, or two NaNs). */
static int64_t ulps(float a, float b)
{
    if (a == b || (isnan(a) && isnan(b))) return 0;
    if (isnan(a) || isnan(b)) return INT64_MAX;
    int32_t ia, ib;
    memcpy(&ia, &a, sizeof ia);
    memcpy(&ib, &b, sizeof ib);
    /* map the sign-magnitude bits onto a line where neighbouring floats are 1 apart */
    int64_t la = ia < 0 ? -(int64_t)(ia & 0x7fffffff) : ia;
    int64_t lb = ib < 0 ? -(int64_t)(ib & 0x7fffffff) : ib;
    return la > lb ? la - lb : lb - la;
}

/* Fail unless got[i] is within max_ulps of want[i] for all i < n, naming the first that is not. */
static void assert_ulps(const char *what, const float *got, const float *want, int64_t n,
                        int64_t max_ulps)
{
    for (int64_t i = 0; i < n; i++)
        ck_assert_msg(ulps(got[i], want[i]) <= max_ulps,
                      "%s[%lld]: got %.9g, expected %.9g (%lld ulps apart; at most %lld allowed)",
                      what, (long long)i, (double)got[i], (double)want[i],
                      (long long)ulps(got[i], want[i]), (long long)max_ulps);
}

/* The fixture of optim.txt whose name printf makes of @p fmt and the rest. */
__attribute__((format(printf, 1, 2))) static const Fixture *fx(const char *fmt, ...)
{
    char name[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    return fixture(OFX, name);
}

/* The fixtures hold a Linear(5, 7)'s weight (7, 5) and bias (7) as one row of
 * 42 values: the weight in row-major order, then the bias. */
#define N_FLAT 42
#define W_SIZE 35

/* Set a weight tensor and a bias tensor from one such row. */
static void set_flat(Tensor *weight, Tensor *bias, const float *row)
{
    ck_assert_int_eq(tensor_set_rows(weight, row), 0);
    ck_assert_int_eq(tensor_set_rows(bias, row + W_SIZE), 0);
}

/* The reverse: a weight and a bias tensor as one row. */
static void get_flat(const Tensor *weight, const Tensor *bias, float *row)
{
    ck_assert_int_eq(tensor_get_rows(weight, row), 0);
    ck_assert_int_eq(tensor_get_rows(bias, row + W_SIZE), 0);
}

/* A Linear(5, 7) holding the fixture's starting parameters. */
static Module *fixture_model(void)
{
    Rng rng;
    rng_seed(&rng, 3, 0);
    Module *m = linear_new("fc", 5, 7, &rng);
    ck_assert_ptr_nonnull(m);
    set_flat(m->params[0].value, m->params[1].value, fixture(OFX, "opt.p0")->data);
    return m;
}

/* The optimizer of fixture case @p name ("sgd_momentum", "adam_wd", ...). */
static Optimizer *case_optimizer(Module *m, const char *name)
{
    const float *h = fx("%s.hyper", name)->data;
    Optimizer *opt = strncmp(name, "adam", 4) == 0
                         ? optim_adam_new(m, h[0], h[1], h[2], h[3], h[4])
                         : optim_sgd_momentum_new(m, h[0], h[1], h[2], h[3] != 0.0f);
    ck_assert_msg(opt != NULL, "%s: %s", name, err_message());
    return opt;
}

/* Steps [from, to) of case @p name: the fixture's gradients and learning rates. */
static void run_steps(Module *m, Optimizer *opt, const char *name, int from, int to)
{
    const float *lrs = fx("%s.lrs", name)->data, *grads = fixture(OFX, "opt.grads")->data;
    for (int k = from; k < to; k++) {
        set_flat(m->params[0].grad, m->params[1].grad, grads + k * N_FLAT);
        ck_assert_int_eq(optim_set_lr(opt, lrs[k]), ERR_OK);
        ck_assert_msg(optim_step(opt) == ERR_OK, "%s step %d: %s", name, k + 1, err_message());
    }
}

/* A weight and a bias tensor against a row of 42 values, within @p max_ulps. */
static void check_flat(const char *what, const Tensor *weight, const Tensor *bias,
                       const float *want, int64_t max_ulps)
{
    float got[N_FLAT];
    get_flat(weight, bias, got);
    assert_ulps(what, got, want, N_FLAT, max_ulps);
}

static const char *const CASES[] = {"sgd_momentum", "sgd_nesterov_wd", "sgd_momentum_wd",
                                    "sgd_wd",       "adam",            "adam_wd",
                                    "adam_lr"};
#define N_CASES (int)(sizeof CASES / sizeof CASES[0])

/* ---- optimizers against PyTorch -------------------------------------------- */

/* Every case, after every step, and the state after the last one. */
START_TEST(test_optimizers_match_pytorch)
{
    const char *name = CASES[_i];
    Module *m = fixture_model();
    Optimizer *opt = case_optimizer(m, name);
    for (int k = 0; k < STEPS; k++) {
        run_steps(m, opt, name, k, k + 1);
        char what[96];
        snprintf(what, sizeof what, "%s: weight, then bias, after step %d", name, k + 1);
        check_flat(what, m->params[0].value, m->params[1].value,
                   fx("%s.params", name)->data + k * N_FLAT, OPTIM_ULPS);
    }
    ck_assert_int_eq(opt->step, STEPS);
    OptimStateRef refs[4];
    int n = optim_state(opt, refs, 4), per = opt->state_per_param;
    for (int j = 0; j < per; j++) { /* refs: buffer j of the weight at j, of the bias at per + j */
        char what[96];
        snprintf(what, sizeof what, "%s: state %s of weight, then bias", name, refs[j].name);
        check_flat(what, refs[j].tensor, refs[per + j].tensor,
                   fx("%s.state", name)->data + j * N_FLAT, OPTIM_ULPS);
    }
    ck_assert_int_eq(n, 2 * per);
    optim_free(opt);
    module_free(m);
}
END_TEST

START_TEST(test_momentum_zero_is_plain_sgd)
{
    Module *a = fixture_model(), *b = fixture_model();
    Optimizer *plain = optim_sgd_new(a, 0.05f);
    Optimizer *same = optim_sgd_momentum_new(b, 0.05f, 0.0f, 0.0f, false);
    ck_assert_int_eq(same->kind, OPTIM_SGD);
    ck_assert_int_eq(optim_state(same, NULL, 0), 0);
    ck_assert_str_eq(optim_name(same), "SGD");
    run_steps(a, plain, "sgd_momentum", 0, 2);
    run_steps(b, same, "sgd_momentum", 0, 2);
    for (int i = 0; i < 2; i++)
        ck_assert_mem_eq(a->params[i].value->data, b->params[i].value->data,
                         (size_t)a->params[i].value->numel * sizeof(float));
    optim_free(plain);
    optim_free(same);
    module_free(a);
    module_free(b);
}
END_TEST

START_TEST(test_state_is_listed_by_name)
{
    Module *m = fixture_model();
    Optimizer *sgd = optim_sgd_momentum_new(m, 0.1f, 0.9f, 0.0f, true);
    Optimizer *adam = optim_adam_new(m, 0.001f, 0.9f, 0.999f, 1e-8f, 0.0f);
    Optimizer *wd_only = optim_sgd_momentum_new(m, 0.1f, 0.0f, 0.01f, false);
    ck_assert_str_eq(optim_name(sgd), "SGD");
    ck_assert_str_eq(optim_name(adam), "Adam");
    ck_assert_int_eq(wd_only->kind, OPTIM_SGD_MOMENTUM);
    ck_assert_int_eq(optim_state(wd_only, NULL, 0), 0); /* no momentum, no buffer */
    OptimStateRef refs[4];
    ck_assert_int_eq(optim_state(sgd, refs, 4), 2);
    ck_assert_str_eq(refs[0].name, "momentum_buffer");
    ck_assert_int_eq(refs[0].param, 0);
    ck_assert_int_eq(refs[1].param, 1);
    ck_assert_int_eq(refs[1].tensor->numel, 7);
    ck_assert_int_eq(optim_state(adam, refs, 3), 4); /* the count, even when cap is smaller */
    const char *names[3] = {"exp_avg", "exp_avg_sq", "exp_avg"};
    const int params[3] = {0, 0, 1};
    for (int i = 0; i < 3; i++) {
        ck_assert_str_eq(refs[i].name, names[i]);
        ck_assert_int_eq(refs[i].param, params[i]);
        const Tensor *p = m->params[params[i]].value;
        ck_assert_int_eq(refs[i].tensor->ndim, p->ndim);
        ck_assert_int_eq(refs[i].tensor->shape[0], p->shape[0]);
        ck_assert_int_eq(refs[i].tensor->shape[1], p->shape[1]);
        ck_assert(device_equal(refs[i].tensor->device, p->device));
    }
    ck_assert_int_eq(adam->step, 0); /* no state yet, as PyTorch's empty state dict */
    ck_assert_int_eq(optim_to(adam, device_cpu()), ERR_OK); /* already there: nothing to do */
    ck_assert_int_eq(optim_restore(adam, -1), ERR_ARG);
    ck_assert_int_eq(optim_restore(adam, 7), ERR_OK);
    ck_assert_int_eq(adam->step, 7);
    optim_free(sgd);
    optim_free(adam);
    optim_free(wd_only);
    module_free(m);
}
END_TEST

/* Three steps, the state saved as a checkpoint would, a fresh model and
 * optimizer restored from it, two more steps: the bits of five steps in one go. */
START_TEST(test_state_restore_resumes_exactly)
{
    const char *name = CASES[_i];
    Module *straight = fixture_model();
    Optimizer *o1 = case_optimizer(straight, name);
    run_steps(straight, o1, name, 0, STEPS);

    Module *first = fixture_model();
    Optimizer *o2 = case_optimizer(first, name);
    run_steps(first, o2, name, 0, 3);
    float saved_params[2][35], saved_state[4][35];
    OptimStateRef refs[4];
    int n = optim_state(o2, refs, 4);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(tensor_get_rows(first->params[i].value, saved_params[i]), 0);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(tensor_get_rows(refs[i].tensor, saved_state[i]), 0);
    int64_t saved_step = o2->step;
    optim_free(o2);
    module_free(first);

    Rng rng;
    rng_seed(&rng, 99, 0); /* other initial weights: everything must come from the checkpoint */
    Module *resumed = linear_new("fc", 5, 7, &rng);
    Optimizer *o3 = case_optimizer(resumed, name);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(tensor_set_rows(resumed->params[i].value, saved_params[i]), 0);
    ck_assert_int_eq(optim_state(o3, refs, 4), n);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(tensor_set_rows(refs[i].tensor, saved_state[i]), 0);
    ck_assert_int_eq(optim_restore(o3, saved_step), ERR_OK);
    run_steps(resumed, o3, name, 3, STEPS);

    for (int i = 0; i < 2; i++)
        ck_assert_msg(memcmp(straight->params[i].value->data, resumed->params[i].value->data,
                             (size_t)straight->params[i].value->numel * sizeof(float)) == 0,
                      "%s: parameter %d after a restore differs from five steps in one go", name,
                      i);
    OptimStateRef want[4];
    optim_state(o1, want, 4);
    optim_state(o3, refs, 4);
    for (int i = 0; i < n; i++)
        ck_assert_msg(memcmp(want[i].tensor->data, refs[i].tensor->data,
                             (size_t)want[i].tensor->numel * sizeof(float)) == 0,
                      "%s: state %s of parameter %d differs after a restore", name, refs[i].name,
                      refs[i].param);
    ck_assert_int_eq(o3->step, o1->step);
    optim_free(o1);
    optim_free(o3);
    module_free(straight);
    module_free(resumed);
}
END_TEST

START_TEST(test_optimizers_reject_bad_hyperparameters)
{
    Module *m = fixture_model();
    struct {
        Optimizer *opt;
        const char *words;
    } cases[] = {
        {optim_sgd_momentum_new(m, -0.1f, 0.9f, 0.0f, false), "learning rate"},
        {optim_sgd_momentum_new(m, 0.1f, -0.9f, 0.0f, false), "momentum"},
        {optim_sgd_momentum_new(m, 0.1f, NAN, 0.0f, false), "momentum"},
        {optim_sgd_momentum_new(m, 0.1f, 0.9f, -1e-4f, false), "weight_decay"},
        {optim_sgd_momentum_new(m, 0.1f, 0.0f, 0.0f, true), "Nesterov"},
        {optim_adam_new(m, 0.0f, 0.9f, 0.999f, 1e-8f, 0.0f), "learning rate"},
        {optim_adam_new(m, 1e-3f, 1.0f, 0.999f, 1e-8f, 0.0f), "beta1"},
        {optim_adam_new(m, 1e-3f, 0.9f, -0.5f, 1e-8f, 0.0f), "beta2"},
        {optim_adam_new(m, 1e-3f, 0.9f, 0.999f, -1e-8f, 0.0f), "eps"},
        {optim_adam_new(m, 1e-3f, 0.9f, 0.999f, 1e-8f, INFINITY), "weight_decay"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_msg(cases[i].opt == NULL, "case %zu (%s) was accepted", i, cases[i].words);
        optim_free(cases[i].opt);
    }
    /* the last message is the last case's */
    ck_assert_int_eq(err_code(), ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err_message(), "weight_decay"));
    Optimizer *opt = optim_adam_new(m, 1e-3f, 0.0f, 0.0f, 0.0f, 0.0f); /* edges PyTorch allows */
    ck_assert_ptr_nonnull(opt);
    ck_assert_int_eq(optim_set_lr(opt, 0.0f), ERR_OK); /* a schedule may reach 0 */
    ck_assert_int_eq(optim_set_lr(opt, -1e-3f), ERR_ARG);
    ck_assert_int_eq(optim_set_lr(opt, NAN), ERR_ARG);
    ck_assert_float_eq(opt->lr, 0.0f);
    optim_free(opt);
    module_free(m);
}
END_TEST

/* Adam keeps its betas as Python does, in double: after one step from a gradient of 1,
 * exp_avg is (1 - beta1) = 0.1 and exp_avg_sq (1 - beta2) = 0.001, each rounded to float
 * once, not 1 - 0.999f = 0.00099998713 (a 1.3e-5 relative error in the bias correction). */
START_TEST(test_adam_keeps_its_betas_in_double)
{
    Module *m = fixture_model();
    Optimizer *opt = optim_adam_new(m, 1e-3f, 0.9, 0.999, 1e-8f, 0.0f);
    ck_assert_ptr_nonnull(opt);
    ck_assert(opt->beta1 == 0.9 && opt->beta2 == 0.999);
    for (int i = 0; i < 2; i++) ck_assert_int_eq(tensor_fill(m->params[i].grad, 1.0f), ERR_OK);
    ck_assert_int_eq(optim_step(opt), ERR_OK);
    OptimStateRef refs[4];
    ck_assert_int_eq(optim_state(opt, refs, 4), 4);
    const float *m1 = tensor_f32(refs[0].tensor), *v1 = tensor_f32(refs[1].tensor);
    ck_assert_msg(m1[0] == (float)(1.0 - 0.9), "exp_avg %.9g", (double)m1[0]);
    ck_assert_msg(v1[0] == (float)0.001 && v1[0] != 1.0f - 0.999f, "exp_avg_sq %.9g",
                  (double)v1[0]);
    optim_free(opt);
    module_free(m);
}
END_TEST

/* ---- clipping ------------------------------------------------------------------ */

static const char *const CLIP_SETS[] = {"under", "over", "inf", "nan"};

START_TEST(test_clip_grad_norm_matches_pytorch)
{
    const char *set = CLIP_SETS[_i];
    Module *m = fixture_model();
    set_flat(m->params[0].grad, m->params[1].grad, fx("clip_%s.g", set)->data);
    float total = -1.0f;
    ck_assert_int_eq(clip_grad_norm(m, fx("clip_%s.max_norm", set)->data[0], &total), ERR_OK);
    char what[64];
    snprintf(what, sizeof what, "clip %s: total norm", set);
    assert_ulps(what, &total, fx("clip_%s.total", set)->data, 1, CLIP_ULPS);
    /* scaled by a coefficient computed from the norm: as close as the norm is */
    snprintf(what, sizeof what, "clip %s: clipped gradients", set);
    check_flat(what, m->params[0].grad, m->params[1].grad, fx("clip_%s.out", set)->data,
               CLIP_ULPS + 2);
    module_free(m);
}
END_TEST

/* Exercise 05.2's function on hand-made arrays: 3-4-5 triangles and an empty array. */
START_TEST(test_clip_grad_norm_scale_by_hand)
{
    float a[2] = {3.0f, 0.0f}, b[1] = {4.0f};
    float *grads[3] = {a, NULL, b};
    const int64_t sizes[3] = {2, 0, 1};
    float total = 0.0f;
    ck_assert_int_eq(clip_grad_norm_scale(grads, sizes, 3, 10.0f, &total), ERR_OK);
    ck_assert_float_eq(total, 5.0f);
    ck_assert_float_eq(a[0], 3.0f); /* under the limit: untouched */
    ck_assert_int_eq(clip_grad_norm_scale(grads, sizes, 3, 1.0f, &total), ERR_OK);
    ck_assert_float_eq(total, 5.0f);
    float coef = 1.0f / (5.0f + 1e-6f);
    ck_assert_float_eq(a[0], 3.0f * coef);
    ck_assert_float_eq(b[0], 4.0f * coef);
    ck_assert_int_eq(clip_grad_norm_scale(grads, sizes, 0, 1.0f, &total), ERR_OK);
    ck_assert_float_eq(total, 0.0f);
    /* One value beside many tiny ones: a float sum would lose the tiny ones. */
    enum { N = 1 << 16 };
    float *many = malloc(N * sizeof *many);
    many[0] = 1.0f;
    for (int i = 1; i < N; i++) many[i] = 1.0f / 4096.0f; /* squares 2^-24: below 1's half ulp */
    float *one[1] = {many};
    const int64_t size[1] = {N};
    ck_assert_int_eq(clip_grad_norm_scale(one, size, 1, INFINITY, &total), ERR_OK);
    ck_assert_float_eq(total, sqrtf((float)(1.0 + (N - 1) / 16777216.0)));
    free(many);
    /* Squares past float's range: PyTorch's float32 norm is inf, and the values become 0. */
    float huge[3] = {3e30f, 4e30f, 0.0f}, *h[1] = {huge};
    const int64_t three[1] = {3};
    ck_assert_int_eq(clip_grad_norm_scale(h, three, 1, 1.0f, &total), ERR_OK);
    ck_assert(isinf(total) && total > 0);
    for (int i = 0; i < 3; i++) ck_assert_float_eq(huge[i], 0.0f);
}
END_TEST

START_TEST(test_clip_grad_norm_arguments)
{
    Module *m = fixture_model();
    const float bad[3] = {0.0f, -1.0f, NAN};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(clip_grad_norm(m, bad[i], NULL), ERR_ARG);
        ck_assert_ptr_nonnull(strstr(err_message(), "max_norm"));
    }
    set_flat(m->params[0].grad, m->params[1].grad, fixture(OFX, "clip_over.g")->data);
    float before = tensor_f32(m->params[0].grad)[3], total = 0.0f;
    ck_assert_int_eq(clip_grad_norm(m, INFINITY, &total), ERR_OK); /* measure only */
    ck_assert_float_gt(total, 5.0f);
    ck_assert_float_eq(tensor_f32(m->params[0].grad)[3], before);
    ck_assert_int_eq(clip_grad_norm(m, 1.0f, NULL), ERR_OK); /* the norm is optional */
    ck_assert_float_lt(fabsf(tensor_f32(m->params[0].grad)[3]), fabsf(before));
    Module *empty = relu_new("relu");
    total = -1.0f;
    ck_assert_int_eq(clip_grad_norm(empty, 1.0f, &total), ERR_OK);
    ck_assert_float_eq(total, 0.0f); /* PyTorch: tensor(0.) when there are no gradients */
    module_free(empty);
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
    tc = tcase_create("momentum_adam");
    tcase_add_loop_test(tc, test_optimizers_match_pytorch, 0, N_CASES);
    tcase_add_test(tc, test_momentum_zero_is_plain_sgd);
    tcase_add_test(tc, test_state_is_listed_by_name);
    tcase_add_loop_test(tc, test_state_restore_resumes_exactly, 0, N_CASES);
    tcase_add_test(tc, test_optimizers_reject_bad_hyperparameters);
    tcase_add_test(tc, test_adam_keeps_its_betas_in_double);
    suite_add_tcase(s, tc);
    tc = tcase_create("clip");
    tcase_add_loop_test(tc, test_clip_grad_norm_matches_pytorch, 0, 4);
    tcase_add_test(tc, test_clip_grad_norm_scale_by_hand);
    tcase_add_test(tc, test_clip_grad_norm_arguments);
    suite_add_tcase(s, tc);
    return s;
}
