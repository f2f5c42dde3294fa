/*
 * grade04.c: the graded suite of Lesson 04 (lessons/04_callable_objects/exercises.c).
 *
 * The oracles are the protocol's own rules, checked with callables that log
 * what happens (order, arguments, replacements) and with small cases worked
 * out by hand in the comments (a Linear layer whose weights are a formula, an
 * inner callable whose result spells its arguments), and lib's own forward
 * pass on the CPU as the reference for what a batched call must return (the
 * reference run, which never runs the exercises it grades). The whole-lesson
 * case batches a model and rows drawn for the grading run instead, against the
 * judge's own forward pass in double (drawn_whole.h, oracle_mlp.h). The batching
 * checks run on a CUDA device (the GPU, or the simulator when there is none)
 * so that the number of copies to the device can be counted.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out and what the harness saw) and a JUDGE half (in the judge: decide),
 * see graded.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../protocol/drawn_whole.h"
#include "../graded.h"
#include "lib/core/callable.h"
#include "lib/core/err.h"
#ifdef GRADE_JUDGE
#include "../../oracles/oracle_mlp.h"
#endif
#ifdef GRADE_RUNNER
#include "lib/nn/batcher.h"
#include "lib/core/counters.h"
#include "lib/device/device.h"
#include "lib/nn/layers.h"
#include "lib/nn/module.h"
#endif

#ifdef GRADE_RUNNER
/* An integer-valued call: its return value (put_rc), the kind of its result
 * and, for an int, the int. */
static void put_call(const char *k, Callable c, const Value *args, int n)
{
    Value r = value_none();
    err_clear();
    put_rc(k, callable_call(c, args, n, &r));
    put_i64(key("%s.kind", k), r.kind);
    put_i64(key("%s.int", k), r.kind == VALUE_INT ? r.as.i : 0);
}
#endif

#ifdef GRADE_JUDGE
/* value_kind_name, which the judge cannot call (it links no lib beyond err.o). */
static const char *kind_name(int64_t kind)
{
    static const char *const names[] = {"None", "int", "float", "str", "pointer"};
    return kind >= 0 && kind < 5 ? names[kind] : "unknown";
}

/* The int a put_call returned; fails the case with `what` in front of the
 * story when it returned none. */
static long long got_int(const char *k, const char *function, const char *what)
{
    expect_written(k, function);
    if (got_rc(k) != ERR_OK) ck_abort_msg("%s failed: %s", what, got_rc_msg(k));
    int64_t kind = got_i64(key("%s.kind", k));
    if (kind != VALUE_INT)
        ck_abort_msg("%s returned a %s, expected an int", what, kind_name(kind));
    return (long long)got_i64(key("%s.int", k));
}
#endif

/* ---- ex04.1 counter_call ---------------------------------------------------------- */

#ifdef GRADE_RUNNER
RUN(counter_counts)
{
    Callable c;
    ck_assert_int_eq(counter_new(&c), ERR_OK);
    for (int i = 1; i <= 5; i++) put_call(key("call%d", i), c, NULL, 0);
    put_i64("state.count", ((CounterState *)callable_state(c))->count);
    callable_release(c);
}

RUN(counters_are_independent)
{
    /* a(), a(), b(), a() */
    Callable a, b;
    ck_assert_int_eq(counter_new(&a), ERR_OK);
    ck_assert_int_eq(counter_new(&b), ERR_OK);
    put_call("a1", a, NULL, 0);
    put_call("a2", a, NULL, 0);
    put_call("b1", b, NULL, 0);
    put_call("a3", a, NULL, 0);
    callable_release(a);
    callable_release(b);
}
#endif

#ifdef GRADE_JUDGE
JUDGE(counter_counts)
{
    for (int i = 1; i <= 5; i++) {
        long long got = got_int(key("call%d", i), "counter_call", "counter()");
        ck_assert_msg(got == i, "call %d of counter() returned %lld", i, got);
    }
    long long count = (long long)got_i64("state.count");
    ck_assert_msg(count == 5,
                  "after 5 calls counter.count is %lld, expected 5 (keep the count in the state)",
                  count);
}

