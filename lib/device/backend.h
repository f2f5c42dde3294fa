/**
 * @file backend.h
 * @brief A device is a table of ops: what lib asks of the CPU or of a GPU.
 *
 * Each kind of device has one ::BackendOps table: the CPU's (backend_cpu.c,
 * plain C, which calls the students' exercises where they are the operation)
 * and CUDA's (backend_cuda.c: the CUDA runtime, cuBLAS and the kernels of
 * kernels/, built against a real GPU's headers or the CUDA simulator's).
 * Layers, losses, optimizers and the trainer are written once: they take the
 * table of their tensors' device, `tensor_ops(x)->relu_forward(...)`, and
 * never ask which kind of device they run on. Only the device layer does.
 *
 * Pointers are memory of the device @p d each op is given; matrices are
 * column-major, so BLAS and cuBLAS take them as they are. Every op that can
 * fail returns an ::ErrCode with a message naming the operation and, on a
 * GPU, CUDA's error (on the simulator, its report: kernel, block, thread).
 * On a GPU, launches and syncs are counted (counters.h); ops are queued, not
 * waited for, unless they say so. An op that has no meaning on a device (a
 * CUDA Graph on the CPU) returns ::ERR_UNSUPPORTED and says why.
 */
#ifndef WB_BACKEND_H
#define WB_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/core/dtype.h"
#include "lib/device/device.h"

/** A CUDA Graph: a recorded sequence of GPU work, replayed with one launch. */
typedef struct BackendGraph BackendGraph;

/** Adam's per-step scalars, worked out in double by the optimizer (optim.c). */
typedef struct AdamStep {
    float beta1;                 /**< the decay rate of the first moment */
    float beta2;                 /**< the decay rate of the second moment */
    float one_minus_beta1;       /**< 1 - beta1, worked out in double */
    float one_minus_beta2;       /**< 1 - beta2, worked out in double */
    float neg_step_size;         /**< -lr / bias_correction1 */
    float bias_correction2_sqrt; /**< sqrt(1 - beta2^t) */
    float eps;                   /**< added to the denominator */
    float weight_decay;          /**< L2 penalty added to the gradient */
} AdamStep;

