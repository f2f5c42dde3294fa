/*
 * whole_lesson.c: the case of Lesson 01 as a whole: Iris trained with
 * every exercise, from PyTorch's inputs and from inputs drawn for the grading run.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h.
 */
#include "suite.h"

/* ---- all of them: the source lesson's training run, and one drawn for this grading run ---- */

/* The drawn run: DRAWN_EPOCHS epochs of full-batch SGD (lr 0.01) on the drawn split
 * (drawn_whole.h), its losses read at these epochs, then the test part's loss and
 * accuracy. */
#define DRAWN_EPOCHS 5000
static const int drawn_epochs[] = {1, 10, 100, 1000, 2000, 3000, 4000, 5000};
#define N_DRAWN_EPOCHS ((int)(sizeof drawn_epochs / sizeof drawn_epochs[0]))

#ifdef GRADE_RUNNER
/* lib's train_step on the student's exercises, epochs 1 .. epochs from the model's
 * weights: the loss at every epoch of the table under prefix p (p.loss.E), or the
 * epoch that failed (p.failed_epoch, p.step). Returns 0 when every step ran. */
static int train_recorded(const char *p, Module *model, Loss *loss, Tensor *x, Tensor *y,
                          int epochs, const int *at, int n_at, int every)
{
    Optimizer *opt = optim_sgd_new(model, 0.01f);
    ck_assert_msg(opt != NULL, "grader: %s", err_message());
    int k = 0, rc = 0;
    for (int epoch = 1; epoch <= epochs && !rc; epoch++) {
        float value;
        rc = train_step(model, loss, opt, x, y, &value);
        if (rc) {
            put_rc(key("%s.step", p), rc);
            put_i64(key("%s.failed_epoch", p), epoch);
        } else if (at ? k < n_at && at[k] == epoch : epoch % every == 0) {
            put_f64(key("%s.loss.%d", p, epoch), value);
            k++;
        }
    }
    optim_free(opt);
    return rc;
}

RUN(iris_training)
{
    /* lib's Iris MLP, running on the student's exercises, from PyTorch's initial
     * weights: the loss every 1000 epochs and the test accuracy. */
    static const char *const names[4] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};
    Dataset train, test;
    Tensor *xtr = NULL, *xte = NULL;
    iris_scaled(&train, &test, &xtr, &xte);
    Rng rng;
    rng_seed(&rng, 0, 0);
    Module *layers[] = {linear_new("fc1", 4, 10, &rng), relu_new("relu"),
                        linear_new("fc2", 10, 3, &rng)};
    Module *model = sequential_new("mlp", 3, layers);
    for (int i = 0; i < 4; i++) {
        const Fixture *f = fixture(L1, key("mlp.init.%s", names[i]));
        memcpy(module_find_param(model, names[i])->value->data, f->cm,
               (size_t)f->n * sizeof(float));
    }
    Loss *loss = loss_cross_entropy_new();
    if (train_recorded("fixed", model, loss, xtr, train.y, 20000, NULL, 0, 1000)) return;
    float acc;
    put_rc("evaluate", train_evaluate(model, loss, xte, test.y, NULL, &acc));
    put_f64("accuracy", acc);

    /* The same from the inputs drawn for this run: the split, the order, the weights. */
    DrawnIris d;
    drawn_iris("01", &d);
    IrisTensors t;
    drawn_iris_tensors(&d, &t);
    Module *drawn = drawn_iris_model(&d);
    if (train_recorded("drawn", drawn, loss, t.x_train, t.y_train, DRAWN_EPOCHS, drawn_epochs,
                       N_DRAWN_EPOCHS, 0))
        return;
    float test_loss;
    put_rc("drawn.evaluate", train_evaluate(drawn, loss, t.x_test, t.y_test, &test_loss, &acc));
    put_f64("drawn.test_loss", test_loss);
    put_f64("drawn.accuracy", acc);
}
#endif

#ifdef GRADE_JUDGE
/* A run that stopped at an error. */
static void expect_all_steps(const char *p, const char *note)
{
    const char *k = key("%s.failed_epoch", p);
    if (got_has(k))
        ck_abort_msg("epoch %lld: %s%s%s", (long long)got_i64(k), got_rc_msg(key("%s.step", p)),
                     note ? ", " : "", note ? note : "");
}

/* The drawn run against the judge's own network in double (oracle_mlp.h). Where the
 * loss falls fastest, a float32 run drifts up to a fifth of an epoch ahead of or
 * behind the run in double (measured over 1500 seeds: the losses at fixed epochs
 * came up to 7e-5 apart); so each loss must lie within DRAWN_SHIFT epochs of the
 * curve in double, and within DRAWN_RTOL of a value it takes there (the largest
 * excess measured, with 1 epoch, was 2e-7). A learning rate 0.1% off moves the curve
 * by 5 epochs at epoch 5000; a wrong gradient moves it by far more. */
