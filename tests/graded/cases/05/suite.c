/*
 * suite.c: the graded suite of Lesson 05 (lessons/05_trainer/exercises.c).
 *
 * Oracles: PyTorch's clip_grad_norm_ (tests/fixtures/optim.txt) and norms
 * worked out in closed form; GradScaler's rules and early stopping's, worked
 * out by hand on sequences chosen so that each rule (and each off-by-one)
 * changes the outcome; for the epoch loop, an uninterrupted run against an
 * interrupted one (they must agree bit for bit), callbacks that record what
 * they see, and lib's own epoch loop (the reference run); for checkpoint
 * validation, files written in the test with one defect each; for the whole
 * lesson, runs from inputs drawn for the grading run against the judge's own
 * training in double and its own replay of GradScaler's and early stopping's
 * rules (drawn_whole.h, oracle_mlp.h).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h. Inputs are
 * shared by both halves (outside the #ifdefs); what is expected lives only in
 * the JUDGE halves.
 *
 * This file is the suite's table, in the order make grade shows the cases. Each
 * exercise's cases are in a file of their own (ex05_1_grad_scaler_update.c,
 * ex05_2_clip_grad_norm.c, ex05_3_early_stopping.c, ex05_4_trainer_run_epochs.c,
 * ex05_5_checkpoint_validate.c, ex05_6_train_step_accumulated.c), the whole lesson's
 * in whole_lesson.c; what the files share is in suite.h.
 */
#include "suite.h"

/* name, exercise, function, what it checks, points, timeout (s), reference?, file */
#define CASES(X)                                                                                   \
    X(scaler_backoff_and_growth, "05.1", "grad_scaler_update",                                     \
      "backoff and reset on inf, growth after growth_interval clean steps", 6, 5, 0, NULL)         \
    X(scaler_edges, "05.1", "grad_scaler_update", "no growth into inf, disabled, the factors", 4,  \
      5, 0, NULL)                                                                                  \
    X(scaler_long_run, "05.1", "grad_scaler_update",                                               \
      "growth twice in a row, backoff twice in a row, an inf resets a partial count", 3, 5, 0,     \
      NULL)                                                                                        \
    X(clip_matches_pytorch, "05.2", "clip_grad_norm_scale",                                        \
      "PyTorch's clip_grad_norm_ below and above the max norm", 6, 5, 0, NULL)                     \
    X(clip_nonfinite_and_empty, "05.2", "clip_grad_norm_scale",                                    \
      "inf and NaN gradients, no gradients, squares beyond float", 4, 5, 0, NULL)                  \
    X(clip_precision, "05.2", "clip_grad_norm_scale",                                              \
      "small squares next to large ones; the 1e-6 of max_norm / (total + 1e-6)", 4, 5, 0, NULL)    \
    X(early_stopping_patience, "05.3", "early_stopping_call", "patience and min_delta", 6, 5, 0,   \
      NULL)                                                                                        \
    X(early_stopping_nan_and_empty, "05.3", "early_stopping_call",                                 \
      "NaN is no improvement; an empty history", 3, 5, 0, NULL)                                    \
    X(early_stopping_wait_resets, "05.3", "early_stopping_call",                                   \
      "patience counts from the last improvement; best moves only on an improvement", 3, 5, 0,     \
      NULL)                                                                                        \
    X(epoch_loop_resumes, "05.4", "trainer_run_epochs",                                            \
      "1 + 2 + 1 epochs in three calls equal 4 in one; a target beyond the total", 8, 60, 0, NULL) \
    X(epoch_loop_stops, "05.4", "trainer_run_epochs",                                              \
      "the stop flag; a failing callback leaves the last finished epoch", 5, 60, 0, NULL)          \
    X(epoch_loop_bookkeeping, "05.4", "trainer_run_epochs",                                        \
      "t->epoch set after each epoch ends; a target behind; a stop flag set before", 4, 60, 0,     \
      NULL)                                                                                        \
    X(epoch_loop_matches_lib, "05.4", "trainer_run_epochs",                                        \
      "4 epochs train exactly as lib's own loop (batch order, history, best epoch)", 4, 60, 1,     \
      NULL)                                                                                        \
    X(validate_checkpoints, "05.5", "checkpoint_validate",                                         \
      "format, version, missing, reshaped, retyped and extra tensors", 10, 10, 0, NULL)            \
    X(validate_lookalikes, "05.5", "checkpoint_validate",                                          \
      "a full checkpoint; same size, other shape; the last tensor's dtype; versions 10 and 1.5; "  \
      "formats that only start or end alike; the model untouched",                                 \
      5, 10, 0, NULL)                                                                              \
    X(accumulate_matches_full_batch, "05.6", "train_step_accumulated",                             \
      "micro-batches of 6, 3 and 1 rows step as the whole batch does: gradients, weights, loss",   \
      6, 10, 1, NULL)                                                                              \
    X(accumulate_edges, "05.6", "train_step_accumulated",                                          \
      "one micro-batch; two halves with momentum; k = 0 and an empty one refused, nothing changed", \
      4, 10, 1, NULL)                                                                              \
    X(stop_save_resume, "05", "all of Lesson 05",                                                  \
      "a run resumed from its checkpoint trains as one that never stopped (drawn inputs)", 5, 60,  \
      0, NULL)                                                                                     \
    X(full_run, "05", "all of Lesson 05",                                                          \
      "a GradScaler, clipping and early stopping train as the judge's own run (drawn inputs)", 6,  \
      60, 0, NULL)

GRADED_SUITE("05", "The full trainer", "lessons/05_trainer/exercises.c", CASES)
