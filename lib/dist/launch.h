/**
 * @file launch.h
 * @brief Starting a program as several ranks with `mpirun`, under a time limit.
 *
 * `mpirun -np 2 prog args` starts two copies of prog that find each other in
 * dist_init() (`torchrun --nproc-per-node 2 prog` in PyTorch). dist_launch()
 * does that from a program (the lessons, the tests, the grader), and adds
 * what Open MPI wants on a small machine: `--oversubscribe` when there are
 * more ranks than cores (labelled: they then take turns on the cores), and,
 * as root (a container), its two allow-run-as-root settings. It waits at most
 * a time limit: ranks that wait in a collective that another rank never
 * called would wait for ever, so a run past the limit is stopped and reported
 * as such, never left hanging.
 */
#ifndef WB_LAUNCH_H
#define WB_LAUNCH_H

#include <stdbool.h>

#include "lib/core/err.h"

/** How to launch. */
typedef struct DistLaunchOptions {
    int ranks;          /**< how many processes (`-np`), at least 1 */
    double limit_s;     /**< stop the run after this many seconds (> 0) */
    const char *output; /**< a file for everything the ranks print, or NULL: this program's;
                             saved with fileio_save() once the run has ended */
    bool quiet;         /**< ask mpirun not to add its own explanations (`-q`) */
} DistLaunchOptions;

/** What a launch came to. */
typedef struct DistLaunch {
    int status;          /**< mpirun's exit status: 0 when every rank returned 0 */
    int signal;          /**< the signal that ended mpirun, or 0 */
    bool timed_out;      /**< it ran past the limit and was stopped */
    bool oversubscribed; /**< more ranks than this machine's cores */
    double seconds;      /**< wall time */
} DistLaunch;

/**
 * @brief The launcher on the PATH ("/usr/bin/mpirun"), or NULL when there is none.
 *
 * The path stays valid until the next call.
 */
const char *dist_launcher(void);

/** @brief The cores this machine offers (what decides oversubscription). */
int dist_cores(void);

/**
 * @brief Run @p argv (a program and its arguments, NULL-terminated) as @p o->ranks ranks
 *        with mpirun, and wait for them, at most @p o->limit_s seconds.
 *
 * Returns 0 when the run took place, whatever the ranks returned: @p *r says
 * how it ended (exit status, signal, time limit). A run past the limit is
 * stopped: mpirun is asked to end its ranks (SIGTERM), then killed; ranks
 * whose mpirun dies end with it (dist_init() sees to that). Errors:
 * ::ERR_UNSUPPORTED when no mpirun is on the PATH (with the package to
 * install), ::ERR_IO when it cannot be started, ::ERR_ARG for bad options.
 */
WB_MUST_CHECK int dist_launch(const DistLaunchOptions *o, char *const argv[], DistLaunch *r);

#endif /* WB_LAUNCH_H */