#define DRAWN_SHIFT 2
#define DRAWN_RTOL 2e-5
#define DRAWN_TEST (IRIS_POOL - IRIS_TRAIN)

static void drawn_training_judge(void)
{
    const char *note = drawn_whole_note("01", DRAWN_IRIS_SHAPE);
    expect_all_steps("drawn", note);
    DrawnIris d;
    drawn_iris("01", &d);
    OracleIris data;
    OracleMlp m;
    oracle_iris_start(&d, &data, &m);
    /* The curve to DRAWN_SHIFT epochs past the end, and the test part after each of the
     * epochs around the last one. */
    enum { LAST = DRAWN_EPOCHS - DRAWN_SHIFT, ALL = DRAWN_EPOCHS + DRAWN_SHIFT };
    static double want[ALL];
    OracleEval test[2 * DRAWN_SHIFT + 1];
    ck_assert_msg(oracle_mlp_train(&m, data.x_train, data.y_train, IRIS_TRAIN, IRIS_TRAIN,
                                   (double)0.01f, LAST, want) == 0,
                  "grader: out of memory");
    for (int k = 0; k <= 2 * DRAWN_SHIFT; k++) {
        test[k] = oracle_mlp_eval(&m, data.x_test, data.y_test, DRAWN_TEST, 1e-3);
        if (k < 2 * DRAWN_SHIFT)
            ck_assert_msg(oracle_mlp_train(&m, data.x_train, data.y_train, IRIS_TRAIN,
                                           IRIS_TRAIN, (double)0.01f, 1, want + LAST + k) == 0,
                          "grader: out of memory");
    }
    oracle_mlp_free(&m);
    for (int k = 0; k < N_DRAWN_EPOCHS; k++) {
        int e = drawn_epochs[k];
        double got = got_f64(key("drawn.loss.%d", e)), lo, hi;
        oracle_curve_range(want, ALL, e, DRAWN_SHIFT, &lo, &hi);
        ck_assert_msg(oracle_curve_fits(want, ALL, e, DRAWN_SHIFT, DRAWN_RTOL, got),
                      "the training loss at epoch %d is %.7f; the same network trained in "
                      "double gives %.7f (%.7f to %.7f within %d epochs, relative tolerance "
                      "%.0e): check the exercises that fail above, %s",
                      e, got, want[e - 1], lo, hi, DRAWN_SHIFT, DRAWN_RTOL, note);
    }
    ck_assert_msg(got_rc("drawn.evaluate") == 0, "evaluating the test part: %s, %s",
                  got_rc_msg("drawn.evaluate"), note);
    double lo = INFINITY, hi = -INFINITY, fewest = DRAWN_TEST, most = 0;
    for (int k = 0; k <= 2 * DRAWN_SHIFT; k++) {
        lo = fmin(lo, test[k].loss), hi = fmax(hi, test[k].loss);
        fewest = fmin(fewest, (double)(test[k].right - test[k].near_ties));
        most = fmax(most, (double)(test[k].right + test[k].near_ties));
    }
    double got = got_f64("drawn.test_loss");
    ck_assert_msg(isfinite(got) && got >= lo * (1 - DRAWN_RTOL) && got <= hi * (1 + DRAWN_RTOL),
                  "after %d epochs the test loss is %.7f; in double it is %.7f (%.7f to %.7f "
                  "within %d epochs), %s",
                  DRAWN_EPOCHS, got, test[DRAWN_SHIFT].loss, lo, hi, DRAWN_SHIFT, note);
    double right = got_f64("drawn.accuracy") * DRAWN_TEST;
    ck_assert_msg(right >= fewest - 0.01 && right <= most + 0.01,
                  "after %d epochs %.0f of the 30 test rows are classified right; in double "
                  "%lld are, %s",
                  DRAWN_EPOCHS, right, (long long)test[DRAWN_SHIFT].right, note);
}

JUDGE(iris_training)
{
    expect_all_steps("fixed", NULL);
    const Fixture *want = fixture(L1, "iris.losses");
    for (int epoch = 1000; epoch <= 20000; epoch += 1000) {
        double value = got_f64(key("fixed.loss.%d", epoch)), w = want->cm[epoch / 1000 - 1];
        ck_assert_msg(fabs(value - w) <= 1e-3,
                      "the training loss at epoch %d is %.5f, PyTorch's is %.5f (tolerance "
                      "1e-3): check the exercises that fail above",
                      epoch, value, w);
    }
    ck_assert_msg(got_rc("evaluate") == 0, "evaluating the test part: %s", got_rc_msg("evaluate"));
    double acc = got_f64("accuracy"), want_acc = fixture(L1, "iris.test_accuracy")->cm[0];
    ck_assert_msg(fabs(acc - want_acc) < 0.5 / 30.0, "test accuracy %.3f, PyTorch's %.3f", acc,
                  want_acc);
    drawn_training_judge();
}
#endif
