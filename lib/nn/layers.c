/* layers.c: Linear and ReLU modules. The arithmetic is in the exercise
 * functions (linear_forward, ...); this file checks shapes, manages buffers
 * and keeps forward and backward of each layer side by side. */
#include "lib/nn/layers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/nn/amp.h"
#include "lib/core/err.h"

typedef struct LinearImpl {
    int64_t in, out;
    /* Under autocast: dy rounded to half, and dW, db before they join the f32 grads. */
    Tensor *dy_h, *dw_h, *db_h;
} LinearImpl;

/* ---- Linear under autocast (amp.h) ------------------------------------------------
 * What torch.autocast does to a Linear, value for value: x, W and b are cast
 * to half (h = f16 or bf16), y = x_h W_h^T + b_h is accumulated in f32 and
 * stored in half. Backward: the gradient arriving for y is cast to half,
 * dW = dy_h^T x_h and db = sum of dy_h are computed like the forward and
 * cast back to f32 for the f32 master weights' gradients, and dx = dy_h W_h
 * is half. Tensors stay f32 here; "stored in half" means rounded to a
 * value half precision can hold, exactly what a cast would keep. */

static int scratch(Tensor **t, Device d, int ndim, const int64_t *shape)
{
    if (*t && !device_equal((*t)->device, d)) {
        tensor_free(*t);
        *t = NULL;
    }
    if (!*t) {
        *t = tensor_new(DTYPE_F32, d, ndim, shape);
        return *t ? ERR_OK : err_code();
    }
    return tensor_resize(*t, ndim, shape);
}

static int linear_forward_half(Module *self, const Tensor *x, DType h)
{
    const LinearImpl *L = self->impl;
    const BackendOps *ops = tensor_ops(x);
    Device d = x->device;
    int64_t n = x->shape[0];
    float *y = tensor_f32(self->output);
    const float *w = tensor_f32(self->params[0].value), *b = tensor_f32(self->params[1].value);
    TRY(ops->zero(d, y, sizeof(float) * (size_t)(n * L->out)));
    TRY(ops->add_bias(d, y, b, n, L->out)); /* y = b in every row, then b_h */
    TRY(ops->round(d, y, n * L->out, h));
    return ops->gemm_half(d, false, true, n, L->out, L->in, 1.0f, tensor_f32(x), w, 1.0f, y, h);
}

static int linear_backward_half(Module *self, const Tensor *dy, float *dx, DType h)
{
    LinearImpl *L = self->impl;
    const BackendOps *ops = tensor_ops(dy);
    int64_t n = self->input->shape[0];
    Device d = dy->device;
    int64_t ys[2] = {n, L->out}, ws[2] = {L->out, L->in}, bs[1] = {L->out};
    TRY(scratch(&L->dy_h, d, 2, ys));
    TRY(scratch(&L->dw_h, d, 2, ws));
    TRY(scratch(&L->db_h, d, 1, bs));
    const float *x = tensor_f32(self->input), *w = tensor_f32(self->params[0].value);
    float *dyh = tensor_f32(L->dy_h), *dwh = tensor_f32(L->dw_h), *dbh = tensor_f32(L->db_h);
    float *gw = tensor_f32(self->params[0].grad), *gb = tensor_f32(self->params[1].grad);
    TRY(tensor_copy(L->dy_h, dy));
    TRY(ops->round(d, dyh, n * L->out, h));
    if (ops->count_flushed) { /* gradients that rounding turned into zeros */
        int64_t lost = 0;
        TRY(ops->count_flushed(d, tensor_f32(dy), dyh, n * L->out, &lost));
        amp_stats_add(n * L->out, lost);
    }
    TRY(ops->gemm_half(d, true, false, L->out, L->in, n, 1.0f, dyh, x, 0.0f, dwh, h));
    TRY(ops->zero(d, dbh, sizeof(float) * (size_t)L->out)); /* f32 sums of a half tensor */
    TRY(ops->sum_columns_add(d, dyh, dbh, n, L->out));
    TRY(ops->round(d, dbh, L->out, h));
    TRY(ops->add(d, gw, dwh, L->out * L->in)); /* the f32 gradients += the half ones */
    TRY(ops->add(d, gb, dbh, L->out));
    if (dx) TRY(ops->gemm_half(d, false, false, n, L->in, L->out, 1.0f, dyh, w, 0.0f, dx, h));
    return ERR_OK;
}

