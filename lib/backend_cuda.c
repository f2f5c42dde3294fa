/* backend_cuda.c: lib's GPU backend on the CUDA runtime, cuBLAS and the
 * kernels of kernels/. Compiled against a real GPU's headers (nvcc builds) or
 * the CUDA simulator's (lib/cudasim/include), unchanged. */
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "counters.h"
#include "err.h"
#include "kernels/kernels.h"
#ifdef CUDASIM
#include "lib/cudasim/cudasim.h"
#endif

#define MAX_DEVICES 16

static cublasHandle_t g_blas[MAX_DEVICES];
static int g_current = -1;

const char *backend_name(void)
{
#ifdef CUDASIM
    return "CUDA simulator";
#else
    return "CUDA";
#endif
}

/* The simulator's report of the last problem, to add to a message. */
static const char *sim_detail(void)
{
#ifdef CUDASIM
    return cudasim_last_report();
#else
    return "";
#endif
}

static int cuda_error(const char *op, Device d, cudaError_t e)
{
    const char *detail = sim_detail();
    cudaGetLastError(); /* a non-sticky error is now reported; clear it */
    return err_set(ERR_DEVICE, "%s on cuda:%d: %s (%s)%s%s", op, d.index, cudaGetErrorString(e),
                   cudaGetErrorName(e), *detail ? "; " : "", detail);
}

static double gib(size_t bytes) { return (double)bytes / (1024.0 * 1024.0 * 1024.0); }

static int use(Device d)
{
    if (d.kind != DEVICE_CUDA || d.index < 0 || d.index >= MAX_DEVICES)
        return err_set(ERR_DEVICE, "the CUDA backend was given a CPU or out-of-range device");
    if (d.index == g_current) return ERR_OK;
    cudaError_t e = cudaSetDevice(d.index);
    if (e != cudaSuccess) return cuda_error("cudaSetDevice", d, e);
    g_current = d.index;
    return ERR_OK;
}

int backend_device_count(int *count)
{
    *count = 0;
    cudaError_t e = cudaGetDeviceCount(count);
    if (e == cudaSuccess && *count > 0) return ERR_OK;
    *count = 0;
    cudaGetLastError();
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    if (e == cudaErrorInsufficientDriver)
        return err_set(ERR_DEVICE, "no usable NVIDIA driver: none is installed, or it is older "
                                   "than this program's CUDA runtime %d.%d",
                       CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    if (e == cudaErrorNoDevice || (e == cudaSuccess && *count == 0)) {
        if (env)
            return err_set(ERR_DEVICE, "no CUDA device: CUDA_VISIBLE_DEVICES=\"%s\" leaves none "
                                       "visible",
                           env);
        return err_set(ERR_DEVICE, "no CUDA device: the driver is there but finds no GPU");
    }
    return err_set(ERR_DEVICE, "no CUDA device: cudaGetDeviceCount failed with %s (%s)",
                   cudaGetErrorString(e), cudaGetErrorName(e));
}

int backend_device_info(int index, DeviceInfo *info)
{
    Device d = device_cuda(index);
    struct cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, index);
    if (e != cudaSuccess) return cuda_error("cudaGetDeviceProperties", d, e);
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->total_memory = p.totalGlobalMem;
    info->sm_count = p.multiProcessorCount;
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    TRY(use(d));
    size_t free_b = 0, total_b = 0;
    e = cudaMemGetInfo(&free_b, &total_b);
    if (e != cudaSuccess) return cuda_error("cudaMemGetInfo", d, e);
    info->free_memory = free_b;
    cudaDriverGetVersion(&info->driver_version);
    cudaRuntimeGetVersion(&info->runtime_version);
    info->cublas_version = 0;
    cublasHandle_t h;
    if (cublasCreate(&h) == CUBLAS_STATUS_SUCCESS) {
        cublasGetVersion(h, &info->cublas_version);
        cublasDestroy(h);
    }
#ifdef CUDASIM
    info->simulated = true;
#else
    info->simulated = false;
#endif
    return ERR_OK;
}

int backend_alloc(Device d, size_t bytes, void **ptr)
{
    *ptr = NULL;
    TRY(use(d));
    cudaError_t e = cudaMalloc(ptr, bytes);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        Counters c = counters_get();
        return err_set(ERR_NOMEM, "out of memory on cuda:%d: asked for %.2f GiB with %.2f GiB "
                                  "free of %.2f GiB (this program holds %.2f GiB); try a smaller "
                                  "batch, mixed precision (Lesson 05), or freeing tensors you "
                                  "no longer need",
                       d.index, gib(bytes), gib(free_b), gib(total_b), gib(c.mem_in_use));
    }
    if (e != cudaSuccess) return cuda_error("cudaMalloc", d, e);
    counters_memory((long long)bytes);
    return ERR_OK;
}

void backend_free(Device d, void *ptr, size_t bytes)
{
    if (!ptr || use(d) != ERR_OK) return;
    if (cudaFree(ptr) == cudaSuccess) counters_memory(-(long long)bytes);
}

int backend_copy(void *dst, Device to, const void *src, Device from, size_t bytes)
{
    CopyKind kind;
    TRY(exercise_result(copy_kind(from, to, &kind), "02.2", "copy_kind"));
    if (bytes == 0) return ERR_OK;
    cudaError_t e = cudaSuccess;
    switch (kind) {
    case COPY_HOST_TO_HOST: e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToHost); break;
    case COPY_HOST_TO_DEVICE:
        TRY(use(to));
        e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
        counters_copy('u', bytes);
        break;
    case COPY_DEVICE_TO_HOST:
        TRY(use(from));
        e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
        counters_copy('d', bytes);
        break;
    case COPY_DEVICE_TO_DEVICE:
        TRY(use(to));
        e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);
        counters_copy('x', bytes);
        break;
    case COPY_PEER:
        /* With unified addressing cudaMemcpyDefault finds both devices. */
        TRY(use(to));
        e = cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
        counters_copy('x', bytes);
        break;
    default:
        return err_set(ERR_ARG, "copy_kind returned %d, which is not a CopyKind", (int)kind);
    }
    if (e != cudaSuccess) {
        char a[16], b[16];
        char op[64];
        snprintf(op, sizeof op, "copying %s to %s", device_str(from, a, sizeof a),
                 device_str(to, b, sizeof b));
        return cuda_error(op, to.kind == DEVICE_CUDA ? to : from, e);
    }
    return ERR_OK;
}

