/*
 * suite.h: what the files of Lesson 06's graded suite share (suite.c lists its cases and
 * the bodies its ranks run): their includes, a rank's process group, and what the judge
 * checks first of a launch of several ranks.
 */
#ifndef WB_GRADED_CASES_06_SUITE_H
#define WB_GRADED_CASES_06_SUITE_H

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../protocol/drawn_whole.h"
#include "../graded.h"
#include "lib/core/err.h"
#ifdef GRADE_JUDGE
#include "../../oracles/oracle_iris.h"
#include "../../oracles/oracle_mlp.h"
#endif
#ifdef GRADE_RUNNER
#include <malloc.h>

#include "lib/core/rng.h"
#include "lib/dist/bucket.h"
#include "lib/dist/ddp.h"
#include "lib/dist/dist.h"
#include "lib/dist/sampler.h"
#include "lib/nn/layers.h"
#include "lib/nn/loss.h"
#include "lib/nn/optim.h"
#include "lib/train/iris.h"
#include "lib/train/trainer.h"
#endif

#ifdef GRADE_RUNNER
/* The bodies that run in each rank of a launch (suite.c's rank_cases; run_ranks(),
 * ../../runner/runner.h). */
void rank_average(void);
void rank_broadcast0(void);
void rank_broadcast1(void);
void rank_train(void);

static inline ProcessGroup *join(void)
{
    ProcessGroup *pg = runner_process_group(); /* joined before the sandbox's filter */
    ck_assert_msg(pg != NULL, "grader: the rank joined no process group");
    return pg;
}

#endif

/* ---- the cases on several ranks: what the judge checks first ------------------------ */

#ifdef GRADE_JUDGE
/* The launch finished, and every rank ran to its end. */
static inline void expect_ranks(int world, const char *collective)
{
    if (got_i64("ranks.timed_out"))
        ck_abort_msg("the %d ranks were still running at the time limit and were stopped: a rank "
                     "waits for ever in a collective that another rank never called (every rank "
                     "must call %s, the same number of times, in the same order)",
                     world, collective);
    for (int r = 0; r < world; r++) {
        if (got_has(key("r%d.fail", r)))
            ck_abort_msg("rank %d: %s", r, got_str(key("r%d.fail", r)));
        if (!got_i64(key("r%d.ended", r)))
            ck_abort_msg("rank %d stopped before the end of the case (crashed?); the ranks' "
                         "output ends with: %s",
                         r, got_has("ranks.log") ? got_str("ranks.log") : "(nothing)");
    }
    ck_assert_msg(got_i64("ranks.status") == 0, "mpirun returned %lld; the ranks' output ends "
                                                 "with: %s",
                  (long long)got_i64("ranks.status"),
                  got_has("ranks.log") ? got_str("ranks.log") : "(nothing)");
}
#endif

#endif
