/*
 * ex03_3_time_on_device.c: the cases of exercise 03.3, time_on_device: timing
 * GPU work between two syncs.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h.
 */
#include "suite.h"

/* ---- ex03.3 time_on_device ------------------------------------------------------------ */

/* The fake clock: it moves by a different amount at each read. Reading i
 * (from 0) is 100 plus the first i + 1 steps of 3, 5, 11, 17, 23, 3, 5, ... */
static double clock_reading(int64_t i)
{
    static const double steps[5] = {3.0, 5.0, 11.0, 17.0, 23.0};
    double now = 100.0 + 59.0 * (double)((i + 1) / 5);
    for (int64_t j = 0; j < (i + 1) % 5; j++)
        now += steps[j];
    return now;
}

#define TIMING_REPEATS 4
#define BETWEEN_REPEATS 3
#define CPU_REPEATS 3

#ifdef GRADE_RUNNER
/* The fake clock: reading number g_n_reads. */
static int64_t g_n_reads;

static double fake_clock(void)
{
    return clock_reading(g_n_reads++);
}

typedef struct Work {
    Device d;
    int calls, fail_at;
} Work;

static int launch_work(void *p)
{
    Work *w = p;
    w->calls++;
    if (w->fail_at && w->calls == w->fail_at) return err_set(ERR_IO, "the work failed on purpose");
    return device_is_host(w->d) ? ERR_OK : backend_of(w->d)->empty_kernel(w->d);
}

/* time_on_device of `repeats` empty kernels on the device, with work queued
 * before it, under the fake clock; records rc, calls, trace, reads, seconds. */
static void timing_run(long repeats)
{
    Device d = the_device();
    /* Work queued before the timing: it must not be counted. */
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(backend_of(d)->empty_kernel(d), ERR_OK);
    char trace[256];
    g_n_reads = 0;
    timer_set_clock(fake_clock);
    counters_trace(trace, sizeof trace);
    Work w = {d, 0, 0};
    double secs = -1;
    err_clear();
    int rc = time_on_device(d, launch_work, &w, repeats, &secs);
    counters_trace(NULL, 0);
    timer_set_clock(NULL);
    put_rc("rc", rc);
    put_i64("calls", w.calls);
    put_str("trace", trace);
    put_i64("reads", g_n_reads);
    put_f64("seconds", secs);
}

RUN(timing_waits_for_the_gpu)
{
    timing_run(TIMING_REPEATS);
}

RUN(timing_no_sync_between)
{
    timing_run(BETWEEN_REPEATS);
}

RUN(timing_errors_and_the_cpu)
{
    Device d = the_device();
    Work w = {d, 0, 2};
    double secs = 0;
    err_clear();
    put_rc("fail", time_on_device(d, launch_work, &w, 5, &secs));
    put_i64("fail.calls", w.calls);
    const long bad[2] = {0, -3};
    for (int i = 0; i < 2; i++) {
        Work none = {d, 0, 0};
        err_clear();
        put_rc(key("repeats%d", i), time_on_device(d, launch_work, &none, bad[i], &secs));
        put_i64(key("repeats%d.calls", i), none.calls);
    }
    /* On the CPU the same code is right, and nothing is counted as a sync. */
    Work cpu = {device_cpu(), 0, 0};
    g_n_reads = 0;
    timer_set_clock(fake_clock);
    counters_reset();
    secs = -1;
    err_clear();
    int rc = time_on_device(device_cpu(), launch_work, &cpu, CPU_REPEATS, &secs);
    Counters c = counters_get();
    timer_set_clock(NULL);
    put_rc("cpu", rc);
    put_i64("cpu.calls", cpu.calls);
    put_f64("cpu.seconds", secs);
    put_i64("cpu.syncs", (int64_t)c.syncs);
    put_i64("cpu.reads", g_n_reads);
}
#endif

#ifdef GRADE_JUDGE
/* Index of the first / last occurrence of c in s, or -1. */
static int first_of(const char *s, char c)
{
    const char *p = strchr(s, c);
    return p ? (int)(p - s) : -1;
}

static int last_of(const char *s, char c)
{
    const char *p = strrchr(s, c);
    return p ? (int)(p - s) : -1;
}

