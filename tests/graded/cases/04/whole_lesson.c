/*
 * whole_lesson.c: the case of Lesson 04 as a whole: hooks that run inside
 * the batcher, on a model and rows drawn for the grading run.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out and what the harness saw) and a JUDGE half (in the judge: decide),
 * see ../graded.h.
 */
#include "suite.h"

/* ---- all of them ----------------------------------------------------------------------------- */

/* The whole lesson's inputs, drawn for this grading run (drawn.h): the model's
 * weights (Linear(6, 7), ReLU, Linear(7, 3)), how many rows, their values and the
 * batch size. */
#define WHOLE_MAX_ROWS 40
typedef struct WholeDraw {
    int64_t n, batch;
    float w1[7 * 6], b1[7], w2[3 * 7], b2[3]; /* as lib holds them: (out, in) column-major */
    float x[WHOLE_MAX_ROWS * 6];             /* row-major */
} WholeDraw;

static void whole_draw(WholeDraw *w)
{
    Drawn r = drawn_start("04");
    w->n = drawn_int(&r, 11, WHOLE_MAX_ROWS);
    w->batch = drawn_int(&r, 2, 9);
    drawn_linear(&r, 6, 7, w->w1, w->b1);
    drawn_linear(&r, 7, 3, w->w2, w->b2);
    for (int64_t i = 0; i < w->n * 6; i++) w->x[i] = drawn_value(&r, 2, 6);
}

#define WHOLE_SHAPE "the model's weights, the rows, their values and the batch size"

#ifdef GRADE_RUNNER
RUN(hook_inside_batcher)
{
    /* Forward hooks on the model and on its fc1 run once per chunk when the
     * batcher calls the model (module_call); the model's never runs if the
     * batcher calls module_forward itself (a container calls its children
     * with module_call, so fc1's runs either way). */
    WholeDraw w;
    whole_draw(&w);
    Tensor *x = tensor_new_2d(w.n, 6);
    ck_assert_msg(x && tensor_set_rows(x, w.x) == ERR_OK, "grader: %s", err_message());
#ifndef GRADE_REFERENCE
    Module *m = small_model();
    drawn_set_param(m, "fc1.weight", w.w1, 7 * 6);
    drawn_set_param(m, "fc1.bias", w.b1, 7);
    drawn_set_param(m, "fc2.weight", w.w2, 3 * 7);
    drawn_set_param(m, "fc2.bias", w.b2, 3);
    char log[LOG_CAP] = "", model_log[LOG_CAP] = "";
    Probe p = probe(log, "x", NULL, NULL), q = probe(model_log, "m", NULL, NULL);
    Callable hook = post_hook(m->children[0], &p, NULL), model_hook = post_hook(m, &q, NULL);
    Callable b = batcher(m, w.batch);
    put_batcher_call("call", b, m, x);
    put_i64("hook_runs", (int64_t)strlen(log));
    put_i64("model_hook_runs", (int64_t)strlen(model_log));
    callable_release(b);
    callable_release(hook);
    callable_release(model_hook);
    module_free(m);
#endif
    tensor_free(x);
}
#endif

#ifdef GRADE_JUDGE
JUDGE(hook_inside_batcher)
{
    WholeDraw w;
    whole_draw(&w);
    const char *note = drawn_whole_note("04", WHOLE_SHAPE);
    int64_t n = w.n, batch = w.batch, chunks = (n + batch - 1) / batch;
    expect_written("call", "batcher_forward");
    if (got_rc("call") != ERR_OK) ck_abort_msg("%s, %s", got_rc_msg("call"), note);
    int64_t runs = got_i64("model_hook_runs");
    ck_assert_msg(runs == chunks,
                  "a hook on the model ran %lld times for %lld rows in batches of %lld, expected "
                  "%lld (once per chunk: the batcher must call the model with module_call, not "
                  "its forward), %s",
                  (long long)runs, (long long)n, (long long)batch, (long long)chunks, note);
    runs = got_i64("hook_runs");
    ck_assert_msg(runs == chunks,
                  "a hook on fc1 ran %lld times for %lld rows in batches of %lld, expected %lld "
                  "(once per chunk: the batcher must call the model, not its forward), %s",
                  (long long)runs, (long long)n, (long long)batch, (long long)chunks, note);
    int64_t rows = got_i64("call.rows");
    ck_assert_msg(rows == n, "the output has %lld rows, expected %lld, %s", (long long)rows,
                  (long long)n, note);
    /* The judge's own forward pass, in double (oracle_mlp.h): a float one differs
     * from it by a few units of float's last place. */
    OracleMlp m;
    ck_assert_msg(oracle_mlp_init(&m, 6, 7, 3) == 0, "grader: out of memory");
    oracle_mlp_set(&m, w.w1, w.b1, w.w2, w.b2);
    const float *got = got_f32("call.y", n * 3);
    for (int64_t i = 0; i < n; i++) {
        double x[6], z[3];
        for (int j = 0; j < 6; j++) x[j] = w.x[i * 6 + j];
        oracle_mlp_logits(&m, x, z);
        for (int64_t j = 0; j < 3; j++) {
            double g = got[i + j * n];
            ck_assert_msg(isfinite(g) && fabs(g - z[j]) <= 1e-5 + 1e-4 * fabs(z[j]),
                          "output (%lld, %lld) is %g, expected %g (n = %lld, batch %lld: rows out "
                          "of order, or a chunk lost?), %s",
                          (long long)i, (long long)j, g, z[j], (long long)n, (long long)batch,
                          note);
        }
    }
    oracle_mlp_free(&m);
}
#endif
