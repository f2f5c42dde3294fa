/**
 * @file callable.h
 * @brief Python's `__call__` in C: an object that is state plus a function.
 *
 * In Python any object with a `__call__` method can be called like a
 * function, and keeps its state between calls (`counter()` returns 1, then 2).
 * In C the same thing is a struct of state and a function pointer that
 * receives the state: a ::Callable. One call, callable_call(), works for every
 * kind (a Counter, an Adder, a bound `partial`, a hook, a batching model
 * runner), and one call, callable_release(), frees any of them.
 *
 * A ::Callable is a small handle, copied by value. Releasing it frees the
 * object; every copy of the handle then knows that it is dead, so calling a
 * released callable (or releasing it twice) is a clear ::ERR_ARG, never a
 * crash or a use of freed memory.
 *
 * Ownership: callable_new() takes the state it is given (and frees it through
 * the class's release function, also when it fails). A callable that holds
 * another (callable_partial()) does not own it: release the outer one before,
 * or after, the inner one; calling the outer one after the inner one is gone
 * is the same clear error.
 */
#ifndef WB_CALLABLE_H
#define WB_CALLABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/core/err.h"

/** What a ::Value holds. */
typedef enum ValueKind {
    VALUE_NONE = 0, /**< nothing (Python's None) */
    VALUE_INT,      /**< a 64-bit integer */
    VALUE_FLOAT,    /**< a double */
    VALUE_STR,      /**< a string (not owned by the value) */
    VALUE_PTR       /**< any pointer (a tensor, a module) */
} ValueKind;

/** An argument or a result of a call: a small tagged union. */
typedef struct Value {
    ValueKind kind; /**< which member of @ref as is set */
    union {
        long long i;   /**< VALUE_INT */
        double f;      /**< VALUE_FLOAT */
        const char *s; /**< VALUE_STR */
        void *p;       /**< VALUE_PTR */
    } as;              /**< the value */
} Value;

/** @brief Python's None. */
Value value_none(void);
/** @brief An integer value. */
Value value_int(long long i);
/** @brief A float value (stored as a double). */
Value value_float(double f);
/** @brief A string value; the string is not copied. */
Value value_str(const char *s);
/** @brief A pointer value. */
Value value_ptr(void *p);
/** @brief The kind's name: "None", "int", "float", "str", "pointer". */
const char *value_kind_name(ValueKind kind);

/** Most arguments a call may have. */
#define CALLABLE_MAX_ARGS 8

/** The behaviour of a kind of callable (its "class"). */
typedef struct CallableClass {
    const char *name; /**< "Counter", "Adder", ... */
    int arity;        /**< how many arguments a call takes; -1: any number */
    /**
     * The `__call__`: compute @p *out from @p state and the @p nargs
     * arguments. Returns 0, or an error set with err_set().
     */
    int (*call)(void *state, const Value *args, int nargs, Value *out);
    /** Free @p state (NULL when there is nothing to free). */
    void (*release)(void *state);
} CallableClass;

/** A handle to a callable object: copy it freely, release it once. */
typedef struct Callable {
    uint32_t slot;       /**< where the object is (internal) */
    uint32_t generation; /**< which object it was (internal): stale after release */
} Callable;

/**
 * @brief Make a callable of class @p cls around @p state (which it now owns).
 *
 * On failure (out of memory) @p state is released too and @p *out is a handle
 * that is not alive.
 */
WB_MUST_CHECK int callable_new(const CallableClass *cls, void *state, Callable *out);

/**
 * @brief `f(*args)`: call @p c with @p nargs arguments; the result goes to @p *out.
 *
 * Checks that @p c is alive and that @p nargs matches the class's arity; an
 * error of the call itself gets the callable's name in front of it.
 */
WB_MUST_CHECK int callable_call(Callable c, const Value *args, int nargs, Value *out);

/**
 * @brief Free @p c's object; ::ERR_ARG if it was already released.
 *
 * Like free(), cleanup code may ignore the result (it is not WB_MUST_CHECK):
 * releasing twice is a bug this reports, not a failure to handle.
 */
int callable_release(Callable c);

/** @brief True while @p c has not been released. */
bool callable_alive(Callable c);

/** @brief The class name of @p c ("Counter"), or "released" for a dead handle. */
const char *callable_name(Callable c);

/** @brief The state of @p c, for its class's own functions (NULL if released). */
void *callable_state(Callable c);

/* ---- the lesson's callables ------------------------------------------------ */

/** Counter's state: how many times it has been called. */
typedef struct CounterState {
    long long count; /**< calls so far */
} CounterState;

/** @brief `Counter()`: each call returns 1, 2, 3, ... (it takes no arguments). */
WB_MUST_CHECK int counter_new(Callable *out);

/** @brief `Adder()`: adder(a, b) returns a + b (ints stay ints; a float makes a float). */
WB_MUST_CHECK int adder_new(Callable *out);

/**
 * @brief A greeter configured with @p prefix: greeter("Ada") returns "Hello, Ada".
 *
 * The returned string lives in the greeter and is valid until its next call.
 */
WB_MUST_CHECK int greeter_new(const char *prefix, Callable *out);

/**
 * @brief `functools.partial(f, *bound)`: a callable that calls @p f with @p bound first.
 *
 * The @p nbound values are copied (strings are not: they must outlive the
 * partial). @p f is not owned (see the ownership rule above).
 */
WB_MUST_CHECK int callable_partial(Callable f, const Value *bound, int nbound, Callable *out);

/** @brief `[f(x) for x in xs]`: call @p f on each of @p n values, in order. */
WB_MUST_CHECK int callable_map(Callable f, const Value *in, int n, Value *out);

/**
 * @brief Sort @p n pointers with a comparator callable (a stable merge sort).
 *
 * @p cmp is called with two VALUE_PTR arguments and returns a VALUE_INT,
 * negative, zero or positive, like strcmp. A comparator with state can count
 * its calls or compare relative to a value it holds.
 */
WB_MUST_CHECK int callable_sort(void **items, size_t n, Callable cmp);

/* ---- Exercises of Lesson 04 (lessons/04_callable_objects/exercises.c) ---- */

/**
 * @brief Exercise 04.1: the Counter's `__call__`.
 *
 * @p state is a ::CounterState. Add one to its count and return the new
 * count as a VALUE_INT in @p *out (the first call returns 1). Takes no
 * arguments (callable_call has checked @p nargs). Returns 0.
 */
WB_MUST_CHECK int counter_call(void *state, const Value *args, int nargs, Value *out);

/** The state of a partial: the callable it wraps and the values bound to it. */
typedef struct PartialState {
    Callable inner;                 /**< the wrapped callable (not owned) */
    int nbound;                     /**< how many values are bound */
    Value bound[CALLABLE_MAX_ARGS]; /**< the bound values, first arguments of every call */
} PartialState;

/**
 * @brief Exercise 04.2: calling a partial.
 *
 * @p state is a ::PartialState. Call its inner callable with the bound values
 * first and then the @p nargs arguments of this call: partial(add, 10)(5)
 * calls add(10, 5). More than ::CALLABLE_MAX_ARGS arguments in all is an
 * ::ERR_ARG; an error of the inner call is returned as it is, message and
 * all: calling a partial whose inner callable was released gives
 * callable_call()'s own ::ERR_ARG, which says the callable "has been
 * released".
 */
WB_MUST_CHECK int partial_call(void *state, const Value *args, int nargs, Value *out);

#endif /* WB_CALLABLE_H */
