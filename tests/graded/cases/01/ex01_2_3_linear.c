/*
 * ex01_2_3_linear.c: the cases of exercises 01.2 and 01.3, Linear's forward
 * and backward (linear_forward, linear_backward).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h.
 */
#include "suite.h"

/* ---- ex01.2 / ex01.3 Linear -------------------------------------------------- */

/* Drawn for this grading run (suite.h): x (n, in), w (out, in), b (out), dy (n, out),
 * and the gradients dw, db already hold. */
typedef struct LinDrawn {
    int64_t n, in, out;
    float *x, *w, *b, *dy, *dw0, *db0;
} LinDrawn;

static LinDrawn lin_drawn(const char *what)
{
    Drawn r = drawn_start(what);
    LinDrawn c;
    c.n = drawn_int(&r, 1, 40);
    c.in = drawn_int(&r, 1, 12);
    c.out = drawn_int(&r, 1, 9);
    c.x = drawn_floats(&r, c.n * c.in, 2, 3);
    c.w = drawn_floats(&r, c.out * c.in, 2, 3);
    c.b = drawn_floats(&r, c.out, 4, 3);
    c.dy = drawn_floats(&r, c.n * c.out, 2, 3);
    c.dw0 = drawn_floats(&r, c.out * c.in, 4, 3);
    c.db0 = drawn_floats(&r, c.out, 4, 3);
    return c;
}

static void lin_drawn_free(LinDrawn *c)
{
    free(c->x);
    free(c->w);
    free(c->b);
    free(c->dy);
    free(c->dw0);
    free(c->db0);
}

#ifdef GRADE_RUNNER
static void linear_forward_drawn_run(void)
{
    LinDrawn c = lin_drawn("01.2");
    float *x = guarded_copy(c.x, c.n * c.in), *w = guarded_copy(c.w, c.out * c.in);
    float *b = guarded_copy(c.b, c.out), *y = guarded_new(c.n * c.out, NAN);
    put_rc("drawn.rc", linear_forward(x, w, b, y, c.n, c.in, c.out));
    put_guarded("drawn.y", y);
    put_f32("drawn.x", x, c.n * c.in);
    put_f32("drawn.w", w, c.out * c.in);
    guarded_free(x);
    guarded_free(w);
    guarded_free(b);
    guarded_free(y);
    lin_drawn_free(&c);
}

static void linear_backward_drawn_run(void)
{
    LinDrawn c = lin_drawn("01.3");
    float *x = guarded_copy(c.x, c.n * c.in), *w = guarded_copy(c.w, c.out * c.in);
    float *dy = guarded_copy(c.dy, c.n * c.out), *dx = guarded_new(c.n * c.in, 12345.0f);
    float *dw = guarded_new(c.out * c.in, 0.0f), *db = guarded_new(c.out, 0.0f);
    memcpy(dw, c.dw0, (size_t)(c.out * c.in) * sizeof *dw);
    memcpy(db, c.db0, (size_t)c.out * sizeof *db);
    put_rc("drawn.rc", linear_backward(x, w, dy, dx, dw, db, c.n, c.in, c.out));
    put_guarded("drawn.dx", dx);
    put_guarded("drawn.dw", dw);
    put_guarded("drawn.db", db);
    guarded_free(x);
    guarded_free(w);
    guarded_free(dy);
    guarded_free(dx);
    guarded_free(dw);
    guarded_free(db);
    lin_drawn_free(&c);
}
#endif

#ifdef GRADE_JUDGE
static const char *lin_shape(const LinDrawn *c)
{
    return drawn_note(key("x (%lld, %lld), w (%lld, %lld)", (long long)c->n, (long long)c->in,
                          (long long)c->out, (long long)c->in));
}

