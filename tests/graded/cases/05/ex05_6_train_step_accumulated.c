/*
 * ex05_6_train_step_accumulated.c: the cases of exercise 05.6,
 * train_step_accumulated: micro-batches that step as the whole batch does.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h. Inputs are
 * shared by both halves (outside the #ifdefs); what is expected lives only in
 * the JUDGE halves.
 */
#include "suite.h"

/* ---- ex05.6 train_step_accumulated ------------------------------------------------------ */

/* A batch of ACC_N rows of ACC_D features and 3 classes, through an MLP 5-7-3. The
 * oracle is one plain step on the whole batch (train_step, lib's own), in the reference
 * run; the student's step is made of micro-batches of the same rows. */
#define ACC_N 10
#define ACC_D 5
static const char *const ACC_PARAMS[4] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};

#ifdef GRADE_RUNNER
#include "lib/train/train.h"

typedef struct AccRun {
    Module *model;
    Loss *loss;
    Optimizer *opt;
    Tensor *x[4], *y[4]; /* x[0], y[0]: the whole batch; then the micro-batches */
    int k;
} AccRun;

/* Rows [start, start + n) of the seeded batch as a (n, ACC_D) tensor and its labels. */
static void acc_rows(int start, int n, Tensor **x, Tensor **y)
{
    float rows[ACC_N * ACC_D];
    Rng rng;
    rng_seed(&rng, 56, 1);
    float all[ACC_N * ACC_D];
    for (int i = 0; i < ACC_N * ACC_D; i++) all[i] = 3.0f * rng_uniform(&rng) - 1.0f + 0.1f * (float)(i % 7);
    static const int32_t labels[ACC_N] = {2, 0, 1, 1, 2, 0, 2, 2, 1, 0};
    memcpy(rows, all + start * ACC_D, sizeof(float) * (size_t)(n * ACC_D));
    *x = tensor_new_2d(n, ACC_D);
    *y = tensor_new(DTYPE_I32, device_cpu(), 1, (int64_t[]){n});
    ck_assert_msg(*x && *y, "grader: %s", err_message());
    ck_assert_int_eq(tensor_set_rows(*x, rows), ERR_OK);
    memcpy(tensor_i32(*y), labels + start, sizeof(int32_t) * (size_t)n);
}

/* The model (seeded), plain SGD with lr @p lr and momentum @p momentum, the whole batch
 * and the micro-batches of @p sizes (k of them); every gradient set to 0.25 first, as a
 * step before would leave them, so that one not zeroed shows. */
static AccRun acc_new(const int *sizes, int k, float lr, float momentum)
{
    AccRun r = {0};
    Rng rng;
    rng_seed(&rng, 56, 0);
    r.model = mlp_new("mlp", ACC_D, (int64_t[]){7}, 1, 3, &rng);
    r.loss = loss_cross_entropy_new();
    r.opt = momentum > 0 ? optim_sgd_momentum_new(r.model, lr, momentum, 0.0f, false)
                         : optim_sgd_new(r.model, lr);
    ck_assert_msg(r.model && r.loss && r.opt, "grader: %s", err_message());
    acc_rows(0, ACC_N, &r.x[0], &r.y[0]);
    for (int i = 0, start = 0; i < k; start += sizes[i], i++)
        acc_rows(start, sizes[i], &r.x[i + 1], &r.y[i + 1]);
    r.k = k;
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(tensor_fill(module_find_param(r.model, ACC_PARAMS[i])->grad, 0.25f), ERR_OK);
    return r;
}

static void acc_free(AccRun *r)
{
    for (int i = 0; i < 4; i++) tensor_free(r->x[i]), tensor_free(r->y[i]);
    optim_free(r->opt);
    loss_free(r->loss);
    module_free(r->model);
}

/* k.NAME (the weights) and k.grad.NAME (the gradients the step left). */
static void acc_put(const char *k_in, const AccRun *r)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    for (int i = 0; i < 4; i++) {
        const Param *p = module_find_param(r->model, ACC_PARAMS[i]);
        put_f32(key("%s.%s", k, ACC_PARAMS[i]), tensor_f32(p->value), p->value->numel);
        put_f32(key("%s.grad.%s", k, ACC_PARAMS[i]), tensor_f32(p->grad), p->grad->numel);
    }
    put_i64(key("%s.steps", k), r->opt->step);
}

/* One step: lib's on the whole batch in the reference run, the student's on the
 * micro-batches otherwise. Records k.rc, k.loss (unless @p read_loss is false), the
 * weights, the gradients and the optimizer's step count. */
static void acc_step(const char *k_in, const int *sizes, int k, float lr, float momentum,
                     bool read_loss)
{
    char k_name[64];
    snprintf(k_name, sizeof k_name, "%s", k_in); /* key() reuses its buffers */
    AccRun r = acc_new(sizes, k, lr, momentum);
    float v = NAN;
#ifdef GRADE_REFERENCE
    ck_assert_msg(train_step(r.model, r.loss, r.opt, r.x[0], r.y[0], &v) == ERR_OK,
                  "grader: lib's train_step failed: %s", err_message());
    put_rc(key("%s.rc", k_name), ERR_OK);
#else
    err_clear();
    put_rc(key("%s.rc", k_name),
           train_step_accumulated(r.model, r.loss, r.opt, (const Tensor *const *)r.x + 1,
                                  (const Tensor *const *)r.y + 1, k, read_loss ? &v : NULL));
#endif
    if (read_loss) put_f64(key("%s.loss", k_name), v);
    acc_put(k_name, &r);
    acc_free(&r);
}

RUN(accumulate_matches_full_batch)
{
    /* 6 + 3 + 1 rows: unequal micro-batches (dividing by k is not n_i / N), one of a single row. */
    acc_step("uneven", (const int[]){6, 3, 1}, 3, 0.5f, 0.0f, true);
}

