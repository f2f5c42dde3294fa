/*
 * suite.c: the graded suite of Lesson 03 (lessons/03_why_gpu_slower/exercises.c).
 *
 * Lesson 03 is about what code asks of the GPU, so the oracles are counts:
 * lib's counters (launches, syncs, copies, device memory in use) and their
 * trace, which records in order every launch (L), sync (S) and clock read
 * (C). They are the same on a GPU and on the simulator, so the grade does not
 * depend on the machine. The numbers themselves are checked against lib's own
 * training step and forward pass, run by the reference runner (lib and the
 * answers only, graded.h): the loss read every epoch by train_step, the
 * one-batch forward, and the launches of one forward. Timings use a fake
 * clock whose readings the judge works out itself (clock_reading).
 *
 * 03.4, the transpose, is a kernel, graded on the simulator wherever the grade
 * runs: its result against the drawn input, then its memory accesses. Those
 * are not taken from the simulator's counters, which live in the runner with
 * the student's code: the runner sends the trace of every access, and the
 * judge checks it against the output and costs it itself (trace_check.h).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h.
 *
 * This file is the suite's table, in the order make grade shows the cases. Each
 * exercise's cases are in a file of their own (ex03_1_train_logged.c,
 * ex03_2_predict_chunked.c, ex03_3_time_on_device.c, ex03_4_transpose.c), the whole
 * lesson's in whole_lesson.c; what the files share is in suite.h.
 */
#include "suite.h"

#define CU_FILE "lessons/03_why_gpu_slower/exercises.cu"

/* name, exercise, function, what it checks, points, timeout (s), reference?, file */
#define CASES(X)                                                                                   \
    X(logged_every_n, "03.1", "train_logged",                                                      \
      "exactly epochs/N syncs, the losses of epochs N, 2N, ..., the same training", 9, 60, 1,      \
      NULL)                                                                                        \
    X(logged_bad_arguments, "03.1", "train_logged",                                                \
      "negative arguments, zero epochs, then a real run on the same model", 3, 20, 1, NULL)        \
    X(logged_step_fails, "03.1", "train_logged",                                                   \
      "a step that fails: its error, no more steps, *n_logged still set", 2, 20, 1, NULL)          \
    X(chunked_same_as_one_batch, "03.2", "predict_chunked",                                        \
      "the one-batch outputs, the expected launches, no copies, at most one sync", 9, 30, 1, NULL) \
    X(chunked_frees_its_buffer, "03.2", "predict_chunked",                                         \
      "one buffer of chunk rows, freed: device memory back to where it was", 3, 20, 1, NULL)       \
    X(chunked_edge_cases, "03.2", "predict_chunked",                                               \
      "an empty input, chunk 0 and -3, one row, a last chunk of one row, 11 features", 3, 20, 1,   \
      NULL)                                                                                        \
    X(timing_waits_for_the_gpu, "03.3", "time_on_device",                                          \
      "sync, clock, work, sync, clock; the time per repeat", 7, 10, 0, NULL)                       \
    X(timing_no_sync_between, "03.3", "time_on_device", "no sync between the calls of work", 2,    \
      10, 0, NULL)                                                                                 \
    X(timing_errors_and_the_cpu, "03.3", "time_on_device",                                         \
      "a failing work, repeats 0 and -3, the CPU", 3, 10, 0, NULL)                                 \
    X(transpose_result, "03.4", "k_transpose",                                                     \
      "out = in transposed for 1 x 1 to 70 x 45, nothing past the end, in unchanged", 4, 20, 0,    \
      CU_FILE)                                                                                     \
    X(transpose_arguments, "03.4", "k_transpose",                                                  \
      "bad sizes and NULL pointers: their error and no launch; then a good call", 2, 20, 0,        \
      CU_FILE)                                                                                     \
    X(transpose_counters_square, "03.4", "k_transpose",                                            \
      "64 x 64: coalesced loads and stores, a shared tile without bank conflicts", 3, 30, 0,       \
      CU_FILE)                                                                                     \
    X(transpose_counters_wide, "03.4", "k_transpose",                                              \
      "96 x 160: coalesced loads and stores, a shared tile without bank conflicts", 3, 30, 0,      \
      CU_FILE)                                                                                     \
    X(timed_training, "03", "all of Lesson 03",                                                    \
      "a timed training read every 5 epochs, from drawn weights on a drawn split", 4, 60, 0, NULL)

GRADED_SUITE("03", "Why the GPU looks slower", "lessons/03_why_gpu_slower/exercises.c", CASES)
