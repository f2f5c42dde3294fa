/* tensor.c: allocation, shapes and simple fills of CPU tensors. */
#include "lib/device/tensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/device/backend.h"
#include "lib/core/counters.h"
#include "lib/core/err.h"

#define TENSOR_ALIGN 64

static int shape_numel(int ndim, const int64_t *shape, int64_t *numel)
{
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS)
        return err_set(ERR_ARG, "tensor: %d dimensions requested, at most %d are supported",
                       ndim, TENSOR_MAX_DIMS);
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return err_set(ERR_ARG, "tensor: size %lld in dimension %d is negative",
                           (long long)shape[i], i);
        if (shape[i] > 0 && n > INT64_MAX / 16 / shape[i])
            return err_set(ERR_ARG, "tensor: shape too large");
        n *= shape[i];
    }
    *numel = n;
    return ERR_OK;
}

/* Zero-filled memory on a device (64-byte aligned on the CPU). */
static int alloc_on(Device device, size_t bytes, void **data)
{
    if (device_alloc(device, bytes, data) != ERR_OK) {
        char name[16];
        return err_context("tensor on %s", device_str(device, name, sizeof name));
    }
    int rc = backend_of(device)->zero(device, *data, bytes);
    if (rc != ERR_OK) {
        device_free(device, *data, bytes);
        *data = NULL;
    }
    return rc;
}

Tensor *tensor_new(DType dtype, Device device, int ndim, const int64_t *shape)
{
    int64_t numel = 0;
    if (shape_numel(ndim, shape, &numel) != ERR_OK) return NULL;
    if (dtype_size(dtype) == 0) {
        err_set(ERR_ARG, "tensor: unknown dtype %d", (int)dtype);
        return NULL;
    }
    if (device_check(device) != ERR_OK) return NULL; /* a device this build cannot use */
    Tensor *t = calloc(1, sizeof *t);
    if (!t) {
        err_set(ERR_NOMEM, "tensor: out of memory for the tensor header");
        return NULL;
    }
    t->dtype = dtype;
    t->device = device;
    t->ndim = ndim;
    for (int i = 0; i < TENSOR_MAX_DIMS; i++) t->shape[i] = i < ndim ? shape[i] : 1;
    t->numel = numel;
    size_t bytes = (size_t)numel * dtype_size(dtype);
    if (bytes > 0) {
        if (alloc_on(device, bytes, &t->data) != ERR_OK) {
            free(t);
            return NULL;
        }
        t->capacity = bytes;
    }
    counters_tensor(1);
    return t;
}

Tensor *tensor_new_1d(int64_t n)
{
    return tensor_new(DTYPE_F32, device_cpu(), 1, &n);
}

Tensor *tensor_new_2d(int64_t rows, int64_t cols)
{
    int64_t shape[2] = {rows, cols};
    return tensor_new(DTYPE_F32, device_cpu(), 2, shape);
}

void tensor_free(Tensor *t)
{
    if (!t) return;
    device_free(t->device, t->data, t->capacity);
    free(t);
    counters_tensor(-1);
}

int tensor_resize(Tensor *t, int ndim, const int64_t *shape)
{
    if (ndim == t->ndim) { /* the common case in a training loop: nothing changes */
        int same = 1;
        for (int i = 0; i < ndim; i++) same &= shape[i] == t->shape[i];
        if (same) return ERR_OK;
    }
    int64_t numel = 0;
    TRY(shape_numel(ndim, shape, &numel));
    size_t bytes = (size_t)numel * dtype_size(t->dtype);
    if (bytes > t->capacity) {
        void *p;
        TRY(alloc_on(t->device, bytes, &p));
        device_free(t->device, t->data, t->capacity);
        t->data = p;
        t->capacity = bytes;
    }
    t->ndim = ndim;
    for (int i = 0; i < TENSOR_MAX_DIMS; i++) t->shape[i] = i < ndim ? shape[i] : 1;
    t->numel = numel;
    return ERR_OK;
}

float *tensor_f32(const Tensor *t)
{
    return t && t->dtype == DTYPE_F32 ? (float *)t->data : NULL;
}

int32_t *tensor_i32(const Tensor *t)
{
    return t && t->dtype == DTYPE_I32 ? (int32_t *)t->data : NULL;
}