JUDGE(counters_are_independent)
{
    got_int("a1", "counter_call", "counter()");
    got_int("a2", "counter_call", "counter()");
    long long first_b = got_int("b1", "counter_call", "counter()");
    ck_assert_msg(first_b == 1,
                  "a second Counter's first call returned %lld: the count must live in each "
                  "object's state, not in a global",
                  first_b);
    ck_assert_msg(got_int("a3", "counter_call", "counter()") == 3,
                  "the first Counter lost its count");
}
#endif

/* ---- ex04.2 partial_call ----------------------------------------------------------- */

#ifdef GRADE_RUNNER
/* f(a, b, c) = 100a + 10b + c: the order of arguments shows in the digits. */
static int digits(void *state, const Value *args, int nargs, Value *out)
{
    (void)state, (void)nargs;
    *out = value_int(100 * args[0].as.i + 10 * args[1].as.i + args[2].as.i);
    return ERR_OK;
}
static const CallableClass digits_class = {"Digits", 3, digits, NULL};

/* g(...) with any number of arguments, each a digit: nargs * 10^9 + the digits
 * in order, so g(1, ..., 8) = 8012345678. */
static int spell(void *state, const Value *args, int nargs, Value *out)
{
    (void)state;
    long long v = 0;
    for (int i = 0; i < nargs; i++) v = 10 * v + args[i].as.i;
    *out = value_int(1000000000LL * nargs + v);
    return ERR_OK;
}
static const CallableClass spell_class = {"Spell", -1, spell, NULL};
#endif

#ifdef GRADE_RUNNER
RUN(partial_order)
{
    Callable f, p1, p2, p0, p3;
    ck_assert_int_eq(callable_new(&digits_class, NULL, &f), ERR_OK);
    Value one = value_int(1), two[2] = {value_int(2), value_int(3)};
    ck_assert_int_eq(callable_partial(f, &one, 1, &p1), ERR_OK);
    put_call("p1", p1, two, 2); /* partial(f, 1)(2, 3) */
    Value bound[2] = {value_int(4), value_int(5)}, six = value_int(6);
    ck_assert_int_eq(callable_partial(f, bound, 2, &p2), ERR_OK);
    put_call("p2", p2, &six, 1); /* partial(f, 4, 5)(6) */
    Value all[3] = {value_int(7), value_int(8), value_int(9)};
    ck_assert_int_eq(callable_partial(f, NULL, 0, &p0), ERR_OK);
    put_call("p0", p0, all, 3); /* partial(f)(7, 8, 9) */
    ck_assert_int_eq(callable_partial(f, all, 3, &p3), ERR_OK);
    put_call("p3", p3, NULL, 0); /* partial(f, 7, 8, 9)() */
    callable_release(p0);
    callable_release(p1);
    callable_release(p2);
    callable_release(p3);
    callable_release(f);
}

RUN(partial_nested_and_errors)
{
    Callable f, p1, p12;
    ck_assert_int_eq(callable_new(&digits_class, NULL, &f), ERR_OK);
    Value one = value_int(1), two = value_int(2), three = value_int(3);
    ck_assert_int_eq(callable_partial(f, &one, 1, &p1), ERR_OK);
    ck_assert_int_eq(callable_partial(p1, &two, 1, &p12), ERR_OK);
    put_call("nested", p12, &three, 1); /* partial(partial(f, 1), 2)(3) */
    /* Too many arguments in all: an ERR_ARG, not a buffer overflow. */
    Value many[8];
    for (int i = 0; i < 8; i++) many[i] = value_int(i);
    put_call("many", p12, many, 8);
    /* The inner callable's errors come back as they are. */
    callable_release(f);
    put_call("released", p12, &three, 1);
    callable_release(p1);
    callable_release(p12);
}

