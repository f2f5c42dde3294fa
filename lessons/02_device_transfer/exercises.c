/*
 * Lesson 02 exercises (the C part): devices, copies and the same-device rule.
 *
 * Each function is a hole in the workbook's library, declared with its
 * contract in a lib header: lib/device/device.h (02.1, 02.2) and lib/device/tensor.h (02.3).
 * Replace a body (including its `return exercise_todo(...)` line) and return 0
 * on success; on an error, return err_set(code, "message", ...) with the
 * message the header gives. Exercise 02.4, a CUDA kernel, is in exercises.cu.
 *
 *   make grade LESSON=02          grade these exercises
 *   make hint EX=02.1             a longer hint for one exercise
 *   make lesson37 PART=2 IMPL=lessons    watch your code move work to the GPU
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lib/device/device.h"
#include "lib/core/err.h"
#include "lib/device/tensor.h"

#define HERE "lessons/02_device_transfer/exercises.c"

/* ex02.1 Parsing device strings -------------------------------------------------
 * TODO(ex02.1): "cpu" -> the CPU; "cuda" -> cuda:0; "cuda:N" -> cuda:N, checked
 * against the number of visible devices. Also say which physical GPU it is:
 * the N-th entry of CUDA_VISIBLE_DEVICES when that is set ("2,0" makes cuda:0
 * the machine's GPU 2), else N.
 * Hint: strcmp, strncmp(text, "cuda:", 5), and isdigit on every character
 * after the colon. The four error messages are in lib/device/device.h. About 40 lines.
 */
int device_parse(const char *text, const char *visible_env, int visible, Device *out,
                 int *physical)
{
    (void)text, (void)visible_env, (void)visible, (void)out, (void)physical;
    return exercise_todo("02.1", "device_parse", HERE);
}

/* ex02.2 The direction of a copy -------------------------------------------------
 * TODO(ex02.2): which of the five CopyKind values moves data from `from` to `to`?
 * Hint: two GPUs with different indices need a peer copy. About 8 lines.
 */
int copy_kind(Device from, Device to, CopyKind *kind)
{
    (void)from, (void)to, (void)kind;
    return exercise_todo("02.2", "copy_kind", HERE);
}

/* ex02.3 The same-device rule -----------------------------------------------------
 * TODO(ex02.3): return 0 when a and b are on the same device; otherwise an
 * ERR_DEVICE error with PyTorch's message (lib/device/tensor.h), naming a's device first.
 * Hint: device_equal and device_str. About 8 lines.
 */
int tensor_same_device(const char *op, const Tensor *a, const Tensor *b)
{
    (void)op, (void)a, (void)b;
    return exercise_todo("02.3", "tensor_same_device", HERE);
}