int backend_zero(Device d, void *p, size_t bytes)
{
    TRY(use(d));
    cudaError_t e = cudaMemsetAsync(p, 0, bytes, 0);
    if (e != cudaSuccess) return cuda_error("cudaMemsetAsync", d, e);
    return ERR_OK;
}

int backend_synchronize(Device d)
{
    TRY(use(d));
    cudaError_t e = cudaDeviceSynchronize();
    counters_sync();
    if (e != cudaSuccess) return cuda_error("cudaDeviceSynchronize", d, e);
    return ERR_OK;
}

/* After a launch: count it and turn an error into lib's. */
static int launched(const char *kernel, Device d, cudaError_t e)
{
    counters_launch(1);
    if (e != cudaSuccess) return cuda_error(kernel, d, e);
    return ERR_OK;
}

int backend_gemm(Device d, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                 const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                 int64_t ldc)
{
    TRY(use(d));
    if (m > 2147483647 || n > 2147483647 || k > 2147483647 || lda > 2147483647 ||
        ldb > 2147483647 || ldc > 2147483647)
        return err_set(ERR_ARG, "gemm: sizes beyond 2^31 are not supported by cublasSgemm");
    if (!g_blas[d.index]) {
        cublasStatus_t s = cublasCreate(&g_blas[d.index]);
        if (s != CUBLAS_STATUS_SUCCESS)
            return err_set(ERR_DEVICE, "cublasCreate on cuda:%d failed: %s", d.index,
                           cublasGetStatusString(s));
    }
    cublasStatus_t s = cublasSgemm(g_blas[d.index], ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                   tb ? CUBLAS_OP_T : CUBLAS_OP_N, (int)m, (int)n, (int)k, &alpha,
                                   A, (int)lda, B, (int)ldb, &beta, C, (int)ldc);
    counters_launch(1);
    if (s != CUBLAS_STATUS_SUCCESS) {
        const char *detail = sim_detail();
        return err_set(ERR_DEVICE, "cublasSgemm (%lld x %lld x %lld) on cuda:%d failed: %s%s%s",
                       (long long)m, (long long)n, (long long)k, d.index,
                       cublasGetStatusString(s), *detail ? "; " : "", detail);
    }
    return ERR_OK;
}

int backend_sgemm_kernel(Device d, int variant, const float *A, const float *B, float *C,
                         int64_t m, int64_t n, int64_t k)
{
    TRY(use(d));
    if (variant < 0 || variant >= K_SGEMM_VARIANTS)
        return err_set(ERR_ARG, "sgemm: no kernel variant %d (0..%d)", variant,
                       K_SGEMM_VARIANTS - 1);
    return launched(k_sgemm_name(variant), d,
                    k_sgemm(variant, m, n, k, 1.0f, A, m, B, k, 0.0f, C, m, 0));
}

const char *backend_sgemm_name(int variant)
{
    return variant >= 0 && variant < K_SGEMM_VARIANTS ? k_sgemm_name(variant) : NULL;
}

int backend_add_bias(Device d, float *y, const float *b, int64_t n, int64_t cols)
{
    TRY(use(d));
    return launched("k_add_bias", d, k_add_bias(y, b, n, cols, 0));
}

int backend_sum_columns_add(Device d, const float *x, float *out, int64_t rows, int64_t cols)
{
    TRY(use(d));
    return launched("k_sum_columns", d, k_sum_columns(x, out, rows, cols, 1, 0));
}

int backend_relu_forward(Device d, const float *x, float *y, int64_t n)
{
    TRY(use(d));
    err_clear();
    cudaError_t e = k_relu_forward(x, y, n, 0);
    counters_launch(1);
    if (e != cudaSuccess && err_code() == ERR_TODO) return ERR_TODO; /* still the stub */
    if (e != cudaSuccess) return cuda_error("k_relu_forward (exercise 02.4)", d, e);
    return ERR_OK;
}

int backend_relu_backward(Device d, const float *y, const float *dy, float *dx, int64_t n)
{
    TRY(use(d));
    return launched("k_relu_backward", d, k_relu_backward(y, dy, dx, n, 0));
}

int backend_softmax_ce_forward(Device d, const float *logits, const int32_t *targets,
                               float *probs, float *loss, int64_t n, int64_t c)
{
    TRY(use(d));
    /* k_softmax_ce_forward zeroes the loss (a memset) and launches one kernel. */
    return launched("k_softmax_ce_forward", d,
                    k_softmax_ce_forward(logits, targets, probs, loss, n, c, 0));
}

int backend_softmax_ce_backward(Device d, const float *probs, const int32_t *targets,
                                float *dlogits, int64_t n, int64_t c)
{
    TRY(use(d));
    return launched("k_softmax_ce_backward", d,
                    k_softmax_ce_backward(probs, targets, dlogits, n, c, 0));
}

int backend_sgd_step(Device d, float *p, const float *g, int64_t n, float lr)
{
    TRY(use(d));
    return launched("k_sgd_step", d, k_sgd_step(p, g, n, lr, 0));
}
