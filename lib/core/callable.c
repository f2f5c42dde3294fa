/* callable.c: callable objects behind generation-checked handles. */
#include "lib/core/callable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"

Value value_none(void)
{
    Value v = {VALUE_NONE, {0}};
    return v;
}

Value value_int(long long i)
{
    Value v = {VALUE_INT, {0}};
    v.as.i = i;
    return v;
}

Value value_float(double f)
{
    Value v = {VALUE_FLOAT, {0}};
    v.as.f = f;
    return v;
}

Value value_str(const char *s)
{
    Value v = {VALUE_STR, {0}};
    v.as.s = s;
    return v;
}

Value value_ptr(void *p)
{
    Value v = {VALUE_PTR, {0}};
    v.as.p = p;
    return v;
}

const char *value_kind_name(ValueKind kind)
{
    switch (kind) {
    case VALUE_NONE: return "None";
    case VALUE_INT: return "int";
    case VALUE_FLOAT: return "float";
    case VALUE_STR: return "str";
    case VALUE_PTR: return "pointer";
    }
    return "unknown";
}

/* ---- the table behind the handles ------------------------------------------ */

typedef struct Slot {
    const CallableClass *cls; /* NULL: free */
    void *state;
    uint32_t generation;      /* bumped at every release: old handles go stale */
} Slot;

static Slot *g_slots;
static uint32_t g_n_slots;

static Slot *live(Callable c)
{
    if (c.slot >= g_n_slots) return NULL;
    Slot *s = &g_slots[c.slot];
    return s->cls && s->generation == c.generation ? s : NULL;
}

int callable_new(const CallableClass *cls, void *state, Callable *out)
{
    out->slot = UINT32_MAX;
    out->generation = 0;
    uint32_t i = 0;
    while (i < g_n_slots && g_slots[i].cls) i++;
    if (i == g_n_slots) {
        uint32_t n = g_n_slots ? 2 * g_n_slots : 16;
        Slot *bigger = realloc(g_slots, n * sizeof *bigger);
        if (!bigger) {
            if (cls->release) cls->release(state);
            return err_set(ERR_NOMEM, "callable %s: out of memory", cls->name);
        }
        memset(bigger + g_n_slots, 0, (n - g_n_slots) * sizeof *bigger);
        g_slots = bigger;
        g_n_slots = n;
    }
    g_slots[i].cls = cls;
    g_slots[i].state = state;
    out->slot = i;
    out->generation = g_slots[i].generation;
    return ERR_OK;
}

static int dead(Callable c, const char *what)
{
    if (c.slot == UINT32_MAX)
        return err_set(ERR_ARG, "%s a callable that was never made (its constructor failed)",
                       what);
    return err_set(ERR_ARG, "%s a callable that has been released (the handle is stale: "
                            "release each callable once, and do not use it afterwards)",
                   what);
}

int callable_call(Callable c, const Value *args, int nargs, Value *out)
{
    Slot *s = live(c);
    if (!s) return dead(c, "calling");
    const CallableClass *cls = s->cls;
    if (nargs < 0 || nargs > CALLABLE_MAX_ARGS || (nargs > 0 && !args))
        return err_set(ERR_ARG, "%s: %d arguments (at most %d)", cls->name, nargs,
                       CALLABLE_MAX_ARGS);
    if (cls->arity >= 0 && nargs != cls->arity)
        return err_set(ERR_ARG, "%s takes %d argument%s, %d given", cls->name, cls->arity,
                       cls->arity == 1 ? "" : "s", nargs);
    Value result = value_none();
    int rc = cls->call(s->state, args, nargs, &result);
    if (rc != ERR_OK) {
        if (rc == ERR_TODO) return rc;
        if (rc != (int)err_code() || !err_message()[0])
            err_set(ERR_ARG, "returned %d without a message", rc);
        return err_context("%s", cls->name);
    }
    if (out) *out = result;
    return ERR_OK;
}

int callable_release(Callable c)
{
    Slot *s = live(c);
    if (!s) return dead(c, "releasing");
    const CallableClass *cls = s->cls;
    void *state = s->state;
    s->cls = NULL;
    s->state = NULL;
    s->generation++;
    if (cls->release) cls->release(state);
    return ERR_OK;
}

bool callable_alive(Callable c) { return live(c) != NULL; }

const char *callable_name(Callable c)
{
    Slot *s = live(c);
    return s ? s->cls->name : "released";
}

void *callable_state(Callable c)
{
    Slot *s = live(c);
    return s ? s->state : NULL;
}

/* ---- Counter, Adder, greeter -------------------------------------------------- */