/* partial(spell, 1, ..., nbound)(nbound + 1, ..., nbound + nargs). */
static void spell_run(const char *k, Callable g, int nbound, int nargs)
{
    Value v[16];
    for (int i = 0; i < 16; i++) v[i] = value_int(i % 9 + 1);
    Callable p;
    ck_assert_int_eq(callable_partial(g, v, nbound, &p), ERR_OK);
    put_call(k, p, nargs ? v + nbound : NULL, nargs);
    callable_release(p);
}

RUN(partial_max_args)
{
    Callable g;
    ck_assert_int_eq(callable_new(&spell_class, NULL, &g), ERR_OK);
    /* Exactly CALLABLE_MAX_ARGS (8) in all works, however they are split. */
    spell_run("b3n5", g, 3, 5);
    spell_run("b8n0", g, 8, 0);
    spell_run("b0n8", g, 0, 8);
    spell_run("b7n1", g, 7, 1);
    /* One more is an ERR_ARG; so is far more. */
    spell_run("b8n1", g, 8, 1);
    spell_run("b5n4", g, 5, 4);
    spell_run("b8n8", g, 8, 8);
    callable_release(g);
}
#endif

#ifdef GRADE_JUDGE
/* spell's result for g(1, 2, ..., n). */
static long long spelled(int n)
{
    long long v = 0;
    for (int i = 1; i <= n; i++) v = 10 * v + i;
    return 1000000000LL * n + v;
}

JUDGE(partial_order)
{
    long long got = got_int("p1", "partial_call", "the call");
    ck_assert_msg(got == 123,
                  "partial(f, 1)(2, 3) gave %lld, expected f(1, 2, 3) = 123 (bound values first, "
                  "then the call's)",
                  got);
    got = got_int("p2", "partial_call", "the call");
    ck_assert_msg(got == 456, "partial(f, 4, 5)(6) gave %lld, expected 456", got);
    got = got_int("p0", "partial_call", "partial(f)(7, 8, 9)");
    ck_assert_msg(got == 789, "partial(f)(7, 8, 9), nothing bound, gave %lld, expected 789", got);
    got = got_int("p3", "partial_call", "partial(f, 7, 8, 9)()");
    ck_assert_msg(got == 789,
                  "partial(f, 7, 8, 9)(), every argument bound and none given (args is NULL), "
                  "gave %lld, expected 789",
                  got);
}

JUDGE(partial_nested_and_errors)
{
    long long got = got_int("nested", "partial_call", "the call");
    ck_assert_msg(got == 123, "partial(partial(f, 1), 2)(3) gave %lld, expected 123", got);
    expect_written("many", "partial_call");
    int rc = got_rc("many");
    ck_assert_msg(rc == ERR_ARG, "10 arguments in all returned %d, expected ERR_ARG (at most %d)",
                  rc, CALLABLE_MAX_ARGS);
    rc = got_rc("released");
    ck_assert_msg(rc == ERR_ARG && strstr(got_rc_msg("released"), "has been released"),
                  "calling a partial whose callable was released gave %d \"%s\"; expected "
                  "callable_call's own error",
                  rc, got_rc_msg("released"));
}

