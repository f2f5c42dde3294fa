/*
 * grade04.c: the graded suite of Lesson 04 (lessons/04_callable_objects/exercises.c).
 *
 * The oracles are the protocol's own rules, checked with callables that log
 * what happens (order, arguments, replacements) and with lib's forward pass
 * as the reference for what a hooked or batched call must return. The
 * batching checks run on a CUDA device (the GPU, or the simulator when there
 * is none) so that the number of copies to the device can be counted.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graded.h"
#include "lib/batcher.h"
#include "lib/callable.h"
#include "lib/counters.h"
#include "lib/device.h"
#include "lib/err.h"
#include "lib/layers.h"

/* ---- ex04.1 counter_call ---------------------------------------------------------- */

static long long count_once(Callable c)
{
    Value r = value_none();
    int rc = callable_call(c, NULL, 0, &r);
    ck_assert_msg(rc != ERR_TODO, "counter_call is not written yet");
    ck_assert_msg(rc == ERR_OK, "counter() failed: %s", err_message());
    ck_assert_msg(r.kind == VALUE_INT, "counter() returned a %s, expected an int",
                  value_kind_name(r.kind));
    return r.as.i;
}

GRADED_TEST(counter_counts)
{
    Callable c;
    ck_assert_int_eq(counter_new(&c), ERR_OK);
    for (long long i = 1; i <= 5; i++) {
        long long got = count_once(c);
        ck_assert_msg(got == i, "call %lld of counter() returned %lld", i, got);
    }
    ck_assert_msg(((CounterState *)callable_state(c))->count == 5,
                  "after 5 calls counter.count is %lld, expected 5 (keep the count in the state)",
                  ((CounterState *)callable_state(c))->count);
    callable_release(c);
}

GRADED_TEST(counters_are_independent)
{
    Callable a, b;
    counter_new(&a);
    counter_new(&b);
    count_once(a);
    count_once(a);
    long long first_b = count_once(b);
    ck_assert_msg(first_b == 1,
                  "a second Counter's first call returned %lld: the count must live in each "
                  "object's state, not in a global",
                  first_b);
    ck_assert_msg(count_once(a) == 3, "the first Counter lost its count");
    callable_release(a);
    callable_release(b);
}

/* ---- ex04.2 partial_call ----------------------------------------------------------- */

/* f(a, b, c) = 100a + 10b + c: the order of arguments shows in the digits. */
static int digits(void *state, const Value *args, int nargs, Value *out)
{
    (void)state, (void)nargs;
    *out = value_int(100 * args[0].as.i + 10 * args[1].as.i + args[2].as.i);
    return ERR_OK;
}
static const CallableClass digits_class = {"Digits", 3, digits, NULL};

static long long call_int(Callable c, const Value *args, int n)
{
    Value r = value_none();
    int rc = callable_call(c, args, n, &r);
    ck_assert_msg(rc != ERR_TODO, "partial_call is not written yet");
    ck_assert_msg(rc == ERR_OK, "the call failed: %s", err_message());
    ck_assert_msg(r.kind == VALUE_INT, "returned a %s, expected an int", value_kind_name(r.kind));
    return r.as.i;
}

GRADED_TEST(partial_order)
{
    Callable f, p1, p2;
    callable_new(&digits_class, NULL, &f);
    Value one = value_int(1), two[2] = {value_int(2), value_int(3)};
    callable_partial(f, &one, 1, &p1);
    long long got = call_int(p1, two, 2);
    ck_assert_msg(got == 123, "partial(f, 1)(2, 3) gave %lld, expected f(1, 2, 3) = 123 (bound "
                              "values first, then the call's)",
                  got);
    Value bound[2] = {value_int(4), value_int(5)}, six = value_int(6);
    callable_partial(f, bound, 2, &p2);
    got = call_int(p2, &six, 1);
    ck_assert_msg(got == 456, "partial(f, 4, 5)(6) gave %lld, expected 456", got);
    callable_release(p1);
    callable_release(p2);
    callable_release(f);
}

