/*
 * ex04_2_partial_call.c: the cases of exercise 04.2, partial_call: binding
 * arguments (functools.partial).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out and what the harness saw) and a JUDGE half (in the judge: decide),
 * see ../graded.h.
 */
#include "suite.h"

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