JUDGE(partial_max_args)
{
    /* g(1, ..., 8) = 8012345678 (8 arguments, then their digits in order). */
    static const struct {
        const char *k;
        int nbound, nargs;
    } ok[] = {{"b3n5", 3, 5}, {"b8n0", 8, 0}, {"b0n8", 0, 8}, {"b7n1", 7, 1}};
    for (int i = 0; i < 4; i++) {
        char what[96];
        snprintf(what, sizeof what, "a partial with %d bound values, called with %d more,",
                 ok[i].nbound, ok[i].nargs);
        long long got = got_int(ok[i].k, "partial_call", what);
        ck_assert_msg(got == spelled(8),
                      "%s gave %lld, expected %lld (the inner callable counts its arguments "
                      "times 10^9, plus their digits in order): %d in all is exactly "
                      "CALLABLE_MAX_ARGS, which is allowed",
                      what, got, spelled(8), CALLABLE_MAX_ARGS);
    }
    static const struct {
        const char *k;
        int nbound, nargs;
    } bad[] = {{"b8n1", 8, 1}, {"b5n4", 5, 4}, {"b8n8", 8, 8}};
    for (int i = 0; i < 3; i++) {
        expect_written(bad[i].k, "partial_call");
        int rc = got_rc(bad[i].k);
        ck_assert_msg(rc == ERR_ARG,
                      "%d bound and %d new arguments (%d in all) returned %d, expected ERR_ARG "
                      "(at most CALLABLE_MAX_ARGS = %d in all; refuse before filling the array)",
                      bad[i].nbound, bad[i].nargs, bad[i].nbound + bad[i].nargs, rc,
                      CALLABLE_MAX_ARGS);
    }
}
#endif

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
#define LOG_CAP 256 /* the logs' size: a hook run too often fills it, never more */

typedef struct Probe {
    char *log;             /* shared log of what ran, in order (LOG_CAP bytes) */
    const char *tag;       /* what this hook writes */
    const Module *module;  /* the module it is on (the harness's, never what it is given) */
    const Tensor *replace; /* returned as the replacement (NULL: None) */
    const Tensor *saw_in, *saw_out;
    const void *saw_module;
    int forward_done; /* the module's forward had run when the hook was called */
    int fail, bad_return;
} Probe;

static int probe_call(void *state, const Value *args, int nargs, Value *out)
{
    Probe *p = state;
    if (strlen(p->log) + strlen(p->tag) < LOG_CAP) strcat(p->log, p->tag);
    p->saw_module = args[0].as.p;
    p->saw_in = args[1].as.p;
    if (nargs == 3) p->saw_out = args[2].as.p;
    p->forward_done = p->module && p->module->output && p->module->output->shape[0] > 0;
    if (p->fail) return err_set(ERR_ARG, "boom");
    *out = p->bad_return ? value_str("oops")
                         : p->replace ? value_ptr((void *)p->replace) : value_none();
    return ERR_OK;
}
static const CallableClass pre_probe = {"PreProbe", 2, probe_call, NULL};
static const CallableClass post_probe = {"PostProbe", 3, probe_call, NULL};

static Probe probe(char *log, const char *tag, const Module *m, const Tensor *replace)
{
    Probe p = {log, tag, m, replace, NULL, NULL, NULL, 0, 0, 0};
    return p;
}

static Callable pre_hook(Module *m, Probe *p, HookHandle *h)
{
    Callable c;
    ck_assert_int_eq(callable_new(&pre_probe, p, &c), ERR_OK);
    ck_assert_int_eq(module_register_forward_pre_hook(m, c, h), ERR_OK);
    return c;
}

static Callable post_hook(Module *m, Probe *p, HookHandle *h)
{
    Callable c;
    ck_assert_int_eq(callable_new(&post_probe, p, &c), ERR_OK);
    ck_assert_int_eq(module_register_forward_hook(m, c, h), ERR_OK);
    return c;
}

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

/* ---- ex04.4 batcher_forward ---------------------------------------------------------------- */

#ifdef GRADE_RUNNER
static Module *small_model(void)
{
    Rng rng;
    rng_seed(&rng, 8, 0);
    Module *layers[] = {linear_new("fc1", 6, 7, &rng), relu_new("relu"),
                        linear_new("fc2", 7, 3, &rng)};
    Module *m = sequential_new("m", 3, layers);
    ck_assert_msg(m != NULL, "making the model: %s", err_message());
    return m;
}

