/*
 * suite.c: the graded suite of Lesson 04 (lessons/04_callable_objects/exercises.c).
 *
 * The oracles are the protocol's own rules, checked with callables that log
 * what happens (order, arguments, replacements) and with small cases worked
 * out by hand in the comments (a Linear layer whose weights are a formula, an
 * inner callable whose result spells its arguments), and lib's own forward
 * pass on the CPU as the reference for what a batched call must return (the
 * reference run, which never runs the exercises it grades). The whole-lesson
 * case batches a model and rows drawn for the grading run instead, against the
 * judge's own forward pass in double (drawn_whole.h, oracle_mlp.h). The batching
 * checks run on a CUDA device (the GPU, or the simulator when there is none)
 * so that the number of copies to the device can be counted.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out and what the harness saw) and a JUDGE half (in the judge: decide),
 * see ../graded.h.
 *
 * This file is the suite's table, in the order make grade shows the cases. Each
 * exercise's cases are in a file of their own (ex04_1_counter_call.c,
 * ex04_2_partial_call.c, ex04_3_module_call_hooks.c, ex04_4_batcher_forward.c), the
 * whole lesson's in whole_lesson.c; what the files share is in suite.h.
 */
#include "suite.h"

/* name, exercise, function, what it checks, points, timeout (s), reference?, file */
#define CASES(X)                                                                                   \
    X(counter_counts, "04.1", "counter_call", "counts 1, 2, 3, ... in the object's state", 4, 5,  \
      0, NULL)                                                                                     \
    X(counters_are_independent, "04.1", "counter_call", "two Counters keep separate counts", 3,   \
      5, 0, NULL)                                                                                  \
    X(partial_order, "04.2", "partial_call",                                                       \
      "bound values first, then the call's; none bound; all bound", 5, 5, 0, NULL)                 \
    X(partial_nested_and_errors, "04.2", "partial_call",                                           \
      "partial of a partial; too many arguments; the inner call's errors", 5, 5, 0, NULL)          \
    X(partial_max_args, "04.2", "partial_call",                                                    \
      "exactly CALLABLE_MAX_ARGS in all works, one more is ERR_ARG", 3, 5, 0, NULL)                \
    X(hooks_order_and_arguments, "04.3", "module_call_hooks",                                      \
      "pre-hooks, forward, hooks, in registration order, with their arguments", 8, 5, 0, NULL)     \
    X(hooks_replace_input_and_output, "04.3", "module_call_hooks",                                 \
      "replacements pass along the chain", 7, 5, 0, NULL)                                          \
    X(hooks_none_keeps_replacement, "04.3", "module_call_hooks",                                   \
      "None after a replacement keeps it; pre-hooks only; forward hooks only", 4, 5, 0, NULL)      \
    X(hooks_errors_and_removal, "04.3", "module_call_hooks",                                       \
      "a failing hook, a bad return, removed hooks", 5, 5, 0, NULL)                                \
    X(hooks_failure_stops, "04.3", "module_call_hooks",                                            \
      "a failing pre-hook, hook or forward stops the call, with its error", 4, 5, 0, NULL)         \
    X(batcher_chunks, "04.4", "batcher_forward",                                                   \
      "chunks in order, one copy each, nothing kept for backward", 8, 30, 1, NULL)                 \
    X(batcher_empty, "04.4", "batcher_forward",                                                    \
      "an empty input copies and launches nothing; the batcher works after it", 2, 10, 1, NULL)    \
    X(batcher_grad_off, "04.4", "batcher_forward",                                                 \
      "restores the gradient mode it found (disabled stays disabled)", 3, 30, 1, NULL)             \
    X(batcher_model_fails, "04.4", "batcher_forward",                                              \
      "a model error is returned; gradient mode restored; device temporaries freed", 4, 30, 0,    \
      NULL)                                                                                        \
    X(hook_inside_batcher, "04", "all of Lesson 04",                                             \
      "hooks on the model and on fc1 run once per batch (drawn model, rows and batch size)", 5,  \
      30, 0, NULL)

GRADED_SUITE("04", "Callable objects and the module call",
             "lessons/04_callable_objects/exercises.c", CASES)