RUN(accumulate_edges)
{
    /* One micro-batch is the whole batch; two halves with momentum and no loss read. */
    acc_step("one", (const int[]){ACC_N}, 1, 0.5f, 0.0f, true);
    acc_step("halves", (const int[]){5, 5}, 2, 0.3f, 0.9f, false);
    /* Refused: no micro-batches, and one without rows; nothing may change. */
    AccRun r = acc_new((const int[]){ACC_N}, 1, 0.5f, 0.0f);
    acc_put("before", &r);
    err_clear();
    put_rc("none.rc", train_step_accumulated(r.model, r.loss, r.opt, (const Tensor *const *)r.x + 1,
                                             (const Tensor *const *)r.y + 1, 0, NULL));
    acc_put("none", &r);
    Tensor *empty_x = tensor_new_2d(0, ACC_D);
    Tensor *empty_y = tensor_new(DTYPE_I32, device_cpu(), 1, (int64_t[]){0});
    ck_assert_msg(empty_x && empty_y, "grader: %s", err_message());
    const Tensor *xs[2] = {r.x[1], empty_x}, *ys[2] = {r.y[1], empty_y};
    err_clear();
    put_rc("empty.rc", train_step_accumulated(r.model, r.loss, r.opt, xs, ys, 2, NULL));
    acc_put("empty", &r);
    tensor_free(empty_x);
    tensor_free(empty_y);
    acc_free(&r);
}
#endif

#ifdef GRADE_JUDGE
/* The student's weights and gradients (k.*) against one step on the whole batch (the
 * reference's k.*): the sums are added in another order, so a right answer differs by
 * a few units of float's last place. */
static void acc_matches(const char *k_in, const char *how)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    ck_assert_msg(got_rc(key("%s.rc", k)) == ERR_OK, "train_step_accumulated (%s) returned an "
                  "error: %s", how, got_rc_msg(key("%s.rc", k)));
    long steps = (long)got_i64(key("%s.steps", k));
    ck_assert_msg(steps == 1, "train_step_accumulated (%s): the optimizer took %ld steps, "
                  "expected 1: call optim_step once, after the last micro-batch", how, steps);
    for (int g = 0; g < 2; g++)
        for (int i = 0; i < 4; i++) {
            const char *name = g ? key("%s.%s", k, ACC_PARAMS[i])
                                 : key("%s.grad.%s", k, ACC_PARAMS[i]);
            char what[96];
            snprintf(what, sizeof what, "%s", name);
            int64_t n;
            const float *want = ref_f32_n(what, &n);
            const float *got = got_f32(what, n);
            double largest = 0;
            for (int64_t j = 0; j < n; j++) largest = fmax(largest, fabs(want[j]));
            for (int64_t j = 0; j < n; j++)
                ck_assert_msg(isfinite(got[j]) && fabs(got[j] - want[j]) <= 1e-5 * largest + 1e-7,
                              "train_step_accumulated (%s): the %s of %s[%lld] is %.7g, one step "
                              "on the whole batch gives %.7g: %s",
                              how, g ? "weight" : "gradient", ACC_PARAMS[i], (long long)j,
                              (double)got[j], (double)want[j],
                              g ? "the step must use the whole batch's gradient"
                                : "zero the gradients once, before the loop, and weight each "
                                  "micro-batch's loss by n_i / N (its rows over all rows)");
        }
}

JUDGE(accumulate_matches_full_batch)
{
    expect_written("uneven.rc", "train_step_accumulated");
    acc_matches("uneven", "micro-batches of 6, 3 and 1 rows");
    double got = got_f64("uneven.loss"), want = ref_f64("uneven.loss");
    ck_assert_msg(fabs(got - want) <= 1e-6 * fabs(want) + 1e-7,
                  "*loss_value is %.7g, the whole batch's mean loss is %.7g: add the "
                  "micro-batches' losses weighted by n_i / N", got, want);
}

JUDGE(accumulate_edges)
{
    expect_written("one.rc", "train_step_accumulated");
    acc_matches("one", "one micro-batch of all 10 rows");
    acc_matches("halves", "two halves, SGD with momentum, loss_value NULL");
    static const char *const refused[2] = {"none", "empty"};
    static const char *const how[2] = {"k = 0", "a micro-batch without rows"};
    for (int c = 0; c < 2; c++) {
        int code = got_rc_code(key("%s.rc", refused[c]));
        ck_assert_msg(code == ERR_ARG, "train_step_accumulated with %s must return ERR_ARG, "
                      "got %s", how[c], got_rc_msg(key("%s.rc", refused[c])));
        for (int g = 0; g < 2; g++)
            for (int i = 0; i < 4; i++) {
                const char *b = g ? key("before.%s", ACC_PARAMS[i]) : key("before.grad.%s", ACC_PARAMS[i]);
                char before[96];
                snprintf(before, sizeof before, "%s", b);
                int64_t n;
                const float *was = got_f32_n(before, &n);
                const float *now = got_f32(g ? key("%s.%s", refused[c], ACC_PARAMS[i])
                                             : key("%s.grad.%s", refused[c], ACC_PARAMS[i]), n);
                ck_assert_msg(memcmp(was, now, sizeof(float) * (size_t)n) == 0,
                              "train_step_accumulated with %s changed the %s of %s: check the "
                              "arguments before zeroing or stepping anything",
                              how[c], g ? "weights" : "gradients", ACC_PARAMS[i]);
            }
        ck_assert_msg(got_i64(key("%s.steps", refused[c])) == 0,
                      "train_step_accumulated with %s stepped the optimizer", how[c]);
    }
}
#endif