/* The rows the batcher gets: (n, 6), uniform in [-2, 2]. */
static Tensor *batch_input(int64_t n, uint64_t seed)
{
    Tensor *x = tensor_new_2d(n, 6);
    ck_assert_ptr_nonnull(x);
    Rng rng;
    rng_seed(&rng, seed, 0);
    if (n) ck_assert_int_eq(tensor_uniform(x, &rng, -2.0f, 2.0f), ERR_OK);
    return x;
}

#ifdef GRADE_REFERENCE
/* The model's output for x in one forward on the CPU, no batcher and no hooks
 * (module_forward, so no exercise of this lesson runs). */
static void put_reference(const char *k, const Tensor *x)
{
    Module *m = small_model();
    const Tensor *y;
    ck_assert_msg(module_forward(m, x, &y) == ERR_OK, "reference forward: %s", err_message());
    put_f32(k, tensor_f32(y), y->shape[0] * y->shape[1]);
    module_free(m);
}
#else
static Device the_device(void)
{
    int n = 0;
    ck_assert_msg(device_count(&n) == ERR_OK && n > 0, "no CUDA device (real or simulated): %s",
                  err_message());
    return device_cuda(0);
}

static Callable batcher(Module *m, int64_t batch)
{
    Callable b;
    ck_assert_msg(batcher_new(m, the_device(), batch, 6, 3, &b) == ERR_OK, "%s", err_message());
    return b;
}

/* Call the batcher on x and record what came: k (put_rc), k.rows, k.y, the
 * counters, the gradient mode and whether fc1 kept an input for backward. */
static void put_batcher_call(const char *k, Callable b, const Module *m, const Tensor *x)
{
    Value arg = value_ptr((void *)x), r = value_none();
    counters_reset();
    int64_t tensors = counters_get().tensors;
    err_clear();
    int rc = callable_call(b, &arg, 1, &r);
    Counters c = counters_get();
    put_rc(k, rc);
    put_i64(key("%s.tensors_made", k), c.tensors - tensors); /* the output only */
    put_i64(key("%s.copies_h2d", k), (int64_t)c.copies_h2d);
    put_i64(key("%s.bytes_h2d", k), (int64_t)c.bytes_h2d);
    put_i64(key("%s.launches", k), (int64_t)c.launches);
    put_i64(key("%s.grad_enabled", k), module_grad_enabled());
    put_i64(key("%s.fc1_input", k), m->children[0]->input != NULL);
    if (rc == ERR_OK && r.kind == VALUE_PTR && r.as.p) {
        Tensor *y = r.as.p; /* made by lib's batcher on the CPU */
        put_i64(key("%s.rows", k), y->shape[0]);
        put_f32(key("%s.y", k), tensor_f32(y), y->shape[0] * y->shape[1]);
        tensor_free(y);
    }
}
#endif
#endif

#ifdef GRADE_JUDGE
/* The batcher's call k on n rows in chunks of batch: it worked, and its output
 * is the reference want, in order. */
static void expect_batched(const char *k, const char *want, int64_t n, int64_t batch)
{
    expect_written(k, "batcher_forward");
    if (got_rc(k) != ERR_OK) ck_abort_msg("the batcher failed: %s", got_rc_msg(k));
    int64_t rows = got_i64(key("%s.rows", k));
    ck_assert_msg(rows == n, "the output has %lld rows, expected %lld", (long long)rows,
                  (long long)n);
    const float *got = got_f32(key("%s.y", k), n * 3), *w = ref_f32(want, n * 3);
    /* The reference ran on the CPU, the batcher on the device: close, not equal. */
    for (int64_t j = 0; j < 3; j++)
        for (int64_t i = 0; i < n; i++) {
            double g = got[i + j * n], wv = w[i + j * n];
            ck_assert_msg(isfinite(g) && fabs(g - wv) <= 1e-5 + 1e-4 * fabs(wv),
                          "output (%lld, %lld) is %g, expected %g (n = %lld, batch %lld: rows "
                          "out of order, or a chunk lost?)",
                          (long long)i, (long long)j, g, wv, (long long)n, (long long)batch);
        }
}