static void linear_forward_drawn_judge(void)
{
    LinDrawn c = lin_drawn("01.2");
    float *want = malloc((size_t)(c.n * c.out) * sizeof *want);
    ck_assert_ptr_nonnull(want);
    for (int64_t o = 0; o < c.out; o++)
        for (int64_t i = 0; i < c.n; i++) {
            double s = c.b[o];
            for (int64_t k = 0; k < c.in; k++)
                s += (double)c.x[i + k * c.n] * c.w[o + k * c.out];
            want[i + o * c.n] = (float)s;
        }
    graded_note = lin_shape(&c);
    expect_ok("drawn.rc", "linear_forward");
    const float *y = got_guarded("drawn.y", "y", c.n * c.out);
    expect_unchanged("x", got_f32("drawn.x", c.n * c.in), c.x, c.n * c.in);
    expect_unchanged("w", got_f32("drawn.w", c.out * c.in), c.w, c.out * c.in);
    expect_close_2d("y", y, want, c.n, c.out, 1e-5, 1e-5);
    graded_note = NULL;
    free(want);
    lin_drawn_free(&c);
}

static void linear_backward_drawn_judge(void)
{
    LinDrawn c = lin_drawn("01.3");
    float *dx = malloc((size_t)(c.n * c.in) * sizeof *dx);
    float *dw = malloc((size_t)(c.out * c.in) * sizeof *dw), *db = malloc((size_t)c.out * 4);
    ck_assert(dx && dw && db);
    for (int64_t k = 0; k < c.in; k++)
        for (int64_t i = 0; i < c.n; i++) {
            double s = 0;
            for (int64_t o = 0; o < c.out; o++)
                s += (double)c.dy[i + o * c.n] * c.w[o + k * c.out];
            dx[i + k * c.n] = (float)s;
        }
    for (int64_t o = 0; o < c.out; o++) {
        double sb = c.db0[o];
        for (int64_t i = 0; i < c.n; i++)
            sb += c.dy[i + o * c.n];
        db[o] = (float)sb;
        for (int64_t k = 0; k < c.in; k++) {
            double s = c.dw0[o + k * c.out];
            for (int64_t i = 0; i < c.n; i++)
                s += (double)c.dy[i + o * c.n] * c.x[i + k * c.n];
            dw[o + k * c.out] = (float)s;
        }
    }
    graded_note = lin_shape(&c);
    expect_ok("drawn.rc", "linear_backward");
    expect_close_2d("dx", got_guarded("drawn.dx", "dx", c.n * c.in), dx, c.n, c.in, 1e-5, 1e-4);
    expect_close_2d("dw", got_guarded("drawn.dw", "dw", c.out * c.in), dw, c.out, c.in, 1e-5, 1e-4);
    expect_close_1d("db", got_guarded("drawn.db", "db", c.out), db, c.out, 1e-5, 1e-4);
    graded_note = NULL;
    free(dx);
    free(dw);
    free(db);
    lin_drawn_free(&c);
}
#endif

typedef struct Lin {
    const Fixture *x, *w, *b, *dy;
    int64_t n, in, out;
} Lin;

static Lin lin(const char *p)
{
    Lin c = {fx(p, "x"), fx(p, "w"), fx(p, "b"), fx(p, "dy"), 0, 0, 0};
    c.n = c.x->shape[0];
    c.in = c.x->shape[1];
    c.out = c.w->shape[0];
    return c;
}

#ifdef GRADE_RUNNER
static void linear_forward_run(const char *p)
{
    Lin c = lin(p);
    float *y = guarded_new(c.n * c.out, NAN);
    put_rc(key("%s.rc", p), linear_forward(c.x->cm, c.w->cm, c.b->cm, y, c.n, c.in, c.out));
    put_guarded(key("%s.y", p), y);
    put_f32(key("%s.x", p), c.x->cm, c.n * c.in);
    put_f32(key("%s.w", p), c.w->cm, c.out * c.in);
    guarded_free(y);
}

RUN(linear_forward_pytorch)
{
    linear_forward_run("lin_a"); /* (7, 5) -> 6 */
    linear_forward_drawn_run();
}

