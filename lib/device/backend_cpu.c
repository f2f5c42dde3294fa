/* backend_cpu.c: the CPU's table of ops (backend.h). Plain C on host memory;
 * where an op is one of the students' exercises (Lesson 01's layers, loss and
 * SGD step, Lesson 05's clipping), the op is the exercise. The loops here
 * repeat PyTorch's CPU operations in order (optimizers: fused multiply-adds
 * where PyTorch's `add(..., alpha=)` has them), so results match its runs. */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"
#include "lib/core/half.h"
#include "lib/device/backend.h"
#include "lib/device/device.h"
#include "lib/device/cpu_kernels.h"

#define CPU_ALIGN 64 /* a cache line, and an AVX-512 register */

static int no_such_thing(const char *what)
{
    return err_set(ERR_UNSUPPORTED, "cpu: %s is a GPU thing; there is none on the CPU", what);
}

/* ---- the device ---------------------------------------------------------------- */

static int cpu_device_count(int *count)
{
    *count = 1;
    return ERR_OK;
}

static int cpu_device_info(int index, DeviceInfo *info)
{
    (void)index, (void)info;
    return err_set(ERR_DEVICE, "the CPU is not a CUDA device: lscpu, or cpuinfo_read(), "
                               "describes it");
}

static int cpu_synchronize(Device d)
{
    (void)d;
    return ERR_OK; /* nothing is queued on the CPU, and nothing is counted */
}

/* ---- memory ---------------------------------------------------------------------- */

static int cpu_alloc(Device d, size_t bytes, void **ptr)
{
    (void)d;
    size_t rounded = (bytes + CPU_ALIGN - 1) / CPU_ALIGN * CPU_ALIGN;
    *ptr = aligned_alloc(CPU_ALIGN, rounded ? rounded : CPU_ALIGN);
    if (!*ptr) return err_set(ERR_NOMEM, "cpu: out of memory allocating %zu bytes", bytes);
    return ERR_OK;
}

static void cpu_free(Device d, void *ptr, size_t bytes)
{
    (void)d, (void)bytes;
    free(ptr);
}

static int cpu_zero(Device d, void *p, size_t bytes)
{
    (void)d;
    if (bytes) memset(p, 0, bytes);
    return ERR_OK;
}

static int cpu_copy(void *dst, Device to, const void *src, Device from, size_t bytes)
{
    (void)to, (void)from;
    if (bytes) memcpy(dst, src, bytes);
    return ERR_OK;
}

static int cpu_host_alloc(Device d, size_t bytes, void **ptr) { return cpu_alloc(d, bytes, ptr); }

static void cpu_host_free(Device d, void *ptr) { cpu_free(d, ptr, 0); }

/* ---- a network's operations -------------------------------------------------------- */

static int cpu_linear_forward(Device d, const float *x, const float *w, const float *b,
                              float *y, int64_t n, int64_t in, int64_t out)
{
    (void)d;
    EXERCISE("01.2", linear_forward, x, w, b, y, n, in, out);
    return ERR_OK;
}

static int cpu_linear_backward(Device d, const float *x, const float *w, const float *dy,
                               float *dx, float *dw, float *db, int64_t n, int64_t in,
                               int64_t out)
{
    (void)d;
    EXERCISE("01.3", linear_backward, x, w, dy, dx, dw, db, n, in, out);
    return ERR_OK;
}

static int cpu_relu_forward(Device d, const float *x, float *y, int64_t n)
{
    (void)d;
    EXERCISE("01.4", relu_forward, x, y, n);
    return ERR_OK;
}

static int cpu_relu_backward(Device d, const float *y, const float *dy, float *dx, int64_t n)
{
    (void)d;
    EXERCISE("01.5", relu_backward, y, dy, dx, n);
    return ERR_OK;
}