static void expect_inference_mode(const char *k)
{
    int64_t made = got_i64(key("%s.tensors_made", k));
    ck_assert_msg(made == 1,
                  "after the batcher, %lld tensors more are alive than before; expected 1, the "
                  "output: free each chunk's tensors (the chunk, its copy on the device, the "
                  "copy back) once its rows are put in the output",
                  (long long)made);
    ck_assert_msg(got_i64(key("%s.grad_enabled", k)),
                  "batcher_forward must restore the gradient mode");
    ck_assert_msg(!got_i64(key("%s.fc1_input", k)),
                  "after the batcher, fc1 still holds an input: run the model with gradients "
                  "disabled (module_set_grad_enabled(false)) so nothing is kept for backward");
}

static void expect_copies(const char *k, int64_t n, int64_t batch)
{
    int64_t copies = got_i64(key("%s.copies_h2d", k)), chunks = (n + batch - 1) / batch;
    ck_assert_msg(copies == chunks,
                  "n = %lld in chunks of %lld: %lld copies to the device, expected %lld (move each "
                  "chunk once)",
                  (long long)n, (long long)batch, (long long)copies, (long long)chunks);
    int64_t bytes = got_i64(key("%s.bytes_h2d", k)), want = n * 6 * (int64_t)sizeof(float);
    ck_assert_msg(bytes == want,
                  "n = %lld rows of 6 floats in chunks of %lld: %lld bytes copied to the device, "
                  "expected %lld (each chunk holds at most %lld rows, and each row is moved "
                  "once)",
                  (long long)n, (long long)batch, (long long)bytes, (long long)want,
                  (long long)batch);
}
#endif

/* batcher_chunks: (rows, batch size). */
static const int64_t chunk_cases[][2] = {{10, 4}, {12, 4}, {3, 8}, {1, 1}};

#ifdef GRADE_RUNNER
RUN(batcher_chunks)
{
    for (int k = 0; k < 4; k++) {
        Tensor *x = batch_input(chunk_cases[k][0], 99);
#ifdef GRADE_REFERENCE
        put_reference(key("c%d.want", k), x);
#else
        Module *m = small_model();
        Callable b = batcher(m, chunk_cases[k][1]);
        put_batcher_call(key("c%d", k), b, m, x);
        callable_release(b);
        module_free(m);
#endif
        tensor_free(x);
    }
}

RUN(batcher_empty)
{
    /* No rows; then 5 rows with the same batcher. */
    Tensor *none = batch_input(0, 99), *x = batch_input(5, 5);
#ifdef GRADE_REFERENCE
    put_reference("after.want", x);
#else
    Module *m = small_model();
    Callable b = batcher(m, 4);
    put_batcher_call("empty", b, m, none);
    put_batcher_call("after", b, m, x);
    callable_release(b);
    module_free(m);
#endif
    tensor_free(none);
    tensor_free(x);
}

RUN(batcher_grad_off)
{
    /* Gradients already disabled by the caller (inside its own no_grad). */
    Tensor *x = batch_input(10, 3);
#ifdef GRADE_REFERENCE
    put_reference("off.want", x);
#else
    Module *m = small_model();
    Callable b = batcher(m, 4);
    module_set_grad_enabled(false);
    put_batcher_call("off", b, m, x);
    module_set_grad_enabled(true);
    callable_release(b);
    module_free(m);
#endif
    tensor_free(x);
}
#endif

#if defined(GRADE_RUNNER) && !defined(GRADE_REFERENCE)
/* The model's ReLU, made to fail at its fail_at-th forward from now (0: never). */
static ModuleOps failing_ops;
static int (*relu_forward_op)(Module *, const Tensor *, const Tensor **);
static int relu_calls, fail_at;

