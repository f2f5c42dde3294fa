/* layers.c: Linear and ReLU modules. The arithmetic is in the exercise
 * functions (linear_forward, ...); this file checks shapes, manages buffers
 * and keeps forward and backward of each layer side by side. */
#include "layers.h"

#include <math.h>
#include <stdlib.h>

#include "backend.h"
#include "err.h"

typedef struct LinearImpl {
    int64_t in, out;
} LinearImpl;

static int linear_module_forward(Module *self, const Tensor *x, const Tensor **y)
{
    const LinearImpl *L = self->impl;
    TRY(tensor_check_2d(x, DTYPE_F32, 0, L->in, "", "input"));
    TRY(exercise_result(tensor_same_device(self->label, x,
                                           self->params[0].value),
                        "02.3", "tensor_same_device"));
    int64_t n = x->shape[0];
    int64_t shape[2] = {n, L->out}; // y: (n, out)
    TRY(tensor_resize(self->output, 2, shape));
    self->input = x;
    if (x->device.kind == DEVICE_CUDA) {
        /* y (n, out) = x (n, in) W^T, W (out, in): cuBLAS takes the column-major
         * arrays as they are, with op(W) = transpose. Then y += b. */
        TRY(backend_gemm(x->device, false, true, n, L->out, L->in, 1.0f, tensor_f32(x), n,
                         tensor_f32(self->params[0].value), L->out, 0.0f,
                         tensor_f32(self->output), n));
        TRY(backend_add_bias(x->device, tensor_f32(self->output),
                             tensor_f32(self->params[1].value), n, L->out));
        *y = self->output;
        return ERR_OK;
    }
    EXERCISE("01.2", linear_forward, tensor_f32(x), tensor_f32(self->params[0].value),
                       tensor_f32(self->params[1].value), tensor_f32(self->output), n, L->in,
                       L->out);
    *y = self->output;
    return ERR_OK;
}

static int linear_module_backward(Module *self, const Tensor *dy, const Tensor **dx)
{
    const LinearImpl *L = self->impl;
    int64_t n = self->input->shape[0];
    TRY(tensor_check_2d(dy, DTYPE_F32, n, L->out, "", "output gradient"));
    TRY(exercise_result(tensor_same_device(self->label, dy,
                                           self->params[0].value),
                        "02.3", "tensor_same_device"));
    float *dx_data = NULL;
    if (dx) {
        int64_t shape[2] = {n, L->in}; // dx: (n, in)
        TRY(tensor_resize(self->grad_input, 2, shape));
        dx_data = tensor_f32(self->grad_input);
    }
    if (dy->device.kind == DEVICE_CUDA) {
        Device d = dy->device;
        const float *x = tensor_f32(self->input), *w = tensor_f32(self->params[0].value);
        /* dW (out, in) += dy^T (out, n) x (n, in); db += column sums of dy */
        TRY(backend_gemm(d, true, false, L->out, L->in, n, 1.0f, tensor_f32(dy), n, x, n, 1.0f,
                         tensor_f32(self->params[0].grad), L->out));
        TRY(backend_sum_columns_add(d, tensor_f32(dy), tensor_f32(self->params[1].grad), n,
                                    L->out));
        /* dx (n, in) = dy (n, out) W (out, in) */
        if (dx)
            TRY(backend_gemm(d, false, false, n, L->in, L->out, 1.0f, tensor_f32(dy), n, w,
                             L->out, 0.0f, dx_data, n));
        if (dx) *dx = self->grad_input;
        return ERR_OK;
    }
    EXERCISE("01.3", linear_backward, tensor_f32(self->input), tensor_f32(self->params[0].value),
                        tensor_f32(dy), dx_data, tensor_f32(self->params[0].grad),
                        tensor_f32(self->params[1].grad), n, L->in, L->out);
    if (dx) *dx = self->grad_input;
    return ERR_OK;
}

static void linear_extra_repr(const Module *self, char *buf, size_t size)
{
    const LinearImpl *L = self->impl;
    snprintf(buf, size, "in_features=%lld, out_features=%lld, bias=True", (long long)L->in,
             (long long)L->out);
}