RUN(linear_forward_shapes)
{
    linear_forward_run("lin_b"); /* (1, 3) -> 2: one sample */
    linear_forward_run("lin_c"); /* (37, 1) -> 17: one feature */
    linear_forward_run("lin_d"); /* (130, 10) -> 3: the Iris hidden layer's shape */
    linear_forward_drawn_run();
}

RUN(linear_forward_by_hand)
{
    /* x = [[1, 2, 3], [4, 5, 6]], W = [[1, 0, -1], [0.5, 0.5, 0.5]], b = [10, -1],
     * column-major. */
    const float x[6] = {1, 4, 2, 5, 3, 6}, w[6] = {1, 0.5f, 0, 0.5f, -1, 0.5f}, b[2] = {10, -1};
    float *y = guarded_new(4, NAN);
    put_rc("rc", linear_forward(x, w, b, y, 2, 3, 2));
    put_guarded("y", y);
    guarded_free(y);
    linear_forward_drawn_run();
}
#endif

#ifdef GRADE_JUDGE
static void linear_forward_judge(const char *p)
{
    Lin c = lin(p);
    expect_ok(key("%s.rc", p), "linear_forward");
    const float *y = got_guarded(key("%s.y", p), "y", c.n * c.out);
    expect_unchanged("x", got_f32(key("%s.x", p), c.n * c.in), c.x->cm, c.n * c.in);
    expect_unchanged("w", got_f32(key("%s.w", p), c.out * c.in), c.w->cm, c.out * c.in);
    expect_close_2d("y", y, fx(p, "y")->cm, c.n, c.out, 1e-5, 1e-5);
}

JUDGE(linear_forward_pytorch)
{
    linear_forward_judge("lin_a");
    linear_forward_drawn_judge();
}

JUDGE(linear_forward_shapes)
{
    linear_forward_judge("lin_b");
    linear_forward_judge("lin_c");
    linear_forward_judge("lin_d");
    linear_forward_drawn_judge();
}

JUDGE(linear_forward_by_hand)
{
    /* y = x W^T + b = [[1 - 3 + 10, 3 - 1], [4 - 6 + 10, 7.5 - 1]] = [[8, 2], [8, 6.5]];
     * column-major {8, 8, 2, 6.5}. */
    const float want[4] = {8, 8, 2, 6.5f};
    expect_ok("rc", "linear_forward");
    expect_close_2d("y", got_guarded("y", "y", 4), want, 2, 2, 0, 1e-6);
    linear_forward_drawn_judge();
}
#endif

/* The gradients already in dw and db before the calls (column-major (out, in), out). */
static float dw_start(int64_t i)
{
    return 0.25f * (float)(i % 7) - 0.5f;
}
static float db_start(int64_t o)
{
    return 1.0f + (float)o;
}

#ifdef GRADE_RUNNER
static void linear_backward_run(const char *p, int want_dx)
{
    Lin c = lin(p);
    float *dx = want_dx ? guarded_new(c.n * c.in, 12345.0f) : NULL; /* junk: dx is written */
    float *dw = guarded_new(c.out * c.in, 0.0f), *db = guarded_new(c.out, 0.0f);
    put_rc(key("%s.rc", p),
           linear_backward(c.x->cm, c.w->cm, c.dy->cm, dx, dw, db, c.n, c.in, c.out));
    put_guarded(key("%s.dw", p), dw);
    put_guarded(key("%s.db", p), db);
    if (dx) put_guarded(key("%s.dx", p), dx);
    guarded_free(dx);
    guarded_free(dw);
    guarded_free(db);
}

RUN(linear_backward_pytorch)
{
    linear_backward_run("lin_a", 1);
    linear_backward_drawn_run();
}

RUN(linear_backward_shapes)
{
    linear_backward_run("lin_b", 1);
    linear_backward_run("lin_c", 1);
    linear_backward_run("lin_d", 1);
    linear_backward_drawn_run();
}