static int failing_forward(Module *self, const Tensor *x, const Tensor **y)
{
    if (++relu_calls == fail_at)
        return err_set(ERR_NUMERIC, "the grader's layer fails on chunk %d", relu_calls);
    return relu_forward_op(self, x, y);
}

RUN(batcher_model_fails)
{
    Module *m = small_model();
    Module *relu = m->children[1];
    failing_ops = *relu->ops;
    relu_forward_op = relu->ops->forward;
    failing_ops.forward = failing_forward;
    relu->ops = &failing_ops;
    Callable b = batcher(m, 4);
    Tensor *x = batch_input(12, 12);
    /* Once through (so the model's own buffers on the device exist), then a
     * call whose second chunk fails, then one more that works. */
    put_batcher_call("first", b, m, x);
    relu_calls = 0, fail_at = 2;
    size_t before = counters_get().mem_in_use;
    put_batcher_call("fails", b, m, x);
    put_i64("fails.mem_before", (int64_t)before);
    put_i64("fails.mem_after", (int64_t)counters_get().mem_in_use);
    /* And once more, without a failure. */
    fail_at = 0;
    before = counters_get().mem_in_use;
    put_batcher_call("again", b, m, x);
    put_i64("again.mem_before", (int64_t)before);
    put_i64("again.mem_after", (int64_t)counters_get().mem_in_use);
    callable_release(b);
    module_free(m);
    tensor_free(x);
}
#elif defined(GRADE_RUNNER)
RUN(batcher_model_fails) {}
#endif

#ifdef GRADE_JUDGE
JUDGE(batcher_chunks)
{
    for (int k = 0; k < 4; k++) {
        int64_t n = chunk_cases[k][0], batch = chunk_cases[k][1];
        const char *c = key("c%d", k);
        expect_written(c, "batcher_forward");
        if (got_rc(c) != ERR_OK) ck_abort_msg("the batcher failed: %s", got_rc_msg(c));
        expect_inference_mode(c);
        expect_batched(c, key("c%d.want", k), n, batch);
        expect_copies(c, n, batch);
    }
}

JUDGE(batcher_empty)
{
    expect_written("empty", "batcher_forward");
    if (got_rc("empty") != ERR_OK) ck_abort_msg("the batcher failed: %s", got_rc_msg("empty"));
    ck_assert_msg(got_i64("empty.rows") == 0, "an empty input must give an empty output");
    int64_t copies = got_i64("empty.copies_h2d"), launches = got_i64("empty.launches");
    ck_assert_msg(copies == 0 && launches == 0,
                  "an empty input must not copy or launch anything (%lld copies, %lld launches)",
                  (long long)copies, (long long)launches);
    expect_inference_mode("empty");
    expect_batched("after", "after.want", 5, 4);
    expect_inference_mode("after");
    expect_copies("after", 5, 4);
}

JUDGE(batcher_grad_off)
{
    expect_batched("off", "off.want", 10, 4);
    ck_assert_msg(!got_i64("off.grad_enabled"),
                  "gradients were disabled before the call and are enabled after it: save "
                  "module_grad_enabled() at the start and restore that value, do not just turn "
                  "gradients back on");
    ck_assert_msg(!got_i64("off.fc1_input"),
                  "after the batcher, fc1 still holds an input: run the model with gradients "
                  "disabled");
    expect_copies("off", 10, 4);
}

