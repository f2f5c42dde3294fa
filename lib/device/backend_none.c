/* backend_none.c: the backend of a build without CUDA (nvcc was not found).
 * Every GPU request gets one clear line; the CPU code does not notice. */
#include "lib/device/backend.h"

#include "lib/core/err.h"

static int no_cuda(void)
{
    return err_set(ERR_DEVICE, "this build has no CUDA backend (nvcc was not found when it was "
                               "built): use \"cpu\", or install the CUDA toolkit and rebuild");
}

const char *backend_name(void) { return "none"; }

int backend_device_count(int *count)
{
    *count = 0;
    return no_cuda();
}

int backend_device_info(int index, DeviceInfo *info)
{
    (void)index, (void)info;
    return no_cuda();
}

int backend_alloc(Device d, size_t bytes, void **ptr)
{
    (void)d, (void)bytes;
    *ptr = NULL;
    return no_cuda();
}

void backend_free(Device d, void *ptr, size_t bytes) { (void)d, (void)ptr, (void)bytes; }

int backend_copy(void *dst, Device to, const void *src, Device from, size_t bytes)
{
    (void)dst, (void)to, (void)src, (void)from, (void)bytes;
    return no_cuda();
}

int backend_zero(Device d, void *p, size_t bytes)
{
    (void)d, (void)p, (void)bytes;
    return no_cuda();
}

int backend_synchronize(Device d)
{
    (void)d;
    return no_cuda();
}

int backend_gemm(Device d, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                 const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                 int64_t ldc)
{
    (void)d, (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)lda;
    (void)B, (void)ldb, (void)beta, (void)C, (void)ldc;
    return no_cuda();
}

int backend_sgemm_kernel(Device d, int variant, const float *A, const float *B, float *C,
                         int64_t m, int64_t n, int64_t k)
{
    (void)d, (void)variant, (void)A, (void)B, (void)C, (void)m, (void)n, (void)k;
    return no_cuda();
}

const char *backend_sgemm_name(int variant)
{
    static const char *const names[] = {"naive", "tiled (shared memory)", "register-blocked 4x4"};
    return variant >= 0 && variant < 3 ? names[variant] : NULL;
}

int backend_add_bias(Device d, float *y, const float *b, int64_t n, int64_t cols)
{
    (void)d, (void)y, (void)b, (void)n, (void)cols;
    return no_cuda();
}

int backend_sum_columns_add(Device d, const float *x, float *out, int64_t rows, int64_t cols)
{
    (void)d, (void)x, (void)out, (void)rows, (void)cols;
    return no_cuda();
}

int backend_relu_forward(Device d, const float *x, float *y, int64_t n)
{
    (void)d, (void)x, (void)y, (void)n;
    return no_cuda();
}

int backend_relu_backward(Device d, const float *y, const float *dy, float *dx, int64_t n)
{
    (void)d, (void)y, (void)dy, (void)dx, (void)n;
    return no_cuda();
}

int backend_softmax_ce_forward(Device d, const float *logits, const int32_t *targets,
                               float *probs, float *loss, int64_t n, int64_t c)
{
    (void)d, (void)logits, (void)targets, (void)probs, (void)loss, (void)n, (void)c;
    return no_cuda();
}

int backend_softmax_ce_backward(Device d, const float *probs, const int32_t *targets,
                                float *dlogits, int64_t n, int64_t c)
{
    (void)d, (void)probs, (void)targets, (void)dlogits, (void)n, (void)c;
    return no_cuda();
}

int backend_sgd_step(Device d, float *p, const float *g, int64_t n, float lr)
{
    (void)d, (void)p, (void)g, (void)n, (void)lr;
    return no_cuda();
}

int backend_copy_rows(Device d, const float *src, int64_t src_rows, int64_t src_start,
                      float *dst, int64_t dst_rows, int64_t dst_start, int64_t count,
                      int64_t cols)
{
    (void)d, (void)src, (void)src_rows, (void)src_start, (void)dst, (void)dst_rows;
    (void)dst_start, (void)count, (void)cols;
    return no_cuda();
}

