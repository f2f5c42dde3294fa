/**
 * @file tensor.h
 * @brief Tensors: a shape, a dtype, a device and a block of memory.
 *
 * Shapes are PyTorch's: a batch of 120 samples with 4 features is (120, 4),
 * a Linear weight is (out_features, in_features). Memory order is
 * **column-major** (the first index is the fastest, as in Fortran, BLAS and
 * cuBLAS): element (i, j) of a (rows, cols) tensor is at `i + j * rows`. For
 * a batch (N, C) that puts the N values of one feature side by side, so the
 * inner loop of a layer runs over the batch, the long dimension, and the
 * compiler turns it into SIMD instructions; with PyTorch's row-major order
 * the inner loop would run over 4 or 10 features and stay scalar. (On a GPU
 * the same order makes consecutive threads, one per sample, read consecutive
 * addresses.) tensor_set_rows() and tensor_get_rows() convert from and to
 * PyTorch's row-major order. Memory is 64-byte aligned. The dtype field
 * already names f16 and bf16 (for mixed precision later); the arithmetic of
 * Lesson 01 is f32, and class labels are i32.
 */
#ifndef WB_TENSOR_H
#define WB_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/core/dtype.h"
#include "lib/core/rng.h"
#include "lib/device/backend.h"
#include "lib/device/device.h"

/** Largest number of dimensions a tensor may have. */
#define TENSOR_MAX_DIMS 4


/** A contiguous column-major array with a shape, a dtype and a device.
 *
 * For a CUDA tensor, data is a device pointer: pass it to kernels and
 * cuBLAS, never dereference it on the CPU (tensor_to() brings the values
 * over). */
typedef struct Tensor {
    DType dtype;                     /**< element type */
    Device device;                   /**< where @ref data lives */
    int ndim;                        /**< number of dimensions, 0..TENSOR_MAX_DIMS */
    int64_t shape[TENSOR_MAX_DIMS];  /**< sizes; unused entries are 1 */
    int64_t numel;                   /**< product of the sizes */
    void *data;                      /**< the elements (NULL when numel is 0) */
    size_t capacity;                 /**< bytes allocated at @ref data */
} Tensor;

/**
 * @brief The backend table of @p t's device: `tensor_ops(x)->relu_forward(x->device, ...)`.
 *
 * A tensor exists only on a device whose backend this build has, so this is
 * never NULL.
 */
static inline const BackendOps *tensor_ops(const Tensor *t) { return backend_of(t->device); }

/**
 * @brief Allocate a zero-filled tensor on @p device.
 *
 * Returns NULL and sets the error (::ERR_ARG for a bad shape, ::ERR_NOMEM when
 * memory runs out, with what is free and what to try, ::ERR_DEVICE for a
 * device this build or machine does not have).
 */
Tensor *tensor_new(DType dtype, Device device, int ndim, const int64_t *shape);

/** @brief tensor_new() for a one-dimensional f32 tensor on the CPU. */
Tensor *tensor_new_1d(int64_t n);

/** @brief tensor_new() for a (rows, cols) f32 tensor on the CPU. */
Tensor *tensor_new_2d(int64_t rows, int64_t cols);

/** @brief Release a tensor and its memory; NULL is allowed. */
void tensor_free(Tensor *t);

/**
 * @brief Give @p t a new shape, keeping its memory when it is large enough.
 *
 * The contents are unspecified afterwards (zero when memory was reallocated).
 * Modules use this for their cached outputs so that a training loop does not
 * allocate once it has seen its batch size.
 */
WB_MUST_CHECK int tensor_resize(Tensor *t, int ndim, const int64_t *shape);

/** @brief The elements of an f32 tensor (NULL for another dtype). */
float *tensor_f32(const Tensor *t);

/** @brief The elements of an i32 tensor (NULL for another dtype). */
int32_t *tensor_i32(const Tensor *t);

/**
 * @brief Copy the elements of @p src into @p dst, on the same or another device.
 *
 * Both must have the same dtype and number of elements; ::ERR_SHAPE otherwise.
 * A copy to the CPU from a GPU waits for the GPU (a sync).
 */
WB_MUST_CHECK int tensor_copy(Tensor *dst, const Tensor *src);

/**
 * @brief Set every element of @p t to zero, on its device (`t.zero_()`; on a GPU
 *        queued, not waited for). How gradients are zeroed (`zero_grad`).
 */
WB_MUST_CHECK int tensor_zero(Tensor *t);

/**
 * @brief `x.to(device)`: a new tensor on @p device with the values of @p src.
 *
 * Always a new tensor (also when @p src is already there), which the caller
 * frees. The copy's direction comes from copy_kind(), Lesson 02's exercise.
 */
WB_MUST_CHECK int tensor_to(const Tensor *src, Device device, Tensor **out);

