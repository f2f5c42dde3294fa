/**
 * @file timer.h
 * @brief Wall-clock timing for the lessons and benchmarks.
 *
 * timer_now() reads a monotonic clock (not the time of day, which can jump).
 * timer_format() prints a duration with a unit a person reads at a glance.
 */
#ifndef WB_TIMER_H
#define WB_TIMER_H

#include <stddef.h>

#include "device.h"

/** @brief Seconds since an arbitrary fixed point, from CLOCK_MONOTONIC. */
double timer_now(void);

/**
 * @brief For tests: make timer_now() return @p clock() instead; NULL restores the real clock.
 */
void timer_set_clock(double (*clock)(void));

/**
 * @brief Write @p seconds as "4.62 s", "61.8 ms" or "3.05 us" into @p buf.
 *
 * Three significant figures; returns @p buf.
 */
const char *timer_format(double seconds, char *buf, size_t size);

/* ---- Exercise of Lesson 03 (lessons/03_why_gpu_slower/exercises.c) ------ */

/**
 * @brief Exercise 03.3: the time one call of @p work takes on device @p d, measured rightly.
 *
 * Calls `work(ctx)` @p repeats times (at least 1) and sets @p *seconds to
 * the elapsed time divided by @p repeats. GPU work is only queued when a
 * call returns, so: wait for the device (device_synchronize) before the
 * first clock read (timer_now), so that work queued earlier is not counted,
 * and again after the last call and before the second read, so that all of
 * this work is. An error from @p work is returned as it is; @p repeats < 1
 * is an ::ERR_ARG. On the CPU the syncs cost nothing and the same code is
 * right.
 */
int time_on_device(Device d, int (*work)(void *ctx), void *ctx, long repeats, double *seconds);

#endif /* WB_TIMER_H */