int backend_empty_kernel(Device d)
{
    (void)d;
    return no_cuda();
}

int backend_host_alloc(size_t bytes, void **ptr)
{
    (void)bytes;
    *ptr = NULL;
    return no_cuda();
}

void backend_host_free(void *ptr) { (void)ptr; }

int backend_copy_async(Device d, void *dst, const void *src, size_t bytes)
{
    (void)d, (void)dst, (void)src, (void)bytes;
    return no_cuda();
}

int backend_copy_wait(Device d)
{
    (void)d;
    return no_cuda();
}

bool backend_capturing(Device d)
{
    (void)d;
    return false;
}

int backend_capture_begin(Device d)
{
    (void)d;
    return no_cuda();
}

int backend_capture_end(Device d, BackendGraph **graph)
{
    (void)d;
    *graph = NULL;
    return no_cuda();
}

size_t backend_graph_nodes(const BackendGraph *graph)
{
    (void)graph;
    return 0;
}

int backend_graph_launch(BackendGraph *graph)
{
    (void)graph;
    return no_cuda();
}

void backend_graph_free(BackendGraph *graph) { (void)graph; }

int backend_mlp_train_fused(Device d, const float *x, const int32_t *y, int64_t n, int64_t din,
                            int64_t h, int64_t c, float *w1, float *b1, float *w2, float *b2,
                            long epochs, float lr, float *losses)
{
    (void)d, (void)x, (void)y, (void)n, (void)din, (void)h, (void)c, (void)w1, (void)b1;
    (void)w2, (void)b2, (void)epochs, (void)lr, (void)losses;
    return no_cuda();
}

/* ---- Optimizers and gradient clipping ------------------------------------- */

int backend_sgd_momentum_step(Device d, float *p, const float *g, float *buf, int64_t n, float lr,
                              float momentum, float weight_decay, bool nesterov, bool first)
{
    (void)d, (void)p, (void)g, (void)buf, (void)n, (void)lr, (void)momentum, (void)weight_decay;
    (void)nesterov, (void)first;
    return no_cuda();
}

int backend_adam_step(Device d, float *p, const float *g, float *m, float *v, int64_t n,
                      float beta1, float beta2, float one_minus_beta1, float one_minus_beta2,
                      float neg_step_size, float bias_correction2_sqrt, float eps,
                      float weight_decay)
{
    (void)d, (void)p, (void)g, (void)m, (void)v, (void)n, (void)beta1, (void)beta2;
    (void)one_minus_beta1, (void)one_minus_beta2, (void)neg_step_size;
    (void)bias_correction2_sqrt, (void)eps, (void)weight_decay;
    return no_cuda();
}

int backend_clip_grad_norm(Device d, float *const *grads, const int64_t *sizes, int n,
                           float max_norm, float *total_norm)
{
    (void)d, (void)grads, (void)sizes, (void)n, (void)max_norm, (void)total_norm;
    return no_cuda();
}

int backend_scale(Device d, float *p, int64_t n, float f)
{
    (void)d, (void)p, (void)n, (void)f;
    return no_cuda();
}

int backend_accumulate(Device d, float *acc, const float *x, float w)
{
    (void)d, (void)acc, (void)x, (void)w;
    return no_cuda();
}

int backend_unscale(Device d, float *g, int64_t n, float inv_scale)
{
    (void)d, (void)g, (void)n, (void)inv_scale;
    return no_cuda();
}

int backend_unscale_result(Device d, bool *found_inf)
{
    (void)d;
    *found_inf = false;
    return no_cuda();
}

int backend_gemm_half(Device d, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                      const float *A, const float *B, float beta, float *C, DType half)
{
    (void)d, (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)B;
    (void)beta, (void)C, (void)half;
    return no_cuda();
}

int backend_round(Device d, float *p, int64_t n, DType half)
{
    (void)d, (void)p, (void)n, (void)half;
    return no_cuda();
}

int backend_sum(Device d, const float *x, int64_t n, float *out, bool deterministic)
{
    (void)d, (void)x, (void)n, (void)out, (void)deterministic;
    return no_cuda();
}