GRADED_TEST(partial_nested_and_errors)
{
    Callable f, p1, p12;
    callable_new(&digits_class, NULL, &f);
    Value one = value_int(1), two = value_int(2), three = value_int(3);
    callable_partial(f, &one, 1, &p1);
    callable_partial(p1, &two, 1, &p12);
    long long got = call_int(p12, &three, 1);
    ck_assert_msg(got == 123, "partial(partial(f, 1), 2)(3) gave %lld, expected 123", got);
    /* Too many arguments in all: an ERR_ARG, not a buffer overflow. */
    Value many[8];
    for (int i = 0; i < 8; i++) many[i] = value_int(i);
    Value r;
    err_clear();
    int rc = callable_call(p12, many, 8, &r);
    ck_assert_msg(rc != ERR_TODO, "partial_call is not written yet");
    ck_assert_msg(rc == ERR_ARG, "10 arguments in all returned %d, expected ERR_ARG (at most %d)",
                  rc, CALLABLE_MAX_ARGS);
    /* The inner callable's errors come back as they are. */
    callable_release(f);
    rc = callable_call(p12, &three, 1, &r);
    ck_assert_msg(rc == ERR_ARG && strstr(err_message(), "has been released"),
                  "calling a partial whose callable was released gave %d \"%s\"; expected "
                  "callable_call's own error",
                  rc, err_message());
    callable_release(p1);
    callable_release(p12);
}

/* ---- ex04.3 module_call_hooks ---------------------------------------------------------- */

typedef struct Probe {
    char *log;             /* shared log of what ran, in order */
    const char *tag;       /* what this hook writes */
    const Tensor *replace; /* returned as the replacement (NULL: None) */
    const Tensor *saw_in, *saw_out;
    const Module *saw_module;
    int fail, bad_return;
} Probe;

static int probe_call(void *state, const Value *args, int nargs, Value *out)
{
    Probe *p = state;
    strcat(p->log, p->tag);
    p->saw_module = args[0].as.p;
    p->saw_in = args[1].as.p;
    if (nargs == 3) p->saw_out = args[2].as.p;
    if (p->fail) return err_set(ERR_ARG, "boom");
    *out = p->bad_return ? value_str("oops") : p->replace ? value_ptr((void *)p->replace)
                                                           : value_none();
    return ERR_OK;
}
static const CallableClass pre_probe = {"PreProbe", 2, probe_call, NULL};
static const CallableClass post_probe = {"PostProbe", 3, probe_call, NULL};

static Module *fc(void)
{
    Rng rng;
    rng_seed(&rng, 21, 0);
    return linear_new("fc1", 3, 2, &rng);
}

static int call(Module *m, const Tensor *x, const Tensor **y)
{
    err_clear();
    int rc = module_call(m, x, y);
    ck_assert_msg(rc != ERR_TODO, "module_call_hooks is not written yet");
    return rc;
}

GRADED_TEST(hooks_order_and_arguments)
{
    Module *m = fc();
    char log[64] = "";
    Probe a = {log, "A", 0, 0, 0, 0, 0, 0}, b = {log, "B", 0, 0, 0, 0, 0, 0};
    Probe c = {log, "C", 0, 0, 0, 0, 0, 0}, d = {log, "D", 0, 0, 0, 0, 0, 0};
    Callable ca, cb, cc, cd;
    callable_new(&post_probe, &c, &cc); /* registered first, but a forward hook: runs after */
    callable_new(&pre_probe, &a, &ca);
    callable_new(&pre_probe, &b, &cb);
    callable_new(&post_probe, &d, &cd);
    module_register_forward_hook(m, cc, NULL);
    module_register_forward_pre_hook(m, ca, NULL);
    module_register_forward_pre_hook(m, cb, NULL);
    module_register_forward_hook(m, cd, NULL);
    Tensor *x = tensor_new_2d(4, 3);
    tensor_fill(x, 0.5f);
    const Tensor *y;
    ck_assert_msg(call(m, x, &y) == ERR_OK, "module_call failed: %s", err_message());
    ck_assert_msg(strcmp(log, "ABCD") == 0,
                  "the hooks ran in the order \"%s\", expected \"ABCD\": pre-hooks in "
                  "registration order, forward, then forward hooks in registration order",
                  log);
    ck_assert_msg(a.saw_module == m, "a pre-hook's first argument must be the module");
    ck_assert_msg(a.saw_in == x, "a pre-hook's second argument must be the input");
    ck_assert_msg(c.saw_out == m->output, "a forward hook's third argument must be the output");
    ck_assert_msg(y == m->output, "with hooks that return None, the output is forward's");
    tensor_free(x);
    module_free(m);
}