int tensor_copy(Tensor *dst, const Tensor *src)
{
    if (dst->dtype != src->dtype || dst->numel != src->numel) {
        char a[64], b[64];
        return err_set(ERR_SHAPE, "tensor_copy: source %s %s does not fit destination %s %s",
                       dtype_name(src->dtype), tensor_shape_str(src, a, sizeof a),
                       dtype_name(dst->dtype), tensor_shape_str(dst, b, sizeof b));
    }
    size_t bytes = (size_t)src->numel * dtype_size(src->dtype);
    return device_copy(dst->data, dst->device, src->data, src->device, bytes);
}

int tensor_zero(Tensor *t)
{
    size_t bytes = (size_t)t->numel * dtype_size(t->dtype);
    return bytes ? tensor_ops(t)->zero(t->device, t->data, bytes) : ERR_OK;
}

int tensor_to(const Tensor *src, Device device, Tensor **out)
{
    *out = NULL;
    Tensor *t = tensor_new(src->dtype, device, src->ndim, src->shape);
    if (!t) return err_code();
    int rc = tensor_copy(t, src);
    if (rc != ERR_OK) {
        tensor_free(t);
        return rc;
    }
    *out = t;
    return ERR_OK;
}

/* The CPU-only operations say so for a GPU tensor. */
static int cpu_only(const Tensor *t, const char *op)
{
    if (device_is_host(t->device)) return ERR_OK;
    char name[16];
    return err_set(ERR_DEVICE, "%s works on CPU tensors, and this one is on %s: do it on the CPU, "
                               "then move the tensor with tensor_to",
                   op, device_str(t->device, name, sizeof name));
}

Tensor *tensor_clone(const Tensor *src)
{
    Tensor *t = tensor_new(src->dtype, src->device, src->ndim, src->shape);
    if (t && tensor_copy(t, src) != ERR_OK) {
        tensor_free(t);
        return NULL;
    }
    return t;
}

int tensor_fill(Tensor *t, float value)
{
    TRY(cpu_only(t, "tensor_fill"));
    float *p = tensor_f32(t);
    if (!p && t->numel > 0)
        return err_set(ERR_SHAPE, "tensor_fill: expected float32, got %s", dtype_name(t->dtype));
    for (int64_t i = 0; i < t->numel; i++) p[i] = value;
    return ERR_OK;
}

int64_t tensor_offset_of_row_major(const Tensor *t, int64_t flat)
{
    /* Column-major strides: 1, shape[0], shape[0] * shape[1], ... */
    int64_t stride[TENSOR_MAX_DIMS], offset = 0;
    for (int d = 0; d < t->ndim; d++) stride[d] = d ? stride[d - 1] * t->shape[d - 1] : 1;
    /* Peel the indices off the row-major position, last dimension first. */
    for (int d = t->ndim - 1; d >= 0; d--) {
        offset += (flat % t->shape[d]) * stride[d];
        flat /= t->shape[d];
    }
    return offset;
}

int tensor_uniform(Tensor *t, Rng *rng, float lo, float hi)
{
    TRY(cpu_only(t, "tensor_uniform"));
    float *p = tensor_f32(t);
    if (!p && t->numel > 0)
        return err_set(ERR_SHAPE, "tensor_uniform: expected float32, got %s",
                       dtype_name(t->dtype));
    for (int64_t i = 0; i < t->numel; i++)
        p[tensor_offset_of_row_major(t, i)] = rng_uniform_range(rng, lo, hi);
    return ERR_OK;
}

int tensor_set_rows(Tensor *t, const float *src)
{
    TRY(cpu_only(t, "tensor_set_rows"));
    float *p = tensor_f32(t);
    if (!p && t->numel > 0)
        return err_set(ERR_SHAPE, "tensor_set_rows: expected float32, got %s",
                       dtype_name(t->dtype));
    for (int64_t i = 0; i < t->numel; i++) p[tensor_offset_of_row_major(t, i)] = src[i];
    return ERR_OK;
}

int tensor_get_rows(const Tensor *t, float *dst)
{
    TRY(cpu_only(t, "tensor_get_rows"));
    const float *p = tensor_f32(t);
    if (!p && t->numel > 0)
        return err_set(ERR_SHAPE, "tensor_get_rows: expected float32, got %s",
                       dtype_name(t->dtype));
    for (int64_t i = 0; i < t->numel; i++) dst[i] = p[tensor_offset_of_row_major(t, i)];
    return ERR_OK;
}

const char *tensor_shape_str(const Tensor *t, char *buf, size_t size)
{
    size_t used = 0;
    used += (size_t)snprintf(buf, size, "(");
    for (int i = 0; i < t->ndim && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "",
                                 (long long)t->shape[i]);
    if (used < size) snprintf(buf + used, size - used, ")");
    return buf;
}

