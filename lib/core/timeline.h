/**
 * @file timeline.h
 * @brief When the CPU and the GPU did what: Lesson 03's timeline of a training step.
 *
 * While a timeline is recorded, a GPU backend notes each call the CPU makes
 * (a launch, a copy, a wait) with the host clock read before and after it,
 * and each kernel and copy the GPU ran with CUDA events recorded around it.
 * The GPU's times are read when the recording ends (reading them earlier
 * would be a sync of its own) and put on the host's clock: both lanes count
 * seconds from timeline_begin(). On the CUDA simulator the events are its
 * own notion of when a kernel ran: there each kernel runs inside its launch.
 * Recording costs a little time per call (two event records per kernel), so
 * a recorded run is slightly slower than an unrecorded one.
 */
#ifndef WB_TIMELINE_H
#define WB_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>

/** What a box of the timeline is. */
typedef enum TimelineKind {
    TIMELINE_LAUNCH,   /**< CPU: the call that queues a kernel (or a cuBLAS call) */
    TIMELINE_KERNEL,   /**< GPU: the kernel running */
    TIMELINE_COPY_H2D, /**< a copy from the CPU to the GPU */
    TIMELINE_COPY_D2H, /**< a copy to the CPU; on the CPU's lane it includes the wait for the GPU */
    TIMELINE_SYNC,     /**< CPU: waiting for the GPU to finish (a synchronize, a free) */
    TIMELINE_MARK,     /**< CPU: a point the program marks (the start of an epoch) */
} TimelineKind;

/** One box: what, on which lane, from when to when (seconds since timeline_begin()). */
typedef struct TimelineEvent {
    TimelineKind kind; /**< what it is */
    bool gpu;          /**< on the GPU's lane (else the CPU's) */
    char name[32];     /**< the kernel's or the call's name */
    double start;      /**< when it began: seconds since timeline_begin() */
    double end;        /**< when it ended: seconds since timeline_begin() */
} TimelineEvent;

/**
 * @brief What a GPU backend does when a recording starts and ends.
 *
 * @p begin waits for the device and notes where its clock stands against the
 * host's; @p end waits for it again and adds the GPU's events with
 * timeline_add(). Each returns an ::ErrCode. The backend registers them the
 * first time it is used; without a GPU there are none, and a timeline has
 * only the CPU's lane.
 */
void timeline_gpu_hooks(int (*begin)(void), int (*end)(void));

/**
 * @brief Start recording into @p buf (room for @p cap events).
 *
 * Returns ::ERR_ARG for a recording already running or no room, or the
 * backend's error from its begin hook.
 */
int timeline_begin(TimelineEvent *buf, size_t cap);

/**
 * @brief Stop recording; the number of events kept goes to @p n.
 *
 * The GPU's events are added now (after a wait for the GPU, which is not
 * recorded). Events beyond the buffer's room are counted by
 * timeline_dropped(), not kept.
 */
int timeline_end(size_t *n);

/** @brief True while a timeline is recorded. */
bool timeline_on(void);

/** @brief Seconds since timeline_begin() on the host's monotonic clock (no counters touched). */
double timeline_clock(void);

/** @brief Add one event (ignored when no timeline is recorded); @p name is cut to fit. */
void timeline_add(TimelineKind kind, bool gpu, const char *name, double start, double end);

/**
 * @brief How far the GPU's lane may be off the host's clock, in seconds.
 *
 * The backend places the GPU's clock on the host's with an event recorded on an
 * idle stream between two reads of the host's clock: the event ran somewhere
 * between them, and the lane is placed at their middle, so each GPU time may be
 * off by up to half of that interval (the tightest of a few tries). 0 without a GPU.
 */
double timeline_gpu_uncertainty(void);

/** @brief For a GPU backend's begin hook: the uncertainty timeline_gpu_uncertainty() gives. */
void timeline_set_gpu_uncertainty(double seconds);

/** @brief Events of the last recording that did not fit its buffer. */
size_t timeline_dropped(void);

/** @brief The kind's name in a data file: "launch", "kernel", "copy_h2d", "copy_d2h", "sync", "mark". */
const char *timeline_kind_name(TimelineKind kind);

#endif /* WB_TIMELINE_H */
