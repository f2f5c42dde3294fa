/*
 * ex04_1_counter_call.c: the cases of exercise 04.1, counter_call: a callable
 * object with state (Counter).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out and what the harness saw) and a JUDGE half (in the judge: decide),
 * see ../graded.h.
 */
#include "suite.h"

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