int tensor_check_2d(const Tensor *t, DType dtype, int64_t rows, int64_t cols,
                    const char *op, const char *what)
{
    char got[64], want[64];
    const char *sep = *op ? ": " : "";
    if (!t) return err_set(ERR_ARG, "%s%s%s is NULL", op, sep, what);
    if (t->dtype != dtype)
        return err_set(ERR_SHAPE, "%s%s%s has dtype %s, expected %s", op, sep, what,
                       dtype_name(t->dtype), dtype_name(dtype));
    bool ok = t->ndim == 2 && (rows == 0 || t->shape[0] == rows) &&
              (cols == 0 || t->shape[1] == cols);
    if (ok) return ERR_OK;
    char r[24] = "N", c[24] = "C";
    if (rows) snprintf(r, sizeof r, "%lld", (long long)rows);
    if (cols) snprintf(c, sizeof c, "%lld", (long long)cols);
    snprintf(want, sizeof want, "(%s, %s)", r, c);
    return err_set(ERR_SHAPE, "%s%s%s has shape %s, expected %s", op, sep, what,
                   tensor_shape_str(t, got, sizeof got), want);
}

int tensor_check_same_device(const char *op, const Tensor *a, const Tensor *b)
{
    if (device_equal(a->device, b->device)) return ERR_OK;
    EXERCISE("02.3", tensor_same_device, op, a, b);
    char da[16], db[16];
    return err_set(ERR_DEVICE, "%s: tensors on %s and %s, and exercise 02.3 tensor_same_device "
                               "let them pass: it must refuse tensors on different devices",
                   op, device_str(a->device, da, sizeof da), device_str(b->device, db, sizeof db));
}

int tensor_copy_rows(const Tensor *x, int64_t start, int64_t count, Tensor *dst)
{
    TRY(tensor_check_2d(x, DTYPE_F32, 0, 0, "tensor_copy_rows", "x"));
    TRY(tensor_check_2d(dst, DTYPE_F32, count, x->shape[1], "tensor_copy_rows", "dst"));
    TRY(tensor_check_same_device("tensor_copy_rows", x, dst));
    int64_t n = x->shape[0], d = x->shape[1];
    if (start < 0 || count < 0 || start + count > n)
        return err_set(ERR_ARG, "tensor_copy_rows: rows %lld..%lld of a tensor with %lld rows",
                       (long long)start, (long long)(start + count), (long long)n);
    return tensor_ops(x)->copy_rows(x->device, tensor_f32(x), n, start, tensor_f32(dst), count,
                                    0, count, d);
}

int tensor_transpose(const Tensor *x, Tensor *out)
{
    TRY(tensor_check_2d(x, DTYPE_F32, 0, 0, "tensor_transpose", "x"));
    TRY(tensor_check_2d(out, DTYPE_F32, 0, 0, "tensor_transpose", "out"));
    TRY(tensor_check_same_device("tensor_transpose", x, out));
    if (out->shape[0] != x->shape[1] || out->shape[1] != x->shape[0]) {
        char a[48], b[48];
        return err_set(ERR_SHAPE, "tensor_transpose: x is %s, so out must be (%lld, %lld), not %s",
                       tensor_shape_str(x, a, sizeof a), (long long)x->shape[1],
                       (long long)x->shape[0], tensor_shape_str(out, b, sizeof b));
    }
    if (out == x) return err_set(ERR_ARG, "tensor_transpose: out is x; transpose into a tensor of its own");
    return tensor_ops(x)->transpose(x->device, tensor_f32(x), tensor_f32(out), x->shape[0],
                                    x->shape[1]);
}

int tensor_put_rows(Tensor *dst, int64_t start, const Tensor *src)
{
    TRY(tensor_check_2d(dst, DTYPE_F32, 0, 0, "tensor_put_rows", "dst"));
    TRY(tensor_check_2d(src, DTYPE_F32, 0, dst->shape[1], "tensor_put_rows", "src"));
    TRY(tensor_check_same_device("tensor_put_rows", dst, src));
    int64_t n = dst->shape[0], count = src->shape[0], d = dst->shape[1];
    if (start < 0 || start + count > n)
        return err_set(ERR_ARG, "tensor_put_rows: rows %lld..%lld of a tensor with %lld rows",
                       (long long)start, (long long)(start + count), (long long)n);
    return tensor_ops(dst)->copy_rows(dst->device, tensor_f32(src), count, 0, tensor_f32(dst), n,
                                      start, count, d);
}