/* *seconds against the fake clock: (the last reading - the first) / repeats. */
static void seconds_judge(double secs, int64_t reads, long repeats, const char *where)
{
    double want = reads >= 1 ? (clock_reading(reads - 1) - clock_reading(0)) / (double)repeats : 0;
    ck_assert_msg(fabs(secs - want) < 1e-9,
                  "%s*seconds is %g, expected %g: (the last clock read - the first) / repeats",
                  where, secs, want);
}

/* The order of events: sync, clock, the work, sync, clock. */
static void timing_judge(long repeats)
{
    expect_ok("rc", "time_on_device");
    int calls = (int)got_i64("calls");
    ck_assert_msg(calls == repeats, "work was called %d times, expected repeats = %ld", calls,
                  repeats);
    const char *trace = got_str("trace");
    int64_t reads = got_i64("reads");
    int c0 = first_of(trace, 'C'), c1 = last_of(trace, 'C'), l0 = first_of(trace, 'L'),
        l1 = last_of(trace, 'L');
    ck_assert_msg(c0 >= 0 && c1 > c0,
                  "the clock (timer_now) was read %lld time(s); read it before and after the "
                  "work (events: %s, C = clock, S = sync, L = launch)",
                  (long long)reads, trace);
    ck_assert_msg(c0 < l0 && l1 < c1,
                  "the work ran outside the two clock reads (events: %s; C = clock, S = sync, L "
                  "= launch)",
                  trace);
    int s_before = -1;
    for (int i = 0; i < c0; i++)
        if (trace[i] == 'S') s_before = i;
    ck_assert_msg(s_before >= 0,
                  "the clock was read before waiting for the GPU, so work queued earlier would "
                  "be timed too: call device_synchronize before the first timer_now (events: "
                  "%s)",
                  trace);
    int s_after = -1;
    for (int i = l1 + 1; i < c1; i++)
        if (trace[i] == 'S') s_after = i;
    ck_assert_msg(s_after >= 0,
                  "the clock was read again without waiting for the GPU, so only the queueing "
                  "of the launches was timed: call device_synchronize after the work and before "
                  "the second timer_now (events: %s)",
                  trace);
    seconds_judge(got_f64("seconds"), reads, repeats, "");
}

JUDGE(timing_waits_for_the_gpu)
{
    timing_judge(TIMING_REPEATS);
}

JUDGE(timing_no_sync_between)
{
    timing_judge(BETWEEN_REPEATS);
    const char *trace = got_str("trace");
    int l0 = first_of(trace, 'L'), l1 = last_of(trace, 'L');
    for (int i = l0; i < l1; i++)
        ck_assert_msg(trace[i] != 'S',
                      "the CPU waited for the GPU between the calls of work (events: %s; C = "
                      "clock, S = sync, L = launch), so the GPU sat idle between them and the "
                      "syncs were timed too: sync only before the first clock read and after the "
                      "last call",
                      trace);
}

JUDGE(timing_errors_and_the_cpu)
{
    expect_written("fail", "time_on_device");
    int rc = got_rc("fail"), calls = (int)got_i64("fail.calls");
    ck_assert_msg(rc == ERR_IO && calls == 2,
                  "when the work fails on call 2 of 5, return its error at once (got %s after "
                  "%d calls)",
                  err_name((ErrCode)rc), calls);
    const long bad[2] = {0, -3};
    for (int i = 0; i < 2; i++) {
        rc = got_rc(key("repeats%d", i));
        ck_assert_msg(rc == ERR_ARG, "repeats = %ld must be an ERR_ARG (got %s)", bad[i],
                      err_name((ErrCode)rc));
        calls = (int)got_i64(key("repeats%d.calls", i));
        ck_assert_msg(calls == 0, "repeats = %ld is an ERR_ARG, but work was called %d times",
                      bad[i], calls);
    }
    rc = got_rc("cpu");
    calls = (int)got_i64("cpu.calls");
    double secs = got_f64("cpu.seconds");
    unsigned long long syncs = (unsigned long long)got_i64("cpu.syncs");
    ck_assert_msg(rc == ERR_OK && calls == CPU_REPEATS && secs >= 0.0 && syncs == 0,
                  "on the CPU: rc %d, %d calls, %g s, %llu syncs (expected 0, %d, >= 0, 0)", rc,
                  calls, secs, syncs, CPU_REPEATS);
    seconds_judge(secs, got_i64("cpu.reads"), CPU_REPEATS, "on the CPU: ");
}
#endif

