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


#endif /* WB_TIMER_H */