GRADED_TEST(hooks_replace_input_and_output)
{
    Module *m = fc();
    char log[64] = "";
    Tensor *x = tensor_new_2d(4, 3), *x2 = tensor_new_2d(4, 3), *y2 = tensor_new_2d(4, 2);
    Tensor *y3 = tensor_new_2d(4, 2);
    tensor_fill(x, 0.5f);
    tensor_fill(x2, -1.0f);
    Probe a = {log, "A", x2, 0, 0, 0, 0, 0}, b = {log, "B", 0, 0, 0, 0, 0, 0};
    Probe c = {log, "C", y2, 0, 0, 0, 0, 0}, d = {log, "D", y3, 0, 0, 0, 0, 0};
    Callable ca, cb, cc, cd;
    callable_new(&pre_probe, &a, &ca);
    callable_new(&pre_probe, &b, &cb);
    callable_new(&post_probe, &c, &cc);
    callable_new(&post_probe, &d, &cd);
    module_register_forward_pre_hook(m, ca, NULL);
    module_register_forward_pre_hook(m, cb, NULL);
    module_register_forward_hook(m, cc, NULL);
    module_register_forward_hook(m, cd, NULL);
    const Tensor *y;
    ck_assert_msg(call(m, x, &y) == ERR_OK, "module_call failed: %s", err_message());
    ck_assert_msg(b.saw_in == x2, "pre-hook 2 must see the input pre-hook 1 returned");
    ck_assert_msg(m->input == x2, "forward must run on the input the pre-hooks left");
    ck_assert_msg(c.saw_in == x2, "a forward hook must see the input forward saw");
    ck_assert_msg(d.saw_out == y2, "forward hook 2 must see the output forward hook 1 returned");
    ck_assert_msg(y == y3, "the caller must get the last replacement of the output");
    tensor_free(x);
    tensor_free(x2);
    tensor_free(y2);
    tensor_free(y3);
    module_free(m);
}

GRADED_TEST(hooks_errors_and_removal)
{
    Module *m = fc();
    char log[64] = "";
    Probe a = {log, "A", 0, 0, 0, 0, 0, 0}, c = {log, "C", 0, 0, 0, 0, 0, 0};
    Probe d = {log, "D", 0, 0, 0, 0, 1, 0};
    Callable ca, cc, cd;
    callable_new(&pre_probe, &a, &ca);
    callable_new(&post_probe, &c, &cc);
    callable_new(&post_probe, &d, &cd);
    HookHandle ha, hc, hd;
    module_register_forward_pre_hook(m, ca, &ha);
    module_register_forward_hook(m, cc, &hc);
    module_register_forward_hook(m, cd, &hd);
    Tensor *x = tensor_new_2d(2, 3);
    const Tensor *y;
    int rc = call(m, x, &y);
    ck_assert_msg(rc == ERR_ARG, "a failing hook must stop the call with its error (got %d)", rc);
    ck_assert_msg(strcmp(err_message(), "forward hook 2 of Linear fc1: PostProbe: boom") == 0,
                  "the message is \"%s\", expected \"forward hook 2 of Linear fc1: PostProbe: "
                  "boom\"",
                  err_message());
    d.fail = 0;
    d.bad_return = 1;
    rc = call(m, x, &y);
    ck_assert_msg(rc == ERR_ARG && strcmp(err_message(), "forward hook 2 of Linear fc1: returned "
                                                         "a str; a hook returns None or a tensor") == 0,
                  "a hook returning a string gave %d \"%s\"", rc, err_message());
    module_remove_hook(hd);
    module_remove_hook(ha);
    log[0] = '\0';
    rc = call(m, x, &y);
    ck_assert_msg(rc == ERR_OK && strcmp(log, "C") == 0,
                  "after removing hooks 1 and 3 only C must run; ran \"%s\" (%s)", log,
                  err_message());
    tensor_free(x);
    module_free(m);
}