/** The operations of one kind of device. */
typedef struct BackendOps {
    const char *name; /**< "CPU", "CUDA" or "CUDA simulator" */
    /**
     * The device's memory is the host's: the CPU reads it directly, and reading it
     * waits for nothing. Code above the device layer asks this, never the kind, where
     * a strategy depends on it (reading a loss every step, or summing on the device).
     */
    bool host_memory;

    /* ---- the devices of this kind ---------------------------------------- */

    /** How many devices of this kind the program sees (::ERR_DEVICE, saying why, for none). */
    int (*device_count)(int *count);
    /** The facts of visible device @p index (DeviceInfo::physical is filled by the caller). */
    int (*device_info)(int index, DeviceInfo *info);
    /** Wait until @p d has finished all its work (a sync, on a GPU). */
    int (*synchronize)(Device d);

    /* ---- memory ------------------------------------------------------------- */

    /** Allocate @p bytes on @p d, not zeroed (::ERR_NOMEM names the request and the fix). */
    int (*alloc)(Device d, size_t bytes, void **ptr);
    /** Release memory from alloc (NULL is allowed). */
    void (*free)(Device d, void *ptr, size_t bytes);
    /** Set @p bytes at @p p to zero. */
    int (*zero)(Device d, void *p, size_t bytes);
    /**
     * Copy @p bytes from @p src on @p from to @p dst on @p to, where one of the two
     * devices is of this kind and the other is this kind or the CPU (the device layer
     * picks the table: device_copy()). A copy to the CPU waits for the device.
     */
    int (*copy)(void *dst, Device to, const void *src, Device from, size_t bytes);
    /** Host memory for fast copies to @p d: pinned (cudaMallocHost) on a GPU. */
    int (*host_alloc)(Device d, size_t bytes, void **ptr);
    /** Release memory from host_alloc (NULL is allowed). */
    void (*host_free)(Device d, void *ptr);

    /* ---- a network's operations (the layers, the loss, the optimizers) -------- */

    /** Linear forward: y (n, out) = x (n, in) w^T + b; w is (out, in). Exercise 01.2 on the CPU. */
    int (*linear_forward)(Device d, const float *x, const float *w, const float *b, float *y,
                          int64_t n, int64_t in, int64_t out);
    /** Linear backward: dw += dy^T x, db += column sums of dy, and dx = dy w unless NULL (01.3). */
    int (*linear_backward)(Device d, const float *x, const float *w, const float *dy, float *dx,
                           float *dw, float *db, int64_t n, int64_t in, int64_t out);
    /** y = max(x, 0) over @p n values (01.4 on the CPU, 02.4's kernel on a GPU). */
    int (*relu_forward)(Device d, const float *x, float *y, int64_t n);
    /** dx = dy where y > 0, else 0 (01.5 on the CPU). */
    int (*relu_backward)(Device d, const float *y, const float *dy, float *dx, int64_t n);
    /**
     * Softmax probabilities (n, c) and the mean cross-entropy into @p loss (one float
     * on @p d); labels out of 0..c-1 are an ::ERR_ARG where the device can check (01.6).
     */
    int (*softmax_ce_forward)(Device d, const float *logits, const int32_t *targets,
                              float *probs, float *loss, int64_t n, int64_t c);
    /** dlogits = (probs - onehot) / n (01.7 on the CPU). */
    int (*softmax_ce_backward)(Device d, const float *probs, const int32_t *targets,
                               float *dlogits, int64_t n, int64_t c);
    /** p -= lr g over @p n values (01.8 on the CPU). */
    int (*sgd_step)(Device d, float *p, const float *g, int64_t n, float lr);
    /**
     * One `torch.optim.SGD` step with momentum, weight decay and Nesterov on @p n values;
     * @p first says that the momentum buffer @p buf is not set yet.
     */
    int (*sgd_momentum_step)(Device d, float *p, const float *g, float *buf, int64_t n,
                             float lr, float momentum, float weight_decay, bool nesterov,
                             bool first);
    /** One `torch.optim.Adam` step on @p n values: p, g, exp_avg @p m, exp_avg_sq @p v. */
    int (*adam_step)(Device d, float *p, const float *g, float *m, float *v, int64_t n,
                     const AdamStep *a);
    /**
     * Clip @p n gradient arrays together to the 2-norm @p max_norm (05.2 on the CPU);
     * the norm into @p total_norm unless NULL (on a GPU: one sync, else none).
     */
    int (*clip_grad_norm)(Device d, float *const *grads, const int64_t *sizes, int n,
                          float max_norm, float *total_norm);
    /**
     * Copy rows [@p src_start, + @p count) of @p src (src_rows, cols) to the rows from
     * @p dst_start of @p dst (dst_rows, cols).
     */
    int (*copy_rows)(Device d, const float *src, int64_t src_rows, int64_t src_start,
                     float *dst, int64_t dst_rows, int64_t dst_start, int64_t count,
                     int64_t cols);
    /** out (cols, rows) = x (rows, cols) transposed. Exercise 03.4 on a GPU (k_transpose). */
    int (*transpose)(Device d, const float *x, float *out, int64_t rows, int64_t cols);

    /* ---- mixed precision and the trainer's sums --------------------------------- */

    /** y(i, j) += b(j) for y (n, cols). */
    int (*add_bias)(Device d, float *y, const float *b, int64_t n, int64_t cols);
    /** out(j) += sum over i of x(i, j) for x (rows, cols). */
    int (*sum_columns_add)(Device d, const float *x, float *out, int64_t rows, int64_t cols);
    /** y += x over @p n values. */
    int (*add)(Device d, float *y, const float *x, int64_t n);
    /** p *= f over @p n values. */
    int (*scale)(Device d, float *p, int64_t n, float f);
    /** acc[0] += w * x[0]: a batch's loss added to the epoch's sum. */
    int (*accumulate)(Device d, float *acc, const float *x, float w);
    /**
     * *out = the sum of @p n floats at @p x, in a fixed order when @p deterministic
     * (on a GPU otherwise with atomics, whose last bits can change from run to run).
     */
    int (*sum)(Device d, const float *x, int64_t n, float *out, bool deterministic);
    /** Round @p n floats in place through @p half (f16 or bf16) and back. */
    int (*round)(Device d, float *p, int64_t n, DType half);
    /**
     * C = alpha op(A) op(B) + beta C with A and B rounded to @p half for the product, f32
     * accumulation, C rounded to @p half (cublasGemmEx; half_gemm() on the CPU).
     */
    int (*gemm_half)(Device d, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                     const float *A, const float *B, float beta, float *C, DType half);
    /**
     * How many of @p n gradients rounding to half made zero (@p before nonzero, @p after
     * zero), into *@p lost: the underflow a GradScaler prevents. NULL where a device
     * does not count them.
     */
    int (*count_flushed)(Device d, const float *before, const float *after, int64_t n,
                         int64_t *lost);
    /**
     * GradScaler's unscale of one gradient: g *= inv_scale, noting any inf or NaN (into
     * the flag read by unscale_result).
     */
    int (*unscale)(Device d, float *g, int64_t n, float inv_scale);
    /** Read and clear the flag of unscale (on a GPU: one 4-byte copy back, a sync). */
    int (*unscale_result)(Device d, bool *found_inf);

    /* ---- matrix products (Lesson 02) and what only a GPU has (Lesson 03) -------- */

    /** C = alpha op(A) op(B) + beta C (BLAS, cuBLAS). op(A) is (m, k), op(B) (k, n). */
    int (*gemm)(Device d, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                int64_t ldc);
    /** C = A B with the workbook's own SGEMM kernel @p variant (kernels/sgemm.cu). */
    int (*sgemm_kernel)(Device d, int variant, const float *A, const float *B, float *C,
                        int64_t m, int64_t n, int64_t k);
    /** The name of SGEMM kernel @p variant ("naive", ...), or NULL past the last one. */
    const char *(*sgemm_name)(int variant);
    /** Launch the empty kernel once: the cost of a launch with no work in it. */
    int (*empty_kernel)(Device d);
    /**
     * The time model of a simulated device (docs/simulator.md, "The time model"): its
     * clock in @p *seconds (started by the first call) and the name of the GPU it
     * models in @p gpu. NULL where times are measured (the CPU, a real GPU).
     */
    int (*model_clock)(Device d, double *seconds, char *gpu, size_t size);
    /**
     * Start copying @p bytes from host_alloc memory @p src to @p dst on @p d on the
     * device's copy stream and return at once (see copy_wait). @p dst must be a buffer
     * no queued kernel still uses; @p src must stay untouched until the copy is done.
     */
    int (*copy_async)(Device d, void *dst, const void *src, size_t bytes);
    /** Make the compute stream of @p d wait (on the GPU) for the copies started so far. */
    int (*copy_wait)(Device d);
    /**
     * Start recording instead of running (cudaStreamBeginCapture): nothing may wait for
     * the device until capture_end.
     */
    int (*capture_begin)(Device d);
    /** Whether @p d is recording a graph. */
    bool (*capturing)(Device d);
    /** Stop recording and make the graph ready to replay (cudaGraphInstantiate). */
    int (*capture_end)(Device d, BackendGraph **graph);
    /** How many operations the graph holds. */
    size_t (*graph_nodes)(const BackendGraph *graph);
    /** Replay the graph: all its work with one launch (counted as one). */
    int (*graph_launch)(BackendGraph *graph);
    /** Release a graph (NULL is allowed). */
    void (*graph_free)(BackendGraph *graph);
    /**
     * Train Linear(din, h), ReLU, Linear(h, c) with cross-entropy and SGD for @p epochs
     * full-batch epochs in ONE launch (kernels/mlp_fused.cu); see mlp_train_fused().
     */
    int (*mlp_train_fused)(Device d, const float *x, const int32_t *y, int64_t n, int64_t din,
                           int64_t h, int64_t c, float *w1, float *b1, float *w2, float *b2,
                           long epochs, float lr, float *losses);
    /* ---- collectives between processes (Lesson 06, lib/dist) --------------------
     * A device with a collective engine of its own (NCCL on a GPU) fills these in;
     * elsewhere they are NULL and lib/dist hands host memory to MPI, staging device
     * memory through the host. Collectives are queued on a stream of their own that
     * first waits for the work queued on @p d; comm_wait makes later work wait for them. */
    /** The engine's name and version ("NCCL 2.28.9"), or NULL without one. */
    const char *(*comm_engine)(char *buf, size_t size);
    /**
     * Make the id every rank of a group shares before comm_init (ncclGetUniqueId): at
     * most @p size bytes into @p id, its length into *@p len.
     */
    int (*comm_id)(void *id, size_t size, size_t *len);
    /** Join the group of @p world ranks as @p rank, on @p d, from the shared id (ncclCommInitRank). */
    int (*comm_init)(Device d, const void *id, size_t len, int world, int rank, void **comm);
    /** Sum @p n floats at @p p over the group, in place (ncclAllReduce). */
    int (*comm_all_reduce)(void *comm, Device d, float *p, int64_t n);
    /** Copy @p bytes at @p p from rank @p root to every rank (ncclBroadcast). */
    int (*comm_broadcast)(void *comm, Device d, void *p, size_t bytes, int root);
    /** Make the work queued on @p d from now on wait for the collectives queued so far. */
    int (*comm_wait)(Device d);
    /** Leave the group (ncclCommDestroy); NULL is allowed. */
    void (*comm_free)(void *comm);
} BackendOps;

/** @brief The CPU's table (backend_cpu.c). */
extern const BackendOps backend_cpu;

/** @brief CUDA's table, or NULL in a build without CUDA (backend_cuda.c, backend_none.c). */
const BackendOps *backend_cuda(void);

/**
 * @brief The table of device @p d's kind: the CPU's, CUDA's, or NULL when this build has
 *        no backend of that kind (a build without nvcc has no CUDA one).
 *
 * The one place in lib that asks a device's kind. Code that holds a tensor uses
 * tensor_ops() (a tensor exists only on a device whose table exists); where a
 * device is made (device_from_string(), tensor_new()) the device layer refuses a
 * kind without a table. Inline: every op of a training step goes through it.
 */
static inline const BackendOps *backend_of(Device d)
{
    return d.kind == DEVICE_CPU ? &backend_cpu : d.kind == DEVICE_CUDA ? backend_cuda() : NULL;
}

#endif /* WB_BACKEND_H */
