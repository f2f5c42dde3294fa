/*
 * Lesson 03 exercises: where a GPU's time goes.
 *
 * Each function is a hole in the workbook's library, declared with its
 * contract in lib/train/train.h (03.1, 03.2) and lib/device/device.h (03.3).
 * Replace a body (including its `return exercise_todo(...)` line) and return 0;
 * report an error with `return err_set(...)` or, to add to an error that
 * came from a call, `return err_context(...)`. They are graded on the CUDA
 * simulator (with the kernel of 03.4, exercises.cu), by counting what your
 * code asks of the GPU: launches, syncs and copies (lib/core/counters.h), the
 * same counts a GPU would give.
 *
 *   make grade LESSON=03          grade these exercises
 *   make hint EX=03.1             a longer hint for one exercise
 *   make lesson37 PART=3 IMPL=lessons    watch your code in the lesson
 */
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/core/timer.h"
#include "lib/device/device.h"
#include "lib/train/train.h"

#define HERE "lessons/03_why_gpu_slower/exercises.c"

/* ex03.1 Reading the loss back every N epochs ------------------------------------
 * TODO(ex03.1): epochs calls of train_step with NULL for the loss value; after
 * epoch e (from 1) with log_every > 0 and e % log_every == 0, loss_item into
 * logged[k++]. Set *n_logged = k, also when a step fails.
 * Hint: the sync is loss_item, and only there. About 12 lines.
 */
int train_logged(Module *model, Loss *loss, Optimizer *opt, const Tensor *x, const Tensor *y,
                 long epochs, long log_every, float *logged, long *n_logged)
{
    (void)model, (void)loss, (void)opt, (void)x, (void)y, (void)epochs, (void)log_every;
    (void)logged, (void)n_logged;
    return exercise_todo("03.1", "train_logged", HERE);
}

/* ex03.2 Chunked inference on the device -------------------------------------------
 * TODO(ex03.2): one (chunk, d) buffer on x->device before the loop; per chunk:
 * tensor_resize (the last chunk is shorter), tensor_copy_rows, module_call,
 * tensor_put_rows. Free the buffer after the loop.
 * Hint: tensor_new(DTYPE_F32, x->device, 2, shape). About 20 lines.
 */
int predict_chunked(Module *model, const Tensor *x, int64_t chunk, Tensor *out)
{
    (void)model, (void)x, (void)chunk, (void)out;
    return exercise_todo("03.2", "predict_chunked", HERE);
}

/* ex03.3 Timing GPU work ---------------------------------------------------------
 * TODO(ex03.3): device_synchronize, timer_now, repeats calls of work(ctx),
 * device_synchronize, timer_now; *seconds = elapsed / repeats.
 * Hint: without the first sync you time earlier work too; without the
 * second you time only the queueing. About 10 lines.
 */
int time_on_device(Device d, int (*work)(void *ctx), void *ctx, long repeats, double *seconds)
{
    (void)d, (void)work, (void)ctx, (void)repeats, (void)seconds;
    return exercise_todo("03.3", "time_on_device", HERE);
}
