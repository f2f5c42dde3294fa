/*
 * ex01_1_minmax.c: the cases of exercise 01.1, MinMax scaling
 * (minmax_fit, minmax_transform).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h.
 */
#include "suite.h"

/* ---- ex01.1 MinMax ------------------------------------------------------ */

/* Drawn for this grading run (suite.h): x (n, d), each feature in a range of its own;
 * one feature constant when flat >= 0. The last sample holds the largest value of
 * each even feature and the smallest of each odd one, and the first sample the
 * other extreme, each strictly: every case, not only the hand-written one, sees a
 * loop over the samples that stops one short or starts one late. */
static void minmax_extremes_at_ends(float *xj, int64_t n, int largest_last)
{
    float lo = xj[0], hi = xj[0];
    for (int64_t i = 1; i < n; i++) {
        lo = fminf(lo, xj[i]);
        hi = fmaxf(hi, xj[i]);
    }
    /* An eighth beyond the others: exact, since every drawn value is a multiple of it. */
    xj[n - 1] = largest_last ? hi + 0.125f : lo - 0.125f;
    xj[0] = largest_last ? lo - 0.125f : hi + 0.125f;
}

static float *minmax_drawn(int64_t *n, int64_t *d, int64_t *flat)
{
    Drawn r = drawn_start("01.1");
    *n = drawn_int(&r, 3, 40);
    *d = drawn_int(&r, 1, 6);
    *flat = drawn_int(&r, -1, *d - 1);
    float *x = malloc((size_t)(*n * *d) * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (int64_t j = 0; j < *d; j++) {
        int range = 1 << drawn_int(&r, 0, 6);
        float level = drawn_value(&r, range, 3);
        for (int64_t i = 0; i < *n; i++)
            x[i + j * *n] = j == *flat ? level : drawn_value(&r, range, 3);
        if (j != *flat) minmax_extremes_at_ends(x + j * *n, *n, j % 2 == 0);
    }
    return x;
}

#ifdef GRADE_RUNNER
static void minmax_run(const char *k, const float *x, int64_t n, int64_t d);

static void minmax_drawn_run(void)
{
    int64_t n, d, flat;
    float *x = minmax_drawn(&n, &d, &flat);
    float *xg = guarded_copy(x, n * d);
    minmax_run("drawn", xg, n, d);
    guarded_free(xg);
    free(x);
}
#endif

#ifdef GRADE_JUDGE
static void minmax_judge(const char *k, int64_t n, int64_t d, const float *want_min,
                         const float *want_max, const float *want_y, double tol);

static void minmax_drawn_judge(void)
{
    int64_t n, d, flat;
    float *x = minmax_drawn(&n, &d, &flat);
    float *lo = malloc((size_t)d * sizeof *lo), *hi = malloc((size_t)d * sizeof *hi);
    float *y = malloc((size_t)(n * d) * sizeof *y);
    ck_assert(lo && hi && y);
    for (int64_t j = 0; j < d; j++) {
        lo[j] = hi[j] = x[j * n];
        for (int64_t i = 1; i < n; i++) {
            lo[j] = fminf(lo[j], x[i + j * n]);
            hi[j] = fmaxf(hi[j], x[i + j * n]);
        }
        double range = hi[j] > lo[j] ? (double)hi[j] - lo[j] : 1.0;
        for (int64_t i = 0; i < n; i++)
            y[i + j * n] = (float)((x[i + j * n] - lo[j]) / range);
    }
    graded_note = drawn_note(key("x of %lld samples and %lld feature%s%s", (long long)n,
                                 (long long)d, d == 1 ? "" : "s",
                                 flat < 0 ? "" : d == 1 ? ", constant" : ", one of them constant"));
    minmax_judge("drawn", n, d, lo, hi, y, 1e-6);
    expect_unchanged("x", got_f32("drawn.x_after", n * d), x, n * d);
    graded_note = NULL;
    free(x);
    free(lo);
    free(hi);
    free(y);
}
#endif

#ifdef GRADE_RUNNER
/* Fit and transform x (n, d); records k.fit, k.min, k.max, k.transform, k.y,
 * and x before and after. */
static void minmax_run(const char *k, const float *x, int64_t n, int64_t d)
{
    float *lo = guarded_new(d, NAN), *hi = guarded_new(d, NAN), *y = guarded_new(n * d, NAN);
    put_f32(key("%s.x_before", k), x, n * d);
    put_rc(key("%s.fit", k), minmax_fit(x, n, d, lo, hi));
    put_guarded(key("%s.min", k), lo);
    put_guarded(key("%s.max", k), hi);
    put_rc(key("%s.transform", k), minmax_transform(x, n, d, lo, hi, y));
    put_guarded(key("%s.y", k), y);
    put_f32(key("%s.x_after", k), x, n * d);
    guarded_free(lo);
    guarded_free(hi);
    guarded_free(y);
}

RUN(minmax_iris)
{
    /* The Iris training part (120, 4); then the test part (30, 4) scaled with
     * the training part's min and max (not its own). */
    Dataset train, test;
    ck_assert_msg(dataset_load_csv(iris_csv_path(), iris_spec(), &train, &test) == 0,
                  "loading Iris: %s", err_message());
    minmax_run("train", tensor_f32(train.x), 120, 4);
    float *y = guarded_new(30 * 4, NAN);
    put_rc("test.transform",
           minmax_transform(tensor_f32(test.x), 30, 4, fixture(L1, "minmax.data_min")->cm,
                            fixture(L1, "minmax.data_max")->cm, y));
    put_guarded("test.y", y);
    guarded_free(y);
    dataset_free(&train);
    dataset_free(&test);
    minmax_drawn_run();
}

RUN(minmax_scales)
{
    /* 37 samples, 5 features with scales from 0.1 to 100. */
    minmax_run("a", fx("mm", "x")->cm, 37, 5);
    minmax_drawn_run();
}

RUN(minmax_last_sample)
{
    /* x (4, 2) = [[3, 5], [1, 6], [2, 7], [9, -4]], column-major. */
    const float x4[8] = {3, 1, 2, 9, 5, 6, 7, -4};
    minmax_run("a", x4, 4, 2);
    minmax_drawn_run();
}

RUN(minmax_constant_feature)
{
    /* x (3, 2) = [[5, 1], [5, 3], [5, 2]]: feature 0 is constant. */
    const float x[6] = {5, 5, 5, 1, 3, 2};
    minmax_run("b", x, 3, 2);
    /* One sample. */
    const float one[3] = {-2, 0, 7};
    minmax_run("c", one, 1, 3);
    minmax_drawn_run();
}
#endif

#ifdef GRADE_JUDGE
static void minmax_judge(const char *k, int64_t n, int64_t d, const float *want_min,
                         const float *want_max, const float *want_y, double tol)
{
    expect_ok(key("%s.fit", k), "minmax_fit");
    expect_close_1d("data_min", got_guarded(key("%s.min", k), "data_min", d), want_min, d, 0, 0);
    expect_close_1d("data_max", got_guarded(key("%s.max", k), "data_max", d), want_max, d, 0, 0);
    expect_ok(key("%s.transform", k), "minmax_transform");
    const float *y = got_guarded(key("%s.y", k), "y", n * d);
    expect_unchanged("x", got_f32(key("%s.x_after", k), n * d),
                     got_f32(key("%s.x_before", k), n * d), n * d);
    expect_close_2d("y", y, want_y, n, d, tol, tol);
}

JUDGE(minmax_iris)
{
    /* As scikit-learn's MinMaxScaler scales it. */
    minmax_judge("train", 120, 4, fixture(L1, "minmax.data_min")->cm,
                 fixture(L1, "minmax.data_max")->cm, fixture(L1, "minmax.x_train")->cm, 1e-6);
    expect_ok("test.transform", "minmax_transform");
    const float *y = got_guarded("test.y", "y", 30 * 4);
    graded_note = "the test part is scaled with the min and max it is given (the training "
                  "part's), so some values fall outside [0, 1]";
    expect_close_2d("y", y, fixture(L1, "minmax.x_test")->cm, 30, 4, 1e-6, 1e-6);
    minmax_drawn_judge();
}

JUDGE(minmax_scales)
{
    minmax_judge("a", 37, 5, fx("mm", "min")->cm, fx("mm", "max")->cm, fx("mm", "y")->cm, 1e-6);
    minmax_drawn_judge();
}

JUDGE(minmax_last_sample)
{
    /* x (4, 2) = [[3, 5], [1, 6], [2, 7], [9, -4]]: the last sample holds the
     * largest value of feature 0 and the smallest of feature 1. min = (1, -4),
     * max = (9, 7); y = (x - min) / (max - min) = [[0.25, 9/11], [0, 10/11],
     * [0.125, 1], [1, 0]]. */
    const float lo4[2] = {1, -4}, hi4[2] = {9, 7};
    const float y4[8] = {0.25f, 0, 0.125f, 1, 9.0f / 11.0f, 10.0f / 11.0f, 1, 0};
    graded_note = "the last sample holds the largest value of feature 0 and the smallest of "
                  "feature 1: does the loop over the samples reach i = n - 1 (i < n)?";
    minmax_judge("a", 4, 2, lo4, hi4, y4, 1e-6);
    graded_note = NULL;
    minmax_drawn_judge();
}

JUDGE(minmax_constant_feature)
{
    /* x (3, 2) = [[5, 1], [5, 3], [5, 2]]: feature 0 is constant, so its range
     * counts as 1 and it becomes 0; feature 1 spans 1..3. */
    const float lo[2] = {5, 1}, hi[2] = {5, 3}, y[6] = {0, 0, 0, 0, 1, 0.5f};
    minmax_judge("b", 3, 2, lo, hi, y, 0);
    /* One sample: every feature is constant, everything becomes 0. */
    const float one[3] = {-2, 0, 7}, zeros[3] = {0, 0, 0};
    minmax_judge("c", 1, 3, one, one, zeros, 0);
    minmax_drawn_judge();
}
#endif