static int linear_module_forward(Module *self, const Tensor *x, const Tensor **y)
{
    const LinearImpl *L = self->impl;
    TRY(tensor_check_2d(x, DTYPE_F32, 0, L->in, "", "input"));
    TRY(tensor_check_same_device(self->label, x, self->params[0].value));
    int64_t n = x->shape[0];
    int64_t shape[2] = {n, L->out}; // y: (n, out)
    TRY(tensor_resize(self->output, 2, shape));
    self->input = x;
    if (amp_autocast() != DTYPE_F32)
        TRY(linear_forward_half(self, x, amp_autocast()));
    else
        TRY(tensor_ops(x)->linear_forward(x->device, tensor_f32(x),
                                          tensor_f32(self->params[0].value),
                                          tensor_f32(self->params[1].value),
                                          tensor_f32(self->output), n, L->in, L->out));
    *y = self->output;
    return ERR_OK;
}

static int linear_module_backward(Module *self, const Tensor *dy, const Tensor **dx)
{
    const LinearImpl *L = self->impl;
    int64_t n = self->input->shape[0];
    TRY(tensor_check_2d(dy, DTYPE_F32, n, L->out, "", "output gradient"));
    TRY(tensor_check_same_device(self->label, dy, self->params[0].value));
    float *dx_data = NULL;
    if (dx) {
        int64_t shape[2] = {n, L->in}; // dx: (n, in)
        TRY(tensor_resize(self->grad_input, 2, shape));
        dx_data = tensor_f32(self->grad_input);
    }
    if (amp_autocast() != DTYPE_F32)
        TRY(linear_backward_half(self, dy, dx_data, amp_autocast()));
    else
        TRY(tensor_ops(dy)->linear_backward(
            dy->device, tensor_f32(self->input), tensor_f32(self->params[0].value),
            tensor_f32(dy), dx_data, tensor_f32(self->params[0].grad),
            tensor_f32(self->params[1].grad), n, L->in, L->out));
    if (dx) *dx = self->grad_input;
    return ERR_OK;
}

static void linear_extra_repr(const Module *self, char *buf, size_t size)
{
    const LinearImpl *L = self->impl;
    snprintf(buf, size, "in_features=%lld, out_features=%lld, bias=True", (long long)L->in,
             (long long)L->out);
}

static void linear_destroy(Module *self)
{
    LinearImpl *L = self->impl;
    if (L) tensor_free(L->dy_h), tensor_free(L->dw_h), tensor_free(L->db_h);
    free(L);
}

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
    L->dy_h = L->dw_h = L->db_h = NULL;
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
    if (tensor_uniform(w->value, rng, -bound, bound) != ERR_OK ||
        tensor_uniform(b->value, rng, -bound, bound) != ERR_OK) {
        module_free(m);
        return NULL;
    }
    return m;
}

static int relu_module_forward(Module *self, const Tensor *x, const Tensor **y)
{
    if (x->dtype != DTYPE_F32)
        return err_set(ERR_SHAPE, "input has dtype %s, expected float32",
                       dtype_name(x->dtype));
    TRY(tensor_check_same_device(self->label, x, self->output));
    TRY(tensor_resize(self->output, x->ndim, x->shape));
    self->input = x;
    TRY(tensor_ops(x)->relu_forward(x->device, tensor_f32(x), tensor_f32(self->output),
                                    x->numel));
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
    TRY(tensor_check_same_device(self->label, dy, self->output));
    TRY(tensor_resize(self->grad_input, self->output->ndim, self->output->shape));
    TRY(tensor_ops(dy)->relu_backward(dy->device, tensor_f32(self->output), tensor_f32(dy),
                                      tensor_f32(self->grad_input), dy->numel));
    *dx = self->grad_input;
    return ERR_OK;
}

static const ModuleOps relu_ops = {
    .kind = "ReLU",
    .forward = relu_module_forward,
    .backward = relu_module_backward,
};

Module *relu_new(const char *name) { return module_alloc(&relu_ops, name); }

Module *mlp_new(const char *name, int64_t in, const int64_t *hidden, int n_hidden, int64_t out,
                Rng *rng)
{
    if (n_hidden < 0 || n_hidden > MLP_MAX_HIDDEN) {
        err_set(ERR_ARG, "mlp %s: %d hidden layers; 0 to %d are supported", name ? name : "",
                n_hidden, MLP_MAX_HIDDEN);
        return NULL;
    }
    Module *layers[2 * MLP_MAX_HIDDEN + 1];
    int n = 0;
    int64_t width = in;
    for (int i = 0; i <= n_hidden; i++) {
        char fc[16], act[16];
        snprintf(fc, sizeof fc, "fc%d", i + 1);
        int64_t next = i < n_hidden ? hidden[i] : out;
        layers[n++] = linear_new(fc, width, next, rng);
        if (i < n_hidden) {
            snprintf(act, sizeof act, "relu%d", i + 1);
            layers[n++] = relu_new(act);
        }
        width = next;
    }
    return sequential_new(name, n, layers); /* frees them all if one failed */
}