/** @brief A new tensor with the same shape, dtype, device and values; NULL on error. */
Tensor *tensor_clone(const Tensor *src);

/** @brief Set every element of an f32 CPU tensor to @p value. */
WB_MUST_CHECK int tensor_fill(Tensor *t, float value);

/**
 * @brief Fill an f32 tensor with uniform values in [lo, hi) drawn from @p rng.
 *
 * Values are drawn in PyTorch's (row-major) order of the elements, so a
 * (out, in) weight gets the same value at (o, k) as a row-major fill would
 * give it, whatever the memory order.
 */
WB_MUST_CHECK int tensor_uniform(Tensor *t, Rng *rng, float lo, float hi);

/**
 * @brief Set an f32 tensor from @p src, given in row-major (PyTorch, NumPy) order.
 *
 * @p src holds numel values, the last index fastest. Used to load weights and
 * reference values written by PyTorch.
 */
WB_MUST_CHECK int tensor_set_rows(Tensor *t, const float *src);

/** @brief Write an f32 tensor's values to @p dst in row-major (PyTorch) order. */
WB_MUST_CHECK int tensor_get_rows(const Tensor *t, float *dst);

/**
 * @brief Copy rows [@p start, @p start + @p count) of @p x (n, d) into @p dst (count, d).
 *
 * Both on the same device. Rows of a column-major matrix are strided, so
 * this is a gather: on the CPU one memcpy per column, on a GPU one kernel
 * launch (k_copy_rows), which does not wait for the GPU. @p dst must have
 * the right shape already.
 */
WB_MUST_CHECK int tensor_copy_rows(const Tensor *x, int64_t start, int64_t count, Tensor *dst);

/**
 * @brief Transpose: @p out (cols, rows) = @p x (rows, cols)^T, PyTorch's `x.t().contiguous()`.
 *
 * Both are float32 2-D tensors on the same device and must not be the same
 * tensor; @p out is sized already. On a GPU this is exercise 03.4,
 * `k_transpose` (lessons/03_why_gpu_slower/exercises.cu): a transpose through a
 * shared-memory tile, whose loads and stores are coalesced and free of bank
 * conflicts.
 */
WB_MUST_CHECK int tensor_transpose(const Tensor *x, Tensor *out);

/**
 * @brief The reverse: copy all rows of @p src (count, d) into rows starting at @p start of
 *        @p dst (n, d), both on the same device (on a GPU one launch).
 */
WB_MUST_CHECK int tensor_put_rows(Tensor *dst, int64_t start, const Tensor *src);

/**
 * @brief The memory offset of the element at row-major position @p flat.
 *
 * Maps the position an element has in PyTorch's order to where it is in this
 * tensor's column-major memory.
 */
int64_t tensor_offset_of_row_major(const Tensor *t, int64_t flat);

/** @brief Write the shape as PyTorch prints it, "(120, 4)", into @p buf; returns @p buf. */
const char *tensor_shape_str(const Tensor *t, char *buf, size_t size);

/**
 * @brief Check that @p t is an f32 (rows, cols) matrix; 0 means "any size".
 *
 * On a mismatch sets ::ERR_SHAPE with a message such as
 * `"linear fc1: input has shape (120, 5), expected (N, 4)"`, where @p op and
 * @p what name the caller and the argument (an empty @p op leaves out the
 * "op: " prefix, for callers whose error context already names them).
 */
WB_MUST_CHECK int tensor_check_2d(const Tensor *t, DType dtype, int64_t rows, int64_t cols,
                    const char *op, const char *what);

/**
 * @brief The same-device rule, as lib applies it before an operation @p op.
 *
 * Tensors on the same device pass at once; for tensors on different devices
 * the rule is exercise 02.3 (tensor_same_device), whose ::ERR_DEVICE and
 * message are returned (an exercise that lets them pass is reported as such).
 * So code that keeps all its tensors on one device, the CPU code of Lesson 01
 * among it, does not depend on exercise 02.3.
 */
WB_MUST_CHECK int tensor_check_same_device(const char *op, const Tensor *a, const Tensor *b);

/* ---- Exercise of Lesson 02 (lessons/02_device_transfer/exercises.c) ---- */

/**
 * @brief Exercise 02.3: check that @p a and @p b are on the same device.
 *
 * Returns 0 when they are. Otherwise returns ::ERR_DEVICE with PyTorch's
 * message, prefixed with the operation @p op:
 * `"Linear fc1: expected all tensors to be on the same device, but found cuda:0 and cpu"`
 * (the devices of @p a, then @p b).
 */
WB_MUST_CHECK int tensor_same_device(const char *op, const Tensor *a, const Tensor *b);

#endif /* WB_TENSOR_H */
