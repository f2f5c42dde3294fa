/*
 * ex04_3_module_call_hooks.c: the cases of exercise 04.3, module_call_hooks:
 * the module call protocol (pre-hooks, forward, hooks).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out and what the harness saw) and a JUDGE half (in the judge: decide),
 * see ../graded.h.
 */
#include "suite.h"

/* ---- ex04.3 module_call_hooks ---------------------------------------------------------- */

/* The layer of the hook cases: Linear(3 -> 2), W (2, 3) and b by formula, so
 * the judge can work out its output; inputs (4, 3) by formula too. */
static float hk_w(int64_t o, int64_t i)
{
    return 0.5f * (float)(o + 1) - 0.25f * (float)(i * (i + o));
}
static float hk_b(int64_t o) { return o ? -0.75f : 0.5f; }
static float hk_x(int64_t i, int64_t j) { return 0.5f + 0.25f * (float)i - 0.5f * (float)(j * j); }
static float hk_x2(int64_t i, int64_t j) { return -1.0f + 0.125f * (float)(3 * i + j); }

#ifdef GRADE_RUNNER

static Module *fc(void)
{
    Rng rng;
    rng_seed(&rng, 21, 0);
    Module *m = linear_new("fc1", 3, 2, &rng);
    ck_assert_ptr_nonnull(m);
    float *w = tensor_f32(module_find_param(m, "weight")->value); /* (2, 3) column-major */
    float *b = tensor_f32(module_find_param(m, "bias")->value);
    for (int64_t o = 0; o < 2; o++) {
        b[o] = hk_b(o);
        for (int64_t i = 0; i < 3; i++) w[o + 2 * i] = hk_w(o, i);
    }
    return m;
}

static Tensor *hook_input(int64_t rows, int64_t cols, float (*f)(int64_t, int64_t))
{
    Tensor *x = tensor_new_2d(rows, cols);
    ck_assert_ptr_nonnull(x);
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) tensor_f32(x)[i + j * rows] = f ? f(i, j) : 0.0f;
    return x;
}

/* module_call; its return value goes to k. */
static void put_module_call(const char *k, Module *m, const Tensor *x, const Tensor **y)
{
    *y = NULL;
    err_clear();
    put_rc(k, module_call(m, x, y));
}

/* What forward left in the module: its output's values (none if it never ran). */
static void put_forward_output(const char *k, const Module *m)
{
    int64_t n = m->output->shape[0] * m->output->shape[1];
    put_f32(k, n > 0 ? tensor_f32(m->output) : NULL, n);
}

RUN(hooks_order_and_arguments)
{
    Module *m = fc();
    char log[LOG_CAP] = "";
    Probe a = probe(log, "A", m, NULL), b = probe(log, "B", m, NULL);
    Probe c = probe(log, "C", m, NULL), d = probe(log, "D", m, NULL);
    Callable cc = post_hook(m, &c, NULL); /* registered first, but a forward hook: runs after */
    Callable ca = pre_hook(m, &a, NULL);
    Callable cb = pre_hook(m, &b, NULL);
    Callable cd = post_hook(m, &d, NULL);
    Tensor *x = hook_input(4, 3, hk_x);
    const Tensor *y;
    put_module_call("rc", m, x, &y);
    put_str("log", log);
    put_i64("A.module", a.saw_module == m);
    put_i64("A.input", a.saw_in == x);
    put_i64("B.input", b.saw_in == x);
    put_i64("C.module", c.saw_module == m);
    put_i64("C.input", c.saw_in == x);
    put_i64("C.output", c.saw_out == m->output);
    put_i64("D.output", d.saw_out == m->output);
    put_i64("A.after_forward", a.forward_done);
    put_i64("B.after_forward", b.forward_done);
    put_i64("C.after_forward", c.forward_done);
    put_i64("D.after_forward", d.forward_done);
    put_i64("y_is_output", y == m->output);
    put_forward_output("out", m);
    /* Again with gradients disabled: the module then keeps no input, but the
     * forward hooks still get the one forward saw. */
    log[0] = '\0';
    c.saw_in = NULL;
    module_set_grad_enabled(false);
    put_module_call("no_grad.rc", m, x, &y);
    module_set_grad_enabled(true);
    put_i64("no_grad.C.input", c.saw_in == x);
    callable_release(ca), callable_release(cb), callable_release(cc), callable_release(cd);
    tensor_free(x);
    module_free(m);
}

