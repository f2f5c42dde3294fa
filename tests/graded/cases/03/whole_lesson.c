/*
 * whole_lesson.c: the case of Lesson 03 as a whole: the sync demo in
 * miniature, a timed training that reads its loss every 5 epochs.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h.
 */
#include "suite.h"

/* ---- all of them: the sync demo in miniature ------------------------------------------- */

/* Lesson 01's network on the device from the inputs drawn for this grading run
 * (drawn_whole.h), full-batch SGD with lr 0.05, timed, its loss read every 5 epochs. */
#define TIMED_EPOCHS 20
#define TIMED_EVERY 5
#define TIMED_LR 0.05f

#ifdef GRADE_RUNNER
typedef struct SyncRun {
    Setup *s;
    long epochs, every, n_logged;
    float *logged;
} SyncRun;

static int sync_run(void *p)
{
    SyncRun *r = p;
    return train_logged(r->s->model, r->s->loss, r->s->opt, r->s->x, r->s->y, r->epochs, r->every,
                        r->logged, &r->n_logged);
}

RUN(timed_training)
{
    Device d = the_device();
    DrawnIris drawn;
    drawn_iris("03", &drawn);
    IrisTensors t;
    drawn_iris_tensors(&drawn, &t);
    Setup s;
    memset(&s, 0, sizeof s);
    s.model = drawn_iris_model(&drawn);
    ck_assert_msg(module_to(s.model, d) == ERR_OK, "%s", err_message());
    ck_assert_int_eq(tensor_to(t.x_train, d, &s.x), ERR_OK);
    ck_assert_int_eq(tensor_to(t.y_train, d, &s.y), ERR_OK);
    s.loss = loss_cross_entropy_new();
    s.opt = optim_sgd_new(s.model, TIMED_LR);
    ck_assert(s.loss && s.opt);
    SyncRun r = {&s, TIMED_EPOCHS, TIMED_EVERY, 0, guarded_new(TIMED_EPOCHS / TIMED_EVERY, NAN)};
    double secs = -1;
    counters_reset();
    err_clear();
    put_rc("rc", time_on_device(d, sync_run, &r, 1, &secs));
    put_i64("syncs", (int64_t)counters_get().syncs);
    put_i64("n_logged", r.n_logged);
    put_f64("seconds", secs);
    put_guarded("logged", r.logged);
    guarded_free(r.logged);
    teardown(&s);
    drawn_iris_tensors_free(&t);
}
#endif

#ifdef GRADE_JUDGE
JUDGE(timed_training)
{
    expect_ok("rc", "time_on_device(train_logged)");
    unsigned long long syncs = (unsigned long long)got_i64("syncs");
    long n_logged = (long)got_i64("n_logged");
    double secs = got_f64("seconds");
    ck_assert_msg(syncs == 2 + 4 && n_logged == 4 && secs > 0.0,
                  "20 epochs read every 5, timed: %llu syncs (expected 2 for the timing + 4 "
                  "reads), %ld losses (expected 4), %g s",
                  syncs, n_logged, secs);
    const float *logged = got_guarded("logged", "logged", TIMED_EPOCHS / TIMED_EVERY);
    /* The judge's own run of the same 20 epochs, in double (oracle_mlp.h): a float32
     * run stays within 1e-6 of it, and one step more or less is 1e-3 away. */
    DrawnIris drawn;
    drawn_iris("03", &drawn);
    OracleIris data;
    OracleMlp m;
    double want[TIMED_EPOCHS];
    oracle_iris_start(&drawn, &data, &m);
    ck_assert_msg(oracle_mlp_train(&m, data.x_train, data.y_train, IRIS_TRAIN, IRIS_TRAIN,
                                   (double)TIMED_LR, TIMED_EPOCHS, want) == 0,
                  "grader: out of memory");
    oracle_mlp_free(&m);
    for (long k = 0; k < TIMED_EPOCHS / TIMED_EVERY; k++)
        ck_assert_msg(agrees(logged[k], want[(k + 1) * TIMED_EVERY - 1]),
                      "20 epochs read every 5, timed: logged[%ld] is %.7g, expected %.7g, the "
                      "loss of epoch %ld, %s",
                      k, (double)logged[k], want[(k + 1) * TIMED_EVERY - 1],
                      (k + 1) * TIMED_EVERY, drawn_whole_note("03", DRAWN_IRIS_SHAPE));
}
#endif