/* Labels must be 0..c-1: the CPU can look before the exercise reads them. */
static int check_targets(const int32_t *t, int64_t n, int64_t c)
{
    int bad = 0;
    for (int64_t i = 0; i < n; i++) bad |= (t[i] < 0) | (t[i] >= c); /* no early exit: SIMD */
    if (!bad) return ERR_OK;
    for (int64_t i = 0; i < n; i++) /* find the first bad row for the message */
        if (t[i] < 0 || t[i] >= c)
            return err_set(ERR_ARG, "cross_entropy: target %d in row %lld is out of bounds "
                                    "(the logits have %lld classes, so labels must be 0..%lld)",
                           t[i], (long long)i, (long long)c, (long long)(c - 1));
    return ERR_OK;
}

static int cpu_softmax_ce_forward(Device d, const float *logits, const int32_t *targets,
                                  float *probs, float *loss, int64_t n, int64_t c)
{
    (void)d;
    TRY(check_targets(targets, n, c));
    EXERCISE("01.6", cross_entropy_forward, logits, targets, probs, loss, n, c);
    return ERR_OK;
}

static int cpu_softmax_ce_backward(Device d, const float *probs, const int32_t *targets,
                                   float *dlogits, int64_t n, int64_t c)
{
    (void)d;
    EXERCISE("01.7", cross_entropy_backward, probs, targets, dlogits, n, c);
    return ERR_OK;
}

static int cpu_sgd_step(Device d, float *p, const float *g, int64_t n, float lr)
{
    (void)d;
    EXERCISE("01.8", sgd_step, p, g, n, lr);
    return ERR_OK;
}

/* The operations of this file that compute what an exercise of Lesson 01 computes (a
 * product, a bias, an optimizer step) have external linkage, so that the grader can leave
 * them out of that lesson's runner (tests/graded/allow/01.txt, "withhold"); nothing
 * calls them by name. */

/* torch.optim.SGD's update of one tensor: p, g, buf (n); buf unused without momentum. */
int cpu_sgd_momentum_step(Device d, float *restrict p, const float *restrict g,
                          float *restrict buf, int64_t n, float lr, float momentum,
                          float weight_decay, bool nesterov, bool first)
{
    (void)d;
    for (int64_t i = 0; i < n; i++) {
        float di = g[i];
        if (weight_decay != 0.0f) di = fmaf(weight_decay, p[i], di); /* grad.add(p, alpha=wd) */
        if (momentum != 0.0f) {
            float b = first ? di : buf[i] * momentum + di; /* buf.mul_(m).add_(d) */
            buf[i] = b;
            di = nesterov ? fmaf(momentum, b, di) : b; /* d.add(buf, alpha=m) */
        }
        p[i] = fmaf(-lr, di, p[i]); /* p.add_(d, alpha=-lr) */
    }
    return ERR_OK;
}

/* torch.optim.Adam's update of one tensor: p, g, m (exp_avg), v (exp_avg_sq) (n). */
int cpu_adam_step(Device d, float *restrict p, const float *restrict g, float *restrict m,
                  float *restrict v, int64_t n, const AdamStep *a)
{
    (void)d;
    for (int64_t i = 0; i < n; i++) {
        float di = g[i];
        if (a->weight_decay != 0.0f) di = fmaf(a->weight_decay, p[i], di);
        float mi = fmaf(a->one_minus_beta1, di, m[i] * a->beta1); /* m.mul_(b1).add_(d, 1-b1) */
        float vi = fmaf(a->one_minus_beta2 * di, di, v[i] * a->beta2); /* v.mul_(b2).addcmul_ */
        m[i] = mi;
        v[i] = vi;
        float denom = sqrtf(vi) / a->bias_correction2_sqrt + a->eps;
        p[i] = p[i] + a->neg_step_size * mi / denom; /* p.addcdiv_(m, denom, value=-step_size) */
    }
    return ERR_OK;
}

static int cpu_clip_grad_norm(Device d, float *const *grads, const int64_t *sizes, int n,
                              float max_norm, float *total_norm)
{
    (void)d;
    float total = 0.0f;
    EXERCISE("05.2", clip_grad_norm_scale, grads, sizes, n, max_norm, &total);
    if (total_norm) *total_norm = total;
    return ERR_OK;
}