RUN(hooks_replace_input_and_output)
{
    Module *m = fc();
    char log[LOG_CAP] = "";
    Tensor *x = hook_input(4, 3, hk_x), *x2 = hook_input(4, 3, hk_x2);
    Tensor *y2 = hook_input(4, 2, NULL), *y3 = hook_input(4, 2, NULL);
    Probe a = probe(log, "A", m, x2), b = probe(log, "B", m, NULL);
    Probe c = probe(log, "C", m, y2), d = probe(log, "D", m, y3);
    Callable ca = pre_hook(m, &a, NULL), cb = pre_hook(m, &b, NULL);
    Callable cc = post_hook(m, &c, NULL), cd = post_hook(m, &d, NULL);
    const Tensor *y;
    put_module_call("rc", m, x, &y);
    put_i64("B.input", b.saw_in == x2);
    put_i64("forward.input", m->input == x2);
    put_i64("C.input", c.saw_in == x2);
    put_i64("C.output", c.saw_out == m->output);
    put_i64("D.input", d.saw_in == x2);
    put_i64("D.output", d.saw_out == y2);
    put_i64("y_is_y3", y == y3);
    put_forward_output("out", m);
    callable_release(ca), callable_release(cb), callable_release(cc), callable_release(cd);
    tensor_free(x);
    tensor_free(x2);
    tensor_free(y2);
    tensor_free(y3);
    module_free(m);
}

RUN(hooks_none_keeps_replacement)
{
    /* A hook that returns None after one that replaced: the replacement stays. */
    Module *m = fc();
    char log[LOG_CAP] = "";
    Tensor *x = hook_input(4, 3, hk_x), *x2 = hook_input(4, 3, hk_x2);
    Tensor *y2 = hook_input(4, 2, NULL);
    Probe a = probe(log, "A", m, x2), b = probe(log, "B", m, NULL);
    Probe c = probe(log, "C", m, y2), d = probe(log, "D", m, NULL);
    Callable ca = pre_hook(m, &a, NULL), cb = pre_hook(m, &b, NULL);
    Callable cc = post_hook(m, &c, NULL), cd = post_hook(m, &d, NULL);
    const Tensor *y;
    put_module_call("rc", m, x, &y);
    put_str("log", log);
    put_i64("B.input", b.saw_in == x2);
    put_i64("forward.input", m->input == x2);
    put_i64("D.input", d.saw_in == x2);
    put_i64("D.output", d.saw_out == y2);
    put_i64("y_is_y2", y == y2);
    put_forward_output("out", m);
    callable_release(ca), callable_release(cb), callable_release(cc), callable_release(cd);

    /* Only a pre-hook, which replaces the input: the output is forward's. */
    Module *m2 = fc();
    log[0] = '\0';
    Probe p = probe(log, "P", m2, x2);
    Callable cp = pre_hook(m2, &p, NULL);
    put_module_call("pre_only.rc", m2, x, &y);
    put_str("pre_only.log", log);
    put_i64("pre_only.y_is_output", y == m2->output);
    put_forward_output("pre_only.out", m2);
    callable_release(cp);

    /* Only a forward hook, which returns None: the output is forward's. */
    Module *m3 = fc();
    log[0] = '\0';
    Probe q = probe(log, "Q", m3, NULL);
    Callable cq = post_hook(m3, &q, NULL);
    put_module_call("post_only.rc", m3, x, &y);
    put_str("post_only.log", log);
    put_i64("post_only.y_is_output", y == m3->output);
    put_i64("post_only.Q.output", q.saw_out == m3->output);
    put_forward_output("post_only.out", m3);
    callable_release(cq);

    tensor_free(x);
    tensor_free(x2);
    tensor_free(y2);
    module_free(m);
    module_free(m2);
    module_free(m3);
}