/* ---- ex04.4 batcher_forward ---------------------------------------------------------------- */

static Device the_device(void)
{
    int n = 0;
    ck_assert_msg(device_count(&n) == ERR_OK && n > 0, "no CUDA device (real or simulated): %s",
                  err_message());
    return device_cuda(0);
}

static Module *small_model(void)
{
    Rng rng;
    rng_seed(&rng, 8, 0);
    Module *layers[] = {linear_new("fc1", 6, 7, &rng), relu_new("relu"),
                        linear_new("fc2", 7, 3, &rng)};
    return sequential_new("m", 3, layers);
}

/* The model's output for x, computed in one forward on the CPU. */
static Tensor *reference(const Tensor *x)
{
    Module *m = small_model();
    const Tensor *y;
    ck_assert_int_eq(module_call(m, x, &y), ERR_OK);
    Tensor *out = tensor_clone(y);
    module_free(m);
    return out;
}

static Tensor *run_batcher(Device d, int64_t n, int64_t batch, Counters *c, Tensor **want)
{
    Tensor *x = tensor_new_2d(n, 6);
    Rng rng;
    rng_seed(&rng, 99, 0);
    if (n) tensor_uniform(x, &rng, -2.0f, 2.0f);
    *want = reference(x);
    Module *m = small_model();
    Callable b;
    ck_assert_msg(batcher_new(m, d, batch, 6, 3, &b) == ERR_OK, "%s", err_message());
    counters_reset();
    Value arg = value_ptr(x), r = value_none();
    err_clear();
    int rc = callable_call(b, &arg, 1, &r);
    ck_assert_msg(rc != ERR_TODO, "batcher_forward is not written yet");
    ck_assert_msg(rc == ERR_OK, "the batcher failed: %s", err_message());
    *c = counters_get();
    ck_assert_msg(module_grad_enabled(), "batcher_forward must restore the gradient mode");
    ck_assert_msg(m->children[0]->input == NULL,
                  "after the batcher, fc1 still holds an input: run the model with gradients "
                  "disabled (module_set_grad_enabled(false)) so nothing is kept for backward");
    callable_release(b);
    module_free(m);
    tensor_free(x);
    return r.as.p;
}

static void same(const Tensor *got, const Tensor *want, int64_t n, int64_t batch)
{
    ck_assert_msg(got->shape[0] == n && got->shape[1] == 3, "the output has %lld rows, expected %lld",
                  (long long)got->shape[0], (long long)n);
    for (int64_t j = 0; j < 3; j++)
        for (int64_t i = 0; i < n; i++) {
            float g = tensor_f32(got)[i + j * n], w = tensor_f32(want)[i + j * n];
            ck_assert_msg(fabsf(g - w) <= 1e-5f + 1e-5f * fabsf(w),
                          "output (%lld, %lld) is %g, expected %g (n = %lld, batch %lld: rows "
                          "out of order, or a chunk lost?)",
                          (long long)i, (long long)j, (double)g, (double)w, (long long)n,
                          (long long)batch);
        }
}

