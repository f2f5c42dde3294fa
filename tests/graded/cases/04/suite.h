/*
 * suite.h: what the files of Lesson 04's graded suite share (suite.c lists its cases):
 * their includes; a call of a callable recorded and judged (04.1, 04.2); the hooks
 * that log what ran (04.3), the model and the batcher on the device (04.4), which the
 * whole-lesson case uses too.
 */
#ifndef WB_GRADED_CASES_04_SUITE_H
#define WB_GRADED_CASES_04_SUITE_H

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
static inline void put_call(const char *k, Callable c, const Value *args, int n)
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
static inline const char *kind_name(int64_t kind)
{
    static const char *const names[] = {"None", "int", "float", "str", "pointer"};
    return kind >= 0 && kind < 5 ? names[kind] : "unknown";
}

/* The int a put_call returned; fails the case with `what` in front of the
 * story when it returned none. */
static inline long long got_int(const char *k, const char *function, const char *what)
{
    expect_written(k, function);
    if (got_rc(k) != ERR_OK) ck_abort_msg("%s failed: %s", what, got_rc_msg(k));
    int64_t kind = got_i64(key("%s.kind", k));
    if (kind != VALUE_INT)
        ck_abort_msg("%s returned a %s, expected an int", what, kind_name(kind));
    return (long long)got_i64(key("%s.int", k));
}
#endif

/* The hooks of the module call (04.3, and the whole lesson): each logs what it saw. */
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

static inline int probe_call(void *state, const Value *args, int nargs, Value *out)
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

static inline Probe probe(char *log, const char *tag, const Module *m, const Tensor *replace)
{
    Probe p = {log, tag, m, replace, NULL, NULL, NULL, 0, 0, 0};
    return p;
}

static inline Callable pre_hook(Module *m, Probe *p, HookHandle *h)
{
    Callable c;
    ck_assert_int_eq(callable_new(&pre_probe, p, &c), ERR_OK);
    ck_assert_int_eq(module_register_forward_pre_hook(m, c, h), ERR_OK);
    return c;
}

static inline Callable post_hook(Module *m, Probe *p, HookHandle *h)
{
    Callable c;
    ck_assert_int_eq(callable_new(&post_probe, p, &c), ERR_OK);
    ck_assert_int_eq(module_register_forward_hook(m, c, h), ERR_OK);
    return c;
}
#endif

/* The model and the batcher (04.4, and the whole lesson). */
#ifdef GRADE_RUNNER
static inline Module *small_model(void)
{
    Rng rng;
    rng_seed(&rng, 8, 0);
    Module *layers[] = {linear_new("fc1", 6, 7, &rng), relu_new("relu"),
                        linear_new("fc2", 7, 3, &rng)};
    Module *m = sequential_new("m", 3, layers);
    ck_assert_msg(m != NULL, "making the model: %s", err_message());
    return m;
}

#ifndef GRADE_REFERENCE
static inline Device the_device(void)
{
    int n = 0;
    ck_assert_msg(device_count(&n) == ERR_OK && n > 0, "no CUDA device (real or simulated): %s",
                  err_message());
    return device_cuda(0);
}

static inline Callable batcher(Module *m, int64_t batch)
{
    Callable b;
    ck_assert_msg(batcher_new(m, the_device(), batch, 6, 3, &b) == ERR_OK, "%s", err_message());
    return b;
}

/* Call the batcher on x and record what came: k (put_rc), k.rows, k.y, the
 * counters, the gradient mode and whether fc1 kept an input for backward. */
static inline void put_batcher_call(const char *k, Callable b, const Module *m, const Tensor *x)
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

#endif