RUN(hooks_errors_and_removal)
{
    Module *m = fc();
    char log[LOG_CAP] = "";
    Probe a = probe(log, "A", m, NULL), c = probe(log, "C", m, NULL);
    Probe d = probe(log, "D", m, NULL);
    d.fail = 1;
    HookHandle ha, hc, hd;
    Callable ca = pre_hook(m, &a, &ha);
    Callable cc = post_hook(m, &c, &hc);
    Callable cd = post_hook(m, &d, &hd);
    Tensor *x = hook_input(2, 3, NULL);
    const Tensor *y;
    put_module_call("fails", m, x, &y);
    d.fail = 0;
    d.bad_return = 1;
    put_module_call("bad_return", m, x, &y);
    ck_assert_int_eq(module_remove_hook(hd), ERR_OK);
    ck_assert_int_eq(module_remove_hook(ha), ERR_OK);
    log[0] = '\0';
    put_module_call("removed", m, x, &y);
    put_str("removed.log", log);
    callable_release(ca), callable_release(cc), callable_release(cd);
    tensor_free(x);
    module_free(m);
}

RUN(hooks_failure_stops)
{
    /* Pre-hooks A, B and forward hooks C, D; one of them fails, or forward does. */
    Module *m = fc();
    char log[LOG_CAP] = "";
    Tensor *x = hook_input(4, 3, hk_x), *wide = hook_input(4, 5, NULL);
    Probe a = probe(log, "A", m, NULL), b = probe(log, "B", m, NULL);
    Probe c = probe(log, "C", m, NULL), d = probe(log, "D", m, NULL);
    Callable ca = pre_hook(m, &a, NULL), cb = pre_hook(m, &b, NULL);
    Callable cc = post_hook(m, &c, NULL), cd = post_hook(m, &d, NULL);
    const Tensor *y;
    b.fail = 1; /* pre-hook 2 fails */
    put_module_call("pre_fails", m, x, &y);
    put_str("pre_fails.log", log);
    put_i64("pre_fails.forward", m->output->shape[0] > 0);
    b.fail = 0, b.bad_return = 1; /* pre-hook 2 returns a string */
    log[0] = '\0';
    put_module_call("pre_bad", m, x, &y);
    put_str("pre_bad.log", log);
    put_i64("pre_bad.forward", m->output->shape[0] > 0);
    b.bad_return = 0;
    a.replace = wide; /* forward fails: a (4, 5) input to Linear(3 -> 2) */
    log[0] = '\0';
    put_module_call("forward_fails", m, x, &y);
    put_str("forward_fails.log", log);
    a.replace = NULL;
    c.fail = 1; /* forward hook 1 fails */
    log[0] = '\0';
    put_module_call("post_fails", m, x, &y);
    put_str("post_fails.log", log);
    callable_release(ca), callable_release(cb), callable_release(cc), callable_release(cd);
    tensor_free(x);
    tensor_free(wide);
    module_free(m);
}
#endif

#ifdef GRADE_JUDGE
static void call_ok(const char *k)
{
    expect_written(k, "module_call_hooks");
    if (got_rc(k) != ERR_OK) ck_abort_msg("module_call failed: %s", got_rc_msg(k));
}

static void fact(const char *name, const char *message)
{
    if (!got_i64(name)) ck_abort_msg("%s", message);
}

/* fc1's output for an input by formula: y (4, 2) = x W^T + b, column-major. */
static void expect_forward_of(const char *k, float (*f)(int64_t, int64_t), const char *input)
{
    int64_t n;
    const float *got = got_f32_n(k, &n);
    if (n != 8)
        ck_abort_msg("fc1's forward did not run (its output has %lld values, expected 4 x 2 = 8)",
                     (long long)n);
    float want[8];
    for (int64_t o = 0; o < 2; o++)
        for (int64_t i = 0; i < 4; i++) {
            double s = hk_b(o);
            for (int64_t j = 0; j < 3; j++) s += (double)f(i, j) * hk_w(o, j);
            want[i + 4 * o] = (float)s;
        }
    graded_note = input;
    expect_close_2d("fc1's output", got, want, 4, 2, 1e-5, 1e-5);
    graded_note = NULL;
}

