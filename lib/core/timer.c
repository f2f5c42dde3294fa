/* timer.c: a monotonic clock and readable durations. */
#define _POSIX_C_SOURCE 200809L
#include "lib/core/timer.h"

#include <stdio.h>
#include <time.h>

#include "lib/core/counters.h"

static double (*g_clock)(void);

void timer_set_clock(double (*clock)(void)) { g_clock = clock; }

double timer_now(void)
{
    counters_clock();
    if (g_clock) return g_clock();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *timer_format(double seconds, char *buf, size_t size)
{
    static const char *units[] = {"s", "ms", "us", "ns"};
    double v = seconds;
    int u = 0;
    while (u < 3 && v != 0.0 && (v < 1.0 && v > -1.0)) {
        v *= 1000.0;
        u++;
    }
    int decimals = v >= 100.0 ? 0 : v >= 10.0 ? 1 : 2;
    snprintf(buf, size, "%.*f %s", decimals, v, units[u]);
    return buf;
}
