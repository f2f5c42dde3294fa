/**
 * @file counters.h
 * @brief What a program asked of the GPU: launches, syncs, bytes copied, memory.
 *
 * The lessons print these beside their timings ("20000 epochs: 20000 syncs,
 * 240000 launches"), and tests check them exactly: the number of launches
 * and syncs a training loop makes is a property of the code, not of the
 * machine, so it is the same on a GPU and on the simulator.
 *
 * A launch is one kernel or one cuBLAS call. A sync is a point where the CPU
 * waits for the GPU: an explicit synchronize, or a copy from the device to
 * the host (what `loss.item()` does).
 */
#ifndef WB_COUNTERS_H
#define WB_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

/** The counters since the last counters_reset(). */
typedef struct Counters {
    uint64_t launches;       /**< kernels and cuBLAS calls */
    uint64_t syncs;          /**< times the CPU waited for the GPU */
    uint64_t copies_h2d;     /**< host-to-device copies */
    uint64_t copies_d2h;     /**< device-to-host copies */
    uint64_t bytes_h2d;      /**< bytes copied host to device */
    uint64_t bytes_d2h;      /**< bytes copied device to host */
    uint64_t bytes_d2d;      /**< bytes copied on or between devices */
    size_t mem_in_use;       /**< device bytes allocated now, all devices */
    size_t mem_peak;         /**< the most ever in use (like max_memory_allocated) */
    int64_t tensors;         /**< tensors alive now, on every device (kept by counters_reset) */
} Counters;

/** @brief The current counters. */
Counters counters_get(void);

/**
 * @brief Zero the event counts and set the peak to what is in use now.
 *
 * Memory in use is not changed: it follows allocations, not resets.
 */
void counters_reset(void);

/** @brief Count @p n kernel launches. */
void counters_launch(uint64_t n);

/** @brief Count one time the CPU waited for the GPU. */
void counters_sync(void);

/** @brief Count a copy of @p bytes: @p kind is 'u' (host to device), 'd' (device to host) or 'x' (device to device). */
void counters_copy(char kind, size_t bytes);

/**
 * @brief Record the order of events in @p buf: 'L' a launch, 'S' a sync, 'C' a clock read.
 *
 * At most @p cap - 1 events are kept, and @p buf stays NUL-terminated. A
 * clock read is a call of timer_now(). @p buf NULL stops recording. The
 * grader uses it to check that a timing waits for the GPU before it reads
 * the clock.
 */
void counters_trace(char *buf, size_t cap);

/** @brief Note a clock read in the trace (timer_now() calls it). */
void counters_clock(void);

/** @brief Count an allocation (positive) or a release (negative) of device memory. */
void counters_memory(long long delta);

/** @brief Note a tensor made (+1) or freed (-1): Counters::tensors, to find leaks. */
void counters_tensor(int delta);

#endif /* WB_COUNTERS_H */