static const CallableClass counter_class = {"Counter", 0, counter_call, free};

int counter_new(Callable *out)
{
    CounterState *st = calloc(1, sizeof *st);
    if (!st) {
        out->slot = UINT32_MAX;
        return err_set(ERR_NOMEM, "Counter: out of memory");
    }
    return callable_new(&counter_class, st, out);
}

static int adder_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)state, (void)nargs;
    for (int i = 0; i < 2; i++)
        if (args[i].kind != VALUE_INT && args[i].kind != VALUE_FLOAT)
            return err_set(ERR_ARG, "argument %d is a %s, not a number", i + 1,
                           value_kind_name(args[i].kind));
    if (args[0].kind == VALUE_INT && args[1].kind == VALUE_INT) {
        *out = value_int(args[0].as.i + args[1].as.i);
    } else {
        double a = args[0].kind == VALUE_INT ? (double)args[0].as.i : args[0].as.f;
        double b = args[1].kind == VALUE_INT ? (double)args[1].as.i : args[1].as.f;
        *out = value_float(a + b);
    }
    return ERR_OK;
}

static const CallableClass adder_class = {"Adder", 2, adder_call, NULL};

int adder_new(Callable *out) { return callable_new(&adder_class, NULL, out); }

typedef struct GreeterState {
    char prefix[64];
    char text[192]; /* the last greeting */
} GreeterState;

static int greeter_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)nargs;
    GreeterState *g = state;
    if (args[0].kind != VALUE_STR || !args[0].as.s)
        return err_set(ERR_ARG, "the name is a %s, not a string", value_kind_name(args[0].kind));
    snprintf(g->text, sizeof g->text, "%s, %.120s", g->prefix, args[0].as.s);
    *out = value_str(g->text);
    return ERR_OK;
}

static const CallableClass greeter_class = {"Greeter", 1, greeter_call, free};

int greeter_new(const char *prefix, Callable *out)
{
    GreeterState *g = calloc(1, sizeof *g);
    if (!g) {
        out->slot = UINT32_MAX;
        return err_set(ERR_NOMEM, "Greeter: out of memory");
    }
    snprintf(g->prefix, sizeof g->prefix, "%s", prefix ? prefix : "Hello");
    return callable_new(&greeter_class, g, out);
}

/* ---- partial, map, sort ------------------------------------------------------------ */

static const CallableClass partial_class = {"partial", -1, partial_call, free};

int callable_partial(Callable f, const Value *bound, int nbound, Callable *out)
{
    out->slot = UINT32_MAX;
    if (!callable_alive(f)) return dead(f, "binding arguments to");
    if (nbound < 0 || nbound > CALLABLE_MAX_ARGS)
        return err_set(ERR_ARG, "partial: %d bound arguments (at most %d)", nbound,
                       CALLABLE_MAX_ARGS);
    PartialState *p = calloc(1, sizeof *p);
    if (!p) return err_set(ERR_NOMEM, "partial: out of memory");
    p->inner = f;
    p->nbound = nbound;
    if (nbound > 0) memcpy(p->bound, bound, (size_t)nbound * sizeof *bound);
    return callable_new(&partial_class, p, out);
}

int callable_map(Callable f, const Value *in, int n, Value *out)
{
    for (int i = 0; i < n; i++) {
        int rc = callable_call(f, &in[i], 1, &out[i]);
        if (rc != ERR_OK) return err_context("map, item %d", i);
    }
    return ERR_OK;
}

/* Merge sort on pointers: stable, and it calls the comparator O(n log n) times. */
static int merge_sort(void **a, void **tmp, size_t n, Callable cmp)
{
    if (n < 2) return ERR_OK;
    size_t h = n / 2;
    TRY(merge_sort(a, tmp, h, cmp));
    TRY(merge_sort(a + h, tmp, n - h, cmp));
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        Value args[2] = {value_ptr(a[j]), value_ptr(a[i])}, r = value_none();
        TRY(callable_call(cmp, args, 2, &r));
        if (r.kind != VALUE_INT)
            return err_set(ERR_ARG, "sort: the comparator %s returned a %s, not an int",
                           callable_name(cmp), value_kind_name(r.kind));
        tmp[k++] = r.as.i < 0 ? a[j++] : a[i++]; /* a[j] < a[i]: take it first */
    }
    while (i < h) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
    return ERR_OK;
}

int callable_sort(void **items, size_t n, Callable cmp)
{
    void **tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp) return err_set(ERR_NOMEM, "sort: out of memory");
    int rc = merge_sort(items, tmp, n, cmp);
    free(tmp);
    return rc;
}