JUDGE(hooks_order_and_arguments)
{
    call_ok("rc");
    const char *log = got_str("log");
    ck_assert_msg(strcmp(log, "ABCD") == 0,
                  "the hooks ran in the order \"%s\", expected \"ABCD\": pre-hooks in "
                  "registration order, forward, then forward hooks in registration order",
                  log);
    ck_assert_msg(!got_i64("A.after_forward") && !got_i64("B.after_forward"),
                  "a pre-hook ran after fc1's forward: run every pre-hook before forward");
    ck_assert_msg(got_i64("C.after_forward") && got_i64("D.after_forward"),
                  "a forward hook ran before fc1's forward: run forward, then the forward hooks "
                  "(with its output)");
    fact("A.module", "a pre-hook's first argument must be the module");
    fact("A.input", "a pre-hook's second argument must be the input");
    fact("B.input", "pre-hook 2 must get the input too (pre-hook 1 returned None)");
    fact("C.module", "a forward hook's first argument must be the module");
    fact("C.input", "a forward hook's second argument must be the input");
    fact("C.output", "a forward hook's third argument must be the output");
    fact("D.output", "forward hook 2 must get forward's output (forward hook 1 returned None)");
    fact("y_is_output", "with hooks that return None, the output is forward's");
    expect_forward_of("out", hk_x, "forward must run on the input x");
    call_ok("no_grad.rc");
    fact("no_grad.C.input", "with gradients disabled, a forward hook's second argument must "
                            "still be the input forward saw (the module keeps none then: pass "
                            "your own pointer, not m->input)");
}

JUDGE(hooks_replace_input_and_output)
{
    call_ok("rc");
    fact("B.input", "pre-hook 2 must see the input pre-hook 1 returned");
    fact("forward.input", "forward must run on the input the pre-hooks left");
    expect_forward_of("out", hk_x2, "forward must run on the input pre-hook 1 returned");
    fact("C.input", "a forward hook must see the input forward saw");
    fact("C.output", "forward hook 1 must see forward's output");
    fact("D.input", "a forward hook must see the input forward saw");
    fact("D.output", "forward hook 2 must see the output forward hook 1 returned");
    fact("y_is_y3", "the caller must get the last replacement of the output");
}

JUDGE(hooks_none_keeps_replacement)
{
    call_ok("rc");
    const char *log = got_str("log");
    ck_assert_msg(strcmp(log, "ABCD") == 0, "the hooks ran in the order \"%s\", expected \"ABCD\"",
                  log);
    fact("B.input", "pre-hook 2 must see the input pre-hook 1 returned");
    fact("forward.input", "pre-hook 1 replaced the input and pre-hook 2 returned None: forward "
                          "must run on pre-hook 1's replacement (None keeps the current input, "
                          "not the original one)");
    expect_forward_of("out", hk_x2, "pre-hook 1 replaced the input, pre-hook 2 returned None");
    fact("D.input", "a forward hook must see the input forward saw");
    fact("D.output", "forward hook 2 must see the output forward hook 1 returned");
    fact("y_is_y2", "forward hook 1 replaced the output and forward hook 2 returned None: the "
                    "caller must get forward hook 1's replacement (None keeps the current "
                    "output, not forward's)");
    call_ok("pre_only.rc");
    ck_assert_msg(strcmp(got_str("pre_only.log"), "P") == 0,
                  "with one pre-hook only, it ran as \"%s\", expected once (\"P\")",
                  got_str("pre_only.log"));
    fact("pre_only.y_is_output", "with a pre-hook and no forward hooks, the caller must get "
                                 "forward's output (set *y also when there are no forward "
                                 "hooks)");
    expect_forward_of("pre_only.out", hk_x2, "a lone pre-hook replaced the input");
    call_ok("post_only.rc");
    ck_assert_msg(strcmp(got_str("post_only.log"), "Q") == 0,
                  "with one forward hook only, it ran as \"%s\", expected once (\"Q\")",
                  got_str("post_only.log"));
    fact("post_only.Q.output", "a forward hook's third argument must be the output");
    fact("post_only.y_is_output",
         "with one forward hook that returns None, the output is forward's");
    expect_forward_of("post_only.out", hk_x, "forward must run on the input x");
}