GRADED_TEST(batcher_chunks)
{
    Device d = the_device();
    const int64_t cases[][2] = {{10, 4}, {12, 4}, {3, 8}, {1, 1}};
    for (int k = 0; k < 4; k++) {
        Counters c;
        Tensor *want, *got = run_batcher(d, cases[k][0], cases[k][1], &c, &want);
        same(got, want, cases[k][0], cases[k][1]);
        int64_t chunks = (cases[k][0] + cases[k][1] - 1) / cases[k][1];
        ck_assert_msg(c.copies_h2d == (uint64_t)chunks,
                      "n = %lld in chunks of %lld: %llu copies to the device, expected %lld "
                      "(move each chunk once)",
                      (long long)cases[k][0], (long long)cases[k][1],
                      (unsigned long long)c.copies_h2d, (long long)chunks);
        tensor_free(got);
        tensor_free(want);
    }
}

GRADED_TEST(batcher_empty)
{
    Device d = the_device();
    Counters c;
    Tensor *want, *got = run_batcher(d, 0, 4, &c, &want);
    ck_assert_msg(got->shape[0] == 0, "an empty input must give an empty output");
    ck_assert_msg(c.copies_h2d == 0 && c.launches == 0,
                  "an empty input must not copy or launch anything (%llu copies, %llu launches)",
                  (unsigned long long)c.copies_h2d, (unsigned long long)c.launches);
    tensor_free(got);
    tensor_free(want);
}

/* ---- all of them ------------------------------------------------------------------------------ */

GRADED_TEST(hook_inside_batcher)
{
    /* A forward hook on fc1 runs once per chunk when the batcher calls the
     * model (module_call), and never if it calls forward itself. */
    Device d = the_device();
    Module *m = small_model();
    char log[256] = "";
    Probe p = {log, "x", 0, 0, 0, 0, 0, 0};
    Callable hook;
    callable_new(&post_probe, &p, &hook);
    module_register_forward_hook(m->children[0], hook, NULL);
    Callable b;
    ck_assert_int_eq(batcher_new(m, d, 5, 6, 3, &b), ERR_OK);
    Tensor *x = tensor_new_2d(23, 6);
    Value arg = value_ptr(x), r = value_none();
    int rc = callable_call(b, &arg, 1, &r);
    ck_assert_msg(rc == ERR_OK, "%s", err_message());
    ck_assert_msg(strcmp(log, "xxxxx") == 0,
                  "a hook on fc1 ran %zu times for 23 rows in batches of 5, expected 5 (once per "
                  "chunk: the batcher must call the model, not its forward)",
                  strlen(log));
    tensor_free(r.as.p);
    tensor_free(x);
    callable_release(b);
    module_free(m);
}

static const GradedCase cases[] = {
    {&counter_counts, "04.1", "counter_call", "counts 1, 2, 3, ... in the object's state", 4, 5,
     NULL},
    {&counters_are_independent, "04.1", "counter_call", "two Counters keep separate counts", 3, 5,
     NULL},
    {&partial_order, "04.2", "partial_call", "bound values first, then the call's", 5, 5, NULL},
    {&partial_nested_and_errors, "04.2", "partial_call",
     "partial of a partial; too many arguments; the inner call's errors", 5, 5, NULL},
    {&hooks_order_and_arguments, "04.3", "module_call_hooks",
     "pre-hooks, forward, hooks, in registration order, with their arguments", 8, 5, NULL},
    {&hooks_replace_input_and_output, "04.3", "module_call_hooks",
     "replacements pass along the chain", 7, 5, NULL},
    {&hooks_errors_and_removal, "04.3", "module_call_hooks",
     "a failing hook, a bad return, removed hooks", 5, 5, NULL},
    {&batcher_chunks, "04.4", "batcher_forward",
     "chunks in order, one copy each, nothing kept for backward", 8, 30, NULL},
    {&batcher_empty, "04.4", "batcher_forward", "an empty input", 2, 10, NULL},
    {&hook_inside_batcher, "04", "all of Lesson 04", "a hook runs once per batch", 5, 30, NULL},
};

const GradedLesson graded_lesson = {"04", "Callable objects and the module call",
                                    "lessons/04_callable_objects/exercises.c", cases,
                                    (int)(sizeof cases / sizeof cases[0])};
