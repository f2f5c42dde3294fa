/*
 * Lesson 04 exercises: callable objects and the module call protocol.
 *
 * Each function is a hole in the workbook's library, declared with its
 * contract in lib/core/callable.h (04.1, 04.2), lib/nn/module.h (04.3) and
 * lib/nn/batcher.h (04.4). Replace a body (including its `return
 * exercise_todo(...)` line) and return 0; report an error with
 * `return err_set(...)` or, to add to an error that came from a call,
 * `return err_context(...)`.
 *
 *   make grade LESSON=04          grade these exercises
 *   make hint EX=04.3             a longer hint for one exercise
 *   make lesson37 PART=4 IMPL=lessons    watch your code in the lesson
 */
#include <stdlib.h>
#include <string.h>

#include "lib/nn/batcher.h"
#include "lib/core/callable.h"
#include "lib/core/err.h"
#include "lib/nn/module.h"

#define HERE "lessons/04_callable_objects/exercises.c"

/* ex04.1 The Counter's __call__ --------------------------------------------------
 * TODO(ex04.1): add one to the count kept in the state and return it.
 * Hint: state points to a CounterState; *out = value_int(...). About 4 lines.
 */
int counter_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)state, (void)args, (void)nargs, (void)out;
    return exercise_todo("04.1", "counter_call", HERE);
}

/* ex04.2 functools.partial ----------------------------------------------------------
 * TODO(ex04.2): call p->inner with the bound values first, then this call's args.
 * Hint: build one array of Values (at most CALLABLE_MAX_ARGS: refuse more with
 * ERR_ARG), then callable_call. About 10 lines.
 */
int partial_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)state, (void)args, (void)nargs, (void)out;
    return exercise_todo("04.2", "partial_call", HERE);
}

/* ex04.3 The module call protocol ---------------------------------------------------
 * TODO(ex04.3): pre-hooks (may replace the input), module_forward, hooks (may
 * replace the output), in registration order, with the error messages of
 * lib/nn/module.h.
 * Hint: m->pre_hooks[i].fn and m->hooks[i].fn are Callables; pass
 * value_ptr(m), value_ptr(input) (and value_ptr(output)). About 30 lines.
 */
int module_call_hooks(Module *m, const Tensor *x, const Tensor **y)
{
    (void)m, (void)x, (void)y;
    return exercise_todo("04.3", "module_call_hooks", HERE);
}

/* ex04.4 The batching callable ----------------------------------------------------------
 * TODO(ex04.4): run b->model over x in chunks of b->batch_size rows, on b->device,
 * with gradients disabled, and put the outputs into out in order.
 * Hint: per chunk: tensor_new_2d, tensor_copy_rows, tensor_to, module_call,
 * tensor_to back, tensor_put_rows; free what you made. Restore the gradient
 * mode at the end. About 25 lines.
 */
int batcher_forward(BatcherState *b, const Tensor *x, Tensor *out)
{
    (void)b, (void)x, (void)out;
    return exercise_todo("04.4", "batcher_forward", HERE);
}