RUN(linear_backward_accumulates)
{
    /* Two backward calls on top of gradients already there. */
    Lin c = lin("lin_a");
    float *dx = guarded_new(c.n * c.in, -777.0f);
    float *dw = guarded_new(c.out * c.in, 0.0f), *db = guarded_new(c.out, 0.0f);
    for (int64_t i = 0; i < c.out * c.in; i++)
        dw[i] = dw_start(i);
    for (int64_t o = 0; o < c.out; o++)
        db[o] = db_start(o);
    for (int k = 0; k < 2; k++)
        put_rc(key("rc%d", k),
               linear_backward(c.x->cm, c.w->cm, c.dy->cm, dx, dw, db, c.n, c.in, c.out));
    put_guarded("dw", dw);
    put_guarded("db", db);
    put_guarded("dx", dx);
    guarded_free(dx);
    guarded_free(dw);
    guarded_free(db);
    linear_backward_drawn_run();
}

RUN(linear_backward_no_dx)
{
    /* The first layer of a network passes dx = NULL. */
    linear_backward_run("lin_a", 0);
    linear_backward_run("lin_d", 0);
    linear_backward_drawn_run();
}
#endif

#ifdef GRADE_JUDGE
static void linear_backward_judge(const char *p, int want_dx)
{
    Lin c = lin(p);
    expect_ok(key("%s.rc", p), "linear_backward");
    const float *dw = got_guarded(key("%s.dw", p), "dw", c.out * c.in);
    const float *db = got_guarded(key("%s.db", p), "db", c.out);
    if (want_dx) {
        const float *dx = got_guarded(key("%s.dx", p), "dx", c.n * c.in);
        expect_close_2d("dx", dx, fx(p, "dx")->cm, c.n, c.in, 1e-5, 1e-4);
    }
    expect_close_2d("dw", dw, fx(p, "dw")->cm, c.out, c.in, 1e-5, 1e-4);
    expect_close_1d("db", db, fx(p, "db")->cm, c.out, 1e-5, 1e-4);
}

JUDGE(linear_backward_pytorch)
{
    linear_backward_judge("lin_a", 1);
    linear_backward_drawn_judge();
}

JUDGE(linear_backward_shapes)
{
    linear_backward_judge("lin_b", 1);
    linear_backward_judge("lin_c", 1);
    linear_backward_judge("lin_d", 1);
    linear_backward_drawn_judge();
}

JUDGE(linear_backward_accumulates)
{
    /* dw and db add up (start + 2 x one call), dx is written fresh each time. */
    Lin c = lin("lin_a");
    int64_t nw = c.out * c.in;
    const float *gw = fx("lin_a", "dw")->cm, *gb = fx("lin_a", "db")->cm;
    float *want_w = malloc((size_t)nw * sizeof *want_w), want_b[64];
    ck_assert(c.out <= 64);
    for (int64_t i = 0; i < nw; i++)
        want_w[i] = dw_start(i) + 2.0f * gw[i];
    for (int64_t o = 0; o < c.out; o++)
        want_b[o] = db_start(o) + 2.0f * gb[o];
    expect_ok("rc0", "linear_backward");
    expect_ok("rc1", "linear_backward");
    graded_note = "after two calls on top of a start value, dw must be start + 2 x the gradient "
                  "(add to dw, do not overwrite it)";
    expect_close_2d("dw", got_guarded("dw", "dw", nw), want_w, c.out, c.in, 1e-5, 1e-4);
    graded_note = "after two calls on top of a start value, db must be start + 2 x the gradient "
                  "(add to db, do not overwrite it)";
    expect_close_1d("db", got_guarded("db", "db", c.out), want_b, c.out, 1e-5, 1e-4);
    graded_note = "dx must be written, not added to (it held junk before the call)";
    expect_close_2d("dx", got_guarded("dx", "dx", c.n * c.in), fx("lin_a", "dx")->cm, c.n, c.in,
                    1e-5, 1e-4);
    free(want_w);
    linear_backward_drawn_judge();
}

JUDGE(linear_backward_no_dx)
{
    linear_backward_judge("lin_a", 0);
    linear_backward_judge("lin_d", 0);
    linear_backward_drawn_judge();
}
#endif