static void expect_error(const char *k, int code, const char *want_msg, const char *what)
{
    expect_written(k, "module_call_hooks");
    int rc = got_rc(k);
    const char *msg = got_rc_msg(k);
    if (want_msg && !(rc == code && strcmp(msg, want_msg) == 0))
        ck_abort_msg("%s gave %d \"%s\"; expected %s (%d) \"%s\"", what, rc, msg,
                     err_name((ErrCode)code), code, want_msg);
    if (rc != code)
        ck_abort_msg("%s gave %d \"%s\"; expected %s (%d): return the error that came", what, rc,
                     msg, err_name((ErrCode)code), code);
}

JUDGE(hooks_errors_and_removal)
{
    expect_written("fails", "module_call_hooks");
    int rc = got_rc("fails");
    ck_assert_msg(rc == ERR_ARG, "a failing hook must stop the call with its error (got %d)", rc);
    ck_assert_msg(strcmp(got_rc_msg("fails"), "forward hook 2 of Linear fc1: PostProbe: boom") == 0,
                  "the message is \"%s\", expected \"forward hook 2 of Linear fc1: PostProbe: "
                  "boom\"",
                  got_rc_msg("fails"));
    rc = got_rc("bad_return");
    ck_assert_msg(rc == ERR_ARG && strcmp(got_rc_msg("bad_return"),
                                          "forward hook 2 of Linear fc1: returned a str; a hook "
                                          "returns None or a tensor") == 0,
                  "a hook returning a string gave %d \"%s\"", rc, got_rc_msg("bad_return"));
    rc = got_rc("removed");
    ck_assert_msg(rc == ERR_OK && strcmp(got_str("removed.log"), "C") == 0,
                  "after removing hooks 1 and 3 only C must run; ran \"%s\" (%s)",
                  got_str("removed.log"), got_rc_msg("removed"));
}

JUDGE(hooks_failure_stops)
{
    expect_error("pre_fails", ERR_ARG, "forward pre-hook 2 of Linear fc1: PreProbe: boom",
                 "pre-hook 2 failing");
    ck_assert_msg(strcmp(got_str("pre_fails.log"), "AB") == 0,
                  "pre-hook 2 failed, yet the hooks ran as \"%s\", expected \"AB\": a failing "
                  "hook stops the call at once",
                  got_str("pre_fails.log"));
    ck_assert_msg(!got_i64("pre_fails.forward"),
                  "pre-hook 2 failed, yet fc1's forward ran: a failing hook stops the call");
    expect_error("pre_bad", ERR_ARG,
                 "forward pre-hook 2 of Linear fc1: returned a str; a hook returns None or a "
                 "tensor",
                 "pre-hook 2 returning a string");
    ck_assert_msg(strcmp(got_str("pre_bad.log"), "AB") == 0 && !got_i64("pre_bad.forward"),
                  "pre-hook 2 returned a string, yet the call went on (hooks ran as \"%s\"%s): "
                  "stop with the error",
                  got_str("pre_bad.log"), got_i64("pre_bad.forward") ? ", and forward" : "");
    expect_error("forward_fails", ERR_SHAPE, NULL,
                 "forward failing (pre-hook 1 gave Linear(3 -> 2) a (4, 5) input)");
    ck_assert_msg(strcmp(got_str("forward_fails.log"), "AB") == 0,
                  "forward failed, yet the hooks ran as \"%s\", expected \"AB\": when forward "
                  "fails, return its error before the forward hooks",
                  got_str("forward_fails.log"));
    expect_error("post_fails", ERR_ARG, "forward hook 1 of Linear fc1: PostProbe: boom",
                 "forward hook 1 failing");
    ck_assert_msg(strcmp(got_str("post_fails.log"), "ABC") == 0,
                  "forward hook 1 failed, yet the hooks ran as \"%s\", expected \"ABC\": a "
                  "failing hook stops the call at once",
                  got_str("post_fails.log"));
}
#endif