JUDGE(batcher_model_fails)
{
    expect_written("first", "batcher_forward");
    if (got_rc("first") != ERR_OK) ck_abort_msg("the batcher failed: %s", got_rc_msg("first"));
    expect_written("fails", "batcher_forward");
    int rc = got_rc("fails");
    ck_assert_msg(rc != ERR_OK,
                  "the model failed on the second of 3 chunks (\"the grader's layer fails on "
                  "chunk 2\"), but the batcher returned 0: return the model's error");
    ck_assert_msg(got_i64("fails.grad_enabled"),
                  "the model failed on the second chunk and the gradient mode stayed disabled "
                  "after the batcher returned: restore it also on an error (the batcher "
                  "returned \"%s\")",
                  got_rc_msg("fails"));
    expect_written("again", "batcher_forward");
    if (got_rc("again") != ERR_OK)
        ck_abort_msg("after a call in which the model failed, the next call failed too: %s",
                     got_rc_msg("again"));
    int64_t before = got_i64("again.mem_before"), after = got_i64("again.mem_after");
    ck_assert_msg(after == before,
                  "a call of the batcher left %lld more bytes of device memory allocated than "
                  "before it: free each chunk's tensors on the device once the chunk is done",
                  (long long)(after - before));
    before = got_i64("fails.mem_before"), after = got_i64("fails.mem_after");
    ck_assert_msg(after == before,
                  "the model failed on the second chunk and %lld bytes of device memory were "
                  "still allocated after the batcher returned: free every temporary tensor, "
                  "also on an error",
                  (long long)(after - before));
}
#endif

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

/* name, exercise, function, what it checks, points, timeout (s), reference?, file */
#define CASES(X)                                                                                   \
    X(counter_counts, "04.1", "counter_call", "counts 1, 2, 3, ... in the object's state", 4, 5,  \
      0, NULL)                                                                                     \
    X(counters_are_independent, "04.1", "counter_call", "two Counters keep separate counts", 3,   \
      5, 0, NULL)                                                                                  \
    X(partial_order, "04.2", "partial_call",                                                       \
      "bound values first, then the call's; none bound; all bound", 5, 5, 0, NULL)                 \
    X(partial_nested_and_errors, "04.2", "partial_call",                                           \
      "partial of a partial; too many arguments; the inner call's errors", 5, 5, 0, NULL)          \
    X(partial_max_args, "04.2", "partial_call",                                                    \
      "exactly CALLABLE_MAX_ARGS in all works, one more is ERR_ARG", 3, 5, 0, NULL)                \
    X(hooks_order_and_arguments, "04.3", "module_call_hooks",                                      \
      "pre-hooks, forward, hooks, in registration order, with their arguments", 8, 5, 0, NULL)     \
    X(hooks_replace_input_and_output, "04.3", "module_call_hooks",                                 \
      "replacements pass along the chain", 7, 5, 0, NULL)                                          \
    X(hooks_none_keeps_replacement, "04.3", "module_call_hooks",                                   \
      "None after a replacement keeps it; pre-hooks only; forward hooks only", 4, 5, 0, NULL)      \
    X(hooks_errors_and_removal, "04.3", "module_call_hooks",                                       \
      "a failing hook, a bad return, removed hooks", 5, 5, 0, NULL)                                \
    X(hooks_failure_stops, "04.3", "module_call_hooks",                                            \
      "a failing pre-hook, hook or forward stops the call, with its error", 4, 5, 0, NULL)         \
    X(batcher_chunks, "04.4", "batcher_forward",                                                   \
      "chunks in order, one copy each, nothing kept for backward", 8, 30, 1, NULL)                 \
    X(batcher_empty, "04.4", "batcher_forward",                                                    \
      "an empty input copies and launches nothing; the batcher works after it", 2, 10, 1, NULL)    \
    X(batcher_grad_off, "04.4", "batcher_forward",                                                 \
      "restores the gradient mode it found (disabled stays disabled)", 3, 30, 1, NULL)             \
    X(batcher_model_fails, "04.4", "batcher_forward",                                              \
      "a model error is returned; gradient mode restored; device temporaries freed", 4, 30, 0,    \
      NULL)                                                                                        \
    X(hook_inside_batcher, "04", "all of Lesson 04",                                             \
      "hooks on the model and on fc1 run once per batch (drawn model, rows and batch size)", 5,  \
      30, 0, NULL)

GRADED_SUITE("04", "Callable objects and the module call",
             "lessons/04_callable_objects/exercises.c", CASES)