static void linear_destroy(Module *self) { free(self->impl); }

static const ModuleOps linear_ops = {
    .kind = "Linear",
    .forward = linear_module_forward,
    .backward = linear_module_backward,
    .extra_repr = linear_extra_repr,
    .destroy = linear_destroy,
};

Module *linear_new(const char *name, int64_t in_features, int64_t out_features, Rng *rng)
{
    if (in_features < 1 || out_features < 1) {
        err_set(ERR_ARG, "Linear %s: in_features=%lld and out_features=%lld must be at least 1",
                name ? name : "", (long long)in_features, (long long)out_features);
        return NULL;
    }
    Module *m = module_alloc(&linear_ops, name);
    if (!m) return NULL;
    LinearImpl *L = malloc(sizeof *L);
    if (!L) {
        module_free(m);
        err_set(ERR_NOMEM, "Linear %s: out of memory", name ? name : "");
        return NULL;
    }
    L->in = in_features;
    L->out = out_features;
    m->impl = L;
    int64_t wshape[2] = {out_features, in_features};
    Param *w = module_add_param(m, "weight", 2, wshape);
    Param *b = w ? module_add_param(m, "bias", 1, &out_features) : NULL;
    if (!b) {
        module_free(m);
        return NULL;
    }
    /* PyTorch: kaiming_uniform_(a=sqrt(5)) bound = sqrt(6 / ((1 + 5) * fan_in))
     * = 1/sqrt(fan_in); the bias uses the same bound. */
    float bound = (float)(1.0 / sqrt((double)in_features));
    tensor_uniform(w->value, rng, -bound, bound);
    tensor_uniform(b->value, rng, -bound, bound);
    return m;
}

static int relu_module_forward(Module *self, const Tensor *x, const Tensor **y)
{
    if (x->dtype != DTYPE_F32)
        return err_set(ERR_SHAPE, "input has dtype %s, expected float32",
                       dtype_name(x->dtype));
    TRY(exercise_result(tensor_same_device(self->label, x, self->output),
                        "02.3", "tensor_same_device"));
    TRY(tensor_resize(self->output, x->ndim, x->shape));
    self->input = x;
    if (x->device.kind == DEVICE_CUDA) {
        TRY(backend_relu_forward(x->device, tensor_f32(x), tensor_f32(self->output), x->numel));
        *y = self->output;
        return ERR_OK;
    }
    EXERCISE("01.4", relu_forward, tensor_f32(x), tensor_f32(self->output), x->numel);
    *y = self->output;
    return ERR_OK;
}

static int relu_module_backward(Module *self, const Tensor *dy, const Tensor **dx)
{
    if (dy->dtype != DTYPE_F32 || dy->numel != self->output->numel) {
        char a[64], b[64];
        return err_set(ERR_SHAPE, "output gradient has shape %s, expected %s",
                       tensor_shape_str(dy, a, sizeof a),
                       tensor_shape_str(self->output, b, sizeof b));
    }
    if (!dx) return ERR_OK; /* no parameters: nothing to do without dx */
    TRY(exercise_result(tensor_same_device(self->label, dy, self->output),
                        "02.3", "tensor_same_device"));
    TRY(tensor_resize(self->grad_input, self->output->ndim, self->output->shape));
    if (dy->device.kind == DEVICE_CUDA) {
        TRY(backend_relu_backward(dy->device, tensor_f32(self->output), tensor_f32(dy),
                                  tensor_f32(self->grad_input), dy->numel));
        *dx = self->grad_input;
        return ERR_OK;
    }
    EXERCISE("01.5", relu_backward, tensor_f32(self->output), tensor_f32(dy), tensor_f32(self->grad_input),
                      dy->numel);
    *dx = self->grad_input;
    return ERR_OK;
}

static const ModuleOps relu_ops = {
    .kind = "ReLU",
    .forward = relu_module_forward,
    .backward = relu_module_backward,
};

Module *relu_new(const char *name) { return module_alloc(&relu_ops, name); }
