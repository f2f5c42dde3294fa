/*
 * suite.c: the graded suite of Lesson 06 (lessons/06_data_parallel/exercises.c).
 *
 * The oracles: the sampler's rule worked out here from a seeded order (the
 * shuffle and the expected shard are computed by code both halves share,
 * independent of lib), gradients and bucket contents that are formulas of
 * their position, means computed by the judge from the values each rank
 * started with (drawn from the grading run's seed, grade_seed(), so that they
 * cannot be known in advance), lib's count of the all-reduces made
 * (dist_counts()), and for the whole lesson the judge's own training, in double,
 * of one process with twice the batch, from a split, an order and weights drawn
 * for the grading run (drawn_whole.h, oracle_mlp.h). The cases that need
 * communication run as 2 or 3 real
 * ranks under mpirun (run_ranks(), runner.h), under a time limit, so code
 * where one rank never calls a collective fails with a message instead of
 * hanging the grader.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out and what the harness saw) and a JUDGE half (in the judge: decide),
 * see ../graded.h.
 *
 * This file is the suite's tables: its cases, in the order make grade shows them, and
 * the bodies its ranks run (rank_cases) with the cases that start them. Each
 * exercise's cases are in a file of their own (ex06_1_dist_shard.c,
 * ex06_2_bucket_flatten.c, ex06_3_bucket_average.c, ex06_4_broadcast_parameters.c),
 * the whole lesson's in whole_lesson.c; what the files share is in suite.h.
 */
#include "suite.h"

/* The bodies a rank runs (`runNN --rank NAME`, runner.h), and the cases whose RUN half
 * only starts ranks with run_ranks(). */
#ifdef GRADE_RUNNER
const RunCase rank_cases[] = {{"average", rank_average},
                              {"broadcast0", rank_broadcast0},
                              {"broadcast1", rank_broadcast1},
                              {"train", rank_train}};
const int n_rank_cases = (int)(sizeof rank_cases / sizeof rank_cases[0]);
const char *const launcher_cases[] = {"average_on_two_ranks", "average_on_three_ranks",
                                      "broadcast_from_rank0", "broadcast_from_rank1_of_three",
                                      "ddp_trains_as_one"};
const int n_launcher_cases = (int)(sizeof launcher_cases / sizeof launcher_cases[0]);
#endif

/* name, exercise, function, what it checks, points, timeout (s), reference?, file */
#define CASES(X)                                                                                   \
    X(shard_interleaves, "06.1", "dist_shard",                                                     \
      "every world-th row of the epoch's order; padding from the start, drop_last", 6, 5, 0, NULL) \
    X(shard_edges, "06.1", "dist_shard",                                                           \
      "fewer rows than ranks, an empty epoch, bad arguments refused", 4, 5, 0, NULL)               \
    X(flatten_places_each_gradient, "06.2", "bucket_flatten",                                      \
      "each gradient at its offset, the floats between left alone", 5, 5, 0, NULL)                 \
    X(unflatten_restores_each_gradient, "06.2", "bucket_unflatten",                                \
      "each gradient overwritten from its offset, the bucket only read", 4, 5, 0, NULL)            \
    X(average_on_two_ranks, "06.3", "bucket_average", "2 real ranks: the mean on both", 5, 60, 0,  \
      NULL)                                                                                        \
    X(average_on_three_ranks, "06.3", "bucket_average",                                            \
      "3 real ranks: the sum divided by the world size", 4, 60, 0, NULL)                           \
    X(broadcast_from_rank0, "06.4", "dist_broadcast_parameters",                                   \
      "2 real ranks: rank 0's values everywhere, gradients kept, bad roots refused", 5, 60, 0,     \
      NULL)                                                                                        \
    X(broadcast_from_rank1_of_three, "06.4", "dist_broadcast_parameters",                          \
      "3 real ranks, root 1", 4, 60, 0, NULL)                                                      \
    X(ddp_trains_as_one, "06", "all of Lesson 06",                                                 \
      "2 ranks x batch 8 train as 1 process x batch 16 (drawn split, order and weights)", 6, 90,   \
      0, NULL)

GRADED_SUITE("06", "Beyond one GPU: data-parallel training", "lessons/06_data_parallel/exercises.c",
             CASES)