static int cpu_copy_rows(Device d, const float *src, int64_t src_rows, int64_t src_start,
                         float *dst, int64_t dst_rows, int64_t dst_start, int64_t count,
                         int64_t cols)
{
    (void)d;
    if (count > 0)
        for (int64_t j = 0; j < cols; j++) /* column j: contiguous in both */
            memcpy(dst + j * dst_rows + dst_start, src + j * src_rows + src_start,
                   (size_t)count * sizeof(float));
    return ERR_OK;
}

/* ---- mixed precision and the trainer's sums --------------------------------------- */

int cpu_add_bias(Device d, float *y, const float *b, int64_t n, int64_t cols)
{
    (void)d;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < n; i++) y[i + j * n] += b[j];
    return ERR_OK;
}

int cpu_sum_columns_add(Device d, const float *x, float *out, int64_t rows, int64_t cols)
{
    (void)d;
    for (int64_t j = 0; j < cols; j++) {
        float sum = 0.0f; /* in order, in float, as the f32 accumulation of a half tensor */
        for (int64_t i = 0; i < rows; i++) sum += x[i + j * rows];
        out[j] += sum;
    }
    return ERR_OK;
}

static int cpu_add(Device d, float *y, const float *x, int64_t n)
{
    (void)d;
    for (int64_t i = 0; i < n; i++) y[i] += x[i];
    return ERR_OK;
}

static int cpu_scale(Device d, float *p, int64_t n, float f)
{
    (void)d;
    for (int64_t i = 0; i < n; i++) p[i] *= f;
    return ERR_OK;
}

static int cpu_accumulate(Device d, float *acc, const float *x, float w)
{
    (void)d;
    acc[0] += w * x[0];
    return ERR_OK;
}

static int cpu_sum(Device d, const float *x, int64_t n, float *out, bool deterministic)
{
    (void)d, (void)deterministic; /* one thread, one order: always the same bits */
    float sum = 0.0f;
    for (int64_t i = 0; i < n; i++) sum += x[i];
    *out = sum;
    return ERR_OK;
}

static int cpu_round(Device d, float *p, int64_t n, DType half)
{
    (void)d;
    return half_round(p, n, half);
}

int cpu_gemm_half(Device d, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                  float alpha, const float *A, const float *B, float beta, float *C,
                  DType half)
{
    (void)d;
    return half_gemm(ta, tb, m, n, k, alpha, A, ta ? k : m, B, tb ? n : k, beta, C, m, half,
                     half);
}

static int cpu_count_flushed(Device d, const float *before, const float *after, int64_t n,
                             int64_t *lost)
{
    (void)d;
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++) count += after[i] == 0.0f && before[i] != 0.0f;
    *lost = count;
    return ERR_OK;
}

static _Thread_local bool g_found_inf; /* unscale's flag, read by unscale_result */

static int cpu_unscale(Device d, float *g, int64_t n, float inv_scale)
{
    (void)d;
    int bad = 0;
    for (int64_t k = 0; k < n; k++) {
        g[k] *= inv_scale;
        bad |= !isfinite(g[k]);
    }
    g_found_inf |= bad != 0;
    return ERR_OK;
}

static int cpu_unscale_result(Device d, bool *found_inf)
{
    (void)d;
    *found_inf = g_found_inf;
    g_found_inf = false;
    return ERR_OK;
}

/* ---- matrix products, and what only a GPU has ------------------------------------- */

int cpu_gemm(Device d, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
             const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
             float *C, int64_t ldc)
{
    (void)d;
    cblas_sgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                (int)m, (int)n, (int)k, alpha, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
    return ERR_OK;
}

static int cpu_sgemm_kernel(Device d, int variant, const float *A, const float *B, float *C,
                            int64_t m, int64_t n, int64_t k)
{
    (void)d, (void)variant, (void)A, (void)B, (void)C, (void)m, (void)n, (void)k;
    return no_such_thing("a CUDA SGEMM kernel");
}

static const char *cpu_sgemm_name(int variant)
{
    (void)variant;
    return NULL; /* the CPU has OpenBLAS's, not ours */
}

static int cpu_empty_kernel(Device d)
{
    (void)d;
    return no_such_thing("a kernel launch");
}

static int cpu_copy_async(Device d, void *dst, const void *src, size_t bytes)
{
    (void)d, (void)dst, (void)src, (void)bytes;
    return no_such_thing("an asynchronous copy to a GPU");
}

static int cpu_copy_wait(Device d)
{
    (void)d;
    return no_such_thing("a copy stream");
}

static int cpu_capture_begin(Device d)
{
    (void)d;
    return no_such_thing("a CUDA Graph");
}

static bool cpu_capturing(Device d)
{
    (void)d;
    return false;
}

static int cpu_capture_end(Device d, BackendGraph **graph)
{
    (void)d;
    *graph = NULL;
    return no_such_thing("a CUDA Graph");
}

static size_t cpu_graph_nodes(const BackendGraph *graph)
{
    (void)graph;
    return 0;
}

static int cpu_graph_launch(BackendGraph *graph)
{
    (void)graph;
    return no_such_thing("a CUDA Graph");
}

static void cpu_graph_free(BackendGraph *graph) { (void)graph; }

static int cpu_mlp_train_fused(Device d, const float *x, const int32_t *y, int64_t n,
                               int64_t din, int64_t h, int64_t c, float *w1, float *b1,
                               float *w2, float *b2, long epochs, float lr, float *losses)
{
    (void)d, (void)x, (void)y, (void)n, (void)din, (void)h, (void)c, (void)w1, (void)b1;
    (void)w2, (void)b2, (void)epochs, (void)lr, (void)losses;
    return no_such_thing("a fused training kernel");
}

const BackendOps backend_cpu = {
    .name = "CPU",
    .host_memory = true,
    .device_count = cpu_device_count,
    .device_info = cpu_device_info,
    .synchronize = cpu_synchronize,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .zero = cpu_zero,
    .copy = cpu_copy,
    .host_alloc = cpu_host_alloc,
    .host_free = cpu_host_free,
    .linear_forward = cpu_linear_forward,
    .linear_backward = cpu_linear_backward,
    .relu_forward = cpu_relu_forward,
    .relu_backward = cpu_relu_backward,
    .softmax_ce_forward = cpu_softmax_ce_forward,
    .softmax_ce_backward = cpu_softmax_ce_backward,
    .sgd_step = cpu_sgd_step,
    .sgd_momentum_step = cpu_sgd_momentum_step,
    .adam_step = cpu_adam_step,
    .clip_grad_norm = cpu_clip_grad_norm,
    .copy_rows = cpu_copy_rows,
    .add_bias = cpu_add_bias,
    .sum_columns_add = cpu_sum_columns_add,
    .add = cpu_add,
    .scale = cpu_scale,
    .accumulate = cpu_accumulate,
    .sum = cpu_sum,
    .round = cpu_round,
    .gemm_half = cpu_gemm_half,
    .count_flushed = cpu_count_flushed,
    .unscale = cpu_unscale,
    .unscale_result = cpu_unscale_result,
    .gemm = cpu_gemm,
    .sgemm_kernel = cpu_sgemm_kernel,
    .sgemm_name = cpu_sgemm_name,
    .empty_kernel = cpu_empty_kernel,
    .copy_async = cpu_copy_async,
    .copy_wait = cpu_copy_wait,
    .capture_begin = cpu_capture_begin,
    .capturing = cpu_capturing,
    .capture_end = cpu_capture_end,
    .graph_nodes = cpu_graph_nodes,
    .graph_launch = cpu_graph_launch,
    .graph_free = cpu_graph_free,
    .mlp_train_fused = cpu_mlp_train_fused,
};
