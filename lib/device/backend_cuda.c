/* backend_cuda.c: lib's GPU backend on the CUDA runtime, cuBLAS and the
 * kernels of kernels/. Compiled against a real GPU's headers (nvcc builds) or
 * the CUDA simulator's (lib/cudasim/include), unchanged. */
#include "lib/device/backend.h"

#include <stdio.h>
#include <stdlib.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "lib/core/counters.h"
#include "lib/core/err.h"
#include "lib/core/timeline.h"
#include "kernels/kernels.h"
#ifdef CUDASIM
#include "lib/cudasim/cudasim.h"
#endif
/* NCCL, the collectives between GPUs (Lesson 06), where the toolkit has it (the
 * Makefile defines WB_HAVE_NCCL); the simulator has none: lib/dist stages through
 * the host there. */
#if defined(WB_HAVE_NCCL) && !defined(CUDASIM)
#define WB_NCCL 1
#include <string.h>

/* nccl.h declares some functions without prototypes (`f()`), which C11 warns about. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop
#endif

#define MAX_DEVICES 16

static cublasHandle_t g_blas[MAX_DEVICES];
static int g_current = -1;
/* All of lib's work on a device goes to one stream of its own: a blocking
 * stream (cudaStreamCreate), so a plain cudaMemcpy, which runs on the legacy
 * default stream, still waits for every kernel issued before it. One stream
 * of our own is also what CUDA Graph capture needs (it refuses the legacy
 * stream). Lesson 03's overlapped copies use a second stream and an event. */
static cudaStream_t g_stream[MAX_DEVICES], g_copy_stream[MAX_DEVICES];
static cudaEvent_t g_copied[MAX_DEVICES];
static bool g_capturing[MAX_DEVICES];

#ifdef CUDASIM
#define CUDA_BACKEND_NAME "CUDA simulator"
#else
#define CUDA_BACKEND_NAME "CUDA"
#endif

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
    bool recording = d.index >= 0 && d.index < MAX_DEVICES && g_capturing[d.index];
    cudaGetLastError(); /* a non-sticky error is now reported; clear it */
    return err_set(ERR_DEVICE, "%s on cuda:%d: %s (%s)%s%s%s", op, d.index,
                   cudaGetErrorString(e), cudaGetErrorName(e), *detail ? "; " : "", detail,
                   recording ? "; this happened while recording a CUDA Graph, where nothing may "
                               "wait for the GPU, copy to the CPU or allocate: do that before "
                               "backend_capture_begin or after backend_capture_end"
                             : "");
}

static double gib(size_t bytes) { return (double)bytes / (1024.0 * 1024.0 * 1024.0); }

/* ---- Lesson 03's timeline (lib/core/timeline.h) ------------------------------------
 * While one is recorded: the host clock around each launch, copy and wait, and a pair
 * of CUDA events around each kernel and copy, read when the recording ends. */
#define TL_PAIRS 2048
typedef struct TlPair {
    cudaEvent_t a, b;
    TimelineKind kind;
    char name[32];
} TlPair;
static TlPair g_tl[TL_PAIRS];
static int g_tl_n, g_tl_dev = -1;
static cudaEvent_t g_tl_base;
static double g_tl_base_host, g_tl_t0;
static bool g_tl_armed, g_tl_hooked;

static int tl_begin(void)
{
    g_tl_n = 0;
    g_tl_armed = false;
    g_tl_dev = g_current;
    if (g_tl_dev < 0) return ERR_OK; /* no GPU used yet: the CPU's lane only */
    Device d = device_cuda(g_tl_dev);
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess && !g_tl_base) e = cudaEventCreate(&g_tl_base);
    /* The stream is idle: the event runs between h0 and h1 on the host's clock; the
     * middle places the GPU's lane on it to within half of that. A try the host was
     * interrupted in (a busy machine) is taken again, up to five times, until the
     * bracket is under 50 us; the last try's event is the base. */
    double h0 = 0, h1 = 0;
    for (int try = 0; try < 5 && e == cudaSuccess; try++) {
        h0 = timeline_clock();
        e = cudaEventRecord(g_tl_base, g_stream[g_tl_dev]);
        if (e == cudaSuccess) e = cudaEventSynchronize(g_tl_base);
        h1 = timeline_clock();
        if (h1 - h0 < 50e-6) break;
    }
    if (e != cudaSuccess) return cuda_error("starting a timeline", d, e);
    g_tl_base_host = 0.5 * (h0 + h1);
    timeline_set_gpu_uncertainty(0.5 * (h1 - h0));
    return ERR_OK;
}

static int tl_end(void)
{
    if (g_tl_dev < 0) return ERR_OK;
    Device d = device_cuda(g_tl_dev);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return cuda_error("ending a timeline", d, e);
    for (int i = 0; i < g_tl_n; i++) {
        float a = 0, b = 0;
        e = cudaEventElapsedTime(&a, g_tl_base, g_tl[i].a);
        if (e == cudaSuccess) e = cudaEventElapsedTime(&b, g_tl_base, g_tl[i].b);
        if (e != cudaSuccess) return cuda_error("reading a timeline's events", d, e);
        timeline_add(g_tl[i].kind, true, g_tl[i].name, g_tl_base_host + 1e-3 * a,
                     g_tl_base_host + 1e-3 * b);
    }
    g_tl_n = 0;
    return ERR_OK;
}

/* Before a call that queues GPU work on stream s: the host time, and event a. */
static void tl_open(Device d, cudaStream_t s)
{
    g_tl_armed = false;
    if (!timeline_on() || d.index != g_tl_dev || g_capturing[d.index] || g_tl_n >= TL_PAIRS)
        return;
    TlPair *p = &g_tl[g_tl_n];
    if (!p->a && (cudaEventCreate(&p->a) != cudaSuccess || cudaEventCreate(&p->b) != cudaSuccess))
        return;
    g_tl_t0 = timeline_clock();
    g_tl_armed = cudaEventRecord(p->a, s) == cudaSuccess;
}

/* After it: the CPU's box (the call) and event b, closing the GPU's box. */
static void tl_close(cudaStream_t s, TimelineKind cpu, TimelineKind gpu, const char *name)
{
    if (!g_tl_armed) return;
    g_tl_armed = false;
    if (g_capturing[g_tl_dev]) return; /* recorded into a graph: it runs at its replay */
    TlPair *p = &g_tl[g_tl_n];
    if (cudaEventRecord(p->b, s) != cudaSuccess) return;
    timeline_add(cpu, false, name, g_tl_t0, timeline_clock());
    p->kind = gpu;
    snprintf(p->name, sizeof p->name, "%s", name);
    g_tl_n++;
}

static int use(Device d)
{
    if (!g_tl_hooked) {
        timeline_gpu_hooks(tl_begin, tl_end);
        g_tl_hooked = true;
    }
    if (d.kind != DEVICE_CUDA || d.index < 0 || d.index >= MAX_DEVICES)
        return err_set(ERR_DEVICE, "the CUDA backend was given a CPU or out-of-range device");
    if (d.index == g_current) return ERR_OK;
    cudaError_t e = cudaSetDevice(d.index);
    if (e != cudaSuccess) return cuda_error("cudaSetDevice", d, e);
    g_current = d.index;
    return ERR_OK;
}

/* Make @p d current and give the stream lib's work on it goes to. */
static int stream(Device d, cudaStream_t *s)
{
    TRY(use(d));
    if (!g_stream[d.index]) {
        cudaError_t e = cudaStreamCreate(&g_stream[d.index]);
        if (e != cudaSuccess) return cuda_error("cudaStreamCreate", d, e);
    }
    *s = g_stream[d.index];
    tl_open(d, *s);
    return ERR_OK;
}

/* Count a launch, unless it was only recorded into a graph; on a timeline being
 * recorded, close the box its call opened (in stream(), or tl_open() just before). */
static void count_launch(Device d, const char *name)
{
    tl_close(g_stream[d.index], TIMELINE_LAUNCH, TIMELINE_KERNEL, name);
    if (!g_capturing[d.index]) counters_launch(1);
}

static int cuda_device_count(int *count)
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

static int cuda_device_info(int index, DeviceInfo *info)
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

static int cuda_alloc(Device d, size_t bytes, void **ptr)
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
                                  "batch, gradient accumulation or mixed precision (Lesson "
                                  "05), or freeing tensors you no longer need",
                       d.index, gib(bytes), gib(free_b), gib(total_b), gib(c.mem_in_use));
    }
    if (e != cudaSuccess) return cuda_error("cudaMalloc", d, e);
    counters_memory((long long)bytes);
    return ERR_OK;
}

static void cuda_free(Device d, void *ptr, size_t bytes)
{
    if (!ptr || use(d) != ERR_OK) return;
    /* cudaFree waits for the GPU to finish whatever may still use the memory. */
    double t0 = timeline_clock();
    if (cudaFree(ptr) == cudaSuccess) {
        if (timeline_on()) timeline_add(TIMELINE_SYNC, false, "cudaFree", t0, timeline_clock());
        counters_memory(-(long long)bytes);
        counters_sync();
    }
}

static int cuda_copy(void *dst, Device to, const void *src, Device from, size_t bytes)
{
    CopyKind kind;
    TRY(exercise_result(copy_kind(from, to, &kind), "02.2", "copy_kind"));
    if (bytes == 0) return ERR_OK;
    cudaError_t e = cudaSuccess;
    switch (kind) {
    case COPY_HOST_TO_HOST: e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToHost); break;
    case COPY_HOST_TO_DEVICE:
        TRY(use(to));
        tl_open(to, NULL); /* cudaMemcpy runs on the legacy stream */
        e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
        tl_close(NULL, TIMELINE_COPY_H2D, TIMELINE_COPY_H2D, "cudaMemcpy H2D");
        counters_copy('u', bytes);
        break;
    case COPY_DEVICE_TO_HOST:
        TRY(use(from));
        tl_open(from, NULL);
        e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
        tl_close(NULL, TIMELINE_COPY_D2H, TIMELINE_COPY_D2H, "cudaMemcpy D2H");
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

static int cuda_zero(Device d, void *p, size_t bytes)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    cudaError_t e = cudaMemsetAsync(p, 0, bytes, s);
    tl_close(s, TIMELINE_LAUNCH, TIMELINE_KERNEL, "cudaMemsetAsync");
    if (e != cudaSuccess) return cuda_error("cudaMemsetAsync", d, e);
    return ERR_OK;
}

static int cuda_synchronize(Device d)
{
    TRY(use(d));
    double t0 = timeline_clock();
    cudaError_t e = cudaDeviceSynchronize();
    if (timeline_on()) timeline_add(TIMELINE_SYNC, false, "cudaDeviceSynchronize", t0, timeline_clock());
    counters_sync();
    if (e != cudaSuccess) return cuda_error("cudaDeviceSynchronize", d, e);
    return ERR_OK;
}

/* After a launch: count it and turn an error into lib's. */
static int launched(const char *kernel, Device d, cudaError_t e)
{
    count_launch(d, kernel);
    if (e != cudaSuccess) return cuda_error(kernel, d, e);
    return ERR_OK;
}

/* cuBLAS's handle for @p d, made on first use and bound to the device's stream. */
static int blas_handle(Device d, cudaStream_t st)
{
    if (g_blas[d.index]) return ERR_OK;
    cublasStatus_t s = cublasCreate(&g_blas[d.index]);
    if (s != CUBLAS_STATUS_SUCCESS)
        return err_set(ERR_DEVICE, "cublasCreate on cuda:%d failed: %s", d.index,
                       cublasGetStatusString(s));
    cublasSetStream(g_blas[d.index], st);
    return ERR_OK;
}

static int cuda_gemm(Device d, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                 const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                 int64_t ldc)
{
    cudaStream_t st = NULL;
    TRY(stream(d, &st));
    if (m > 2147483647 || n > 2147483647 || k > 2147483647 || lda > 2147483647 ||
        ldb > 2147483647 || ldc > 2147483647)
        return err_set(ERR_ARG, "gemm: sizes beyond 2^31 are not supported by cublasSgemm");
    TRY(blas_handle(d, st));
    cublasStatus_t s = cublasSgemm(g_blas[d.index], ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                   tb ? CUBLAS_OP_T : CUBLAS_OP_N, (int)m, (int)n, (int)k, &alpha,
                                   A, (int)lda, B, (int)ldb, &beta, C, (int)ldc);
    count_launch(d, "cublasSgemm");
    if (s != CUBLAS_STATUS_SUCCESS) {
        const char *detail = sim_detail();
        return err_set(ERR_DEVICE, "cublasSgemm (%lld x %lld x %lld) on cuda:%d failed: %s%s%s",
                       (long long)m, (long long)n, (long long)k, d.index,
                       cublasGetStatusString(s), *detail ? "; " : "", detail);
    }
    return ERR_OK;
}

static int cuda_sgemm_kernel(Device d, int variant, const float *A, const float *B, float *C,
                         int64_t m, int64_t n, int64_t k)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    if (variant < 0 || variant >= K_SGEMM_VARIANTS)
        return err_set(ERR_ARG, "sgemm: no kernel variant %d (0..%d)", variant,
                       K_SGEMM_VARIANTS - 1);
    return launched(k_sgemm_name(variant), d,
                    k_sgemm(variant, m, n, k, 1.0f, A, m, B, k, 0.0f, C, m, s));
}

static const char *cuda_sgemm_name(int variant)
{
    return variant >= 0 && variant < K_SGEMM_VARIANTS ? k_sgemm_name(variant) : NULL;
}

static int cuda_add_bias(Device d, float *y, const float *b, int64_t n, int64_t cols)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_add_bias", d, k_add_bias(y, b, n, cols, s));
}

static int cuda_sum_columns_add(Device d, const float *x, float *out, int64_t rows, int64_t cols)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_sum_columns", d, k_sum_columns(x, out, rows, cols, 1, s));
}

/* y (n, out) = x (n, in) W^T, W (out, in): cuBLAS takes the column-major arrays as
 * they are, with op(W) = transpose. Then y += b. */
static int cuda_linear_forward(Device d, const float *x, const float *w, const float *b,
                               float *y, int64_t n, int64_t in, int64_t out)
{
    TRY(cuda_gemm(d, false, true, n, out, in, 1.0f, x, n, w, out, 0.0f, y, n));
    return cuda_add_bias(d, y, b, n, out);
}

/* dW (out, in) += dy^T (out, n) x (n, in); db += column sums of dy; dx (n, in) = dy W. */
static int cuda_linear_backward(Device d, const float *x, const float *w, const float *dy,
                                float *dx, float *dw, float *db, int64_t n, int64_t in,
                                int64_t out)
{
    TRY(cuda_gemm(d, true, false, out, in, n, 1.0f, dy, n, x, n, 1.0f, dw, out));
    TRY(cuda_sum_columns_add(d, dy, db, n, out));
    if (dx) TRY(cuda_gemm(d, false, false, n, in, out, 1.0f, dy, n, w, out, 0.0f, dx, n));
    return ERR_OK;
}

static int cuda_relu_forward(Device d, const float *x, float *y, int64_t n)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    err_clear();
    cudaError_t e = k_relu_forward(x, y, n, s);
    count_launch(d, "k_relu_forward");
    if (e != cudaSuccess && err_code() == ERR_TODO) return ERR_TODO; /* still the stub */
    if (e != cudaSuccess) return cuda_error("k_relu_forward (exercise 02.4)", d, e);
    return ERR_OK;
}

static int cuda_relu_backward(Device d, const float *y, const float *dy, float *dx, int64_t n)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_relu_backward", d, k_relu_backward(y, dy, dx, n, s));
}

static int cuda_softmax_ce_forward(Device d, const float *logits, const int32_t *targets,
                               float *probs, float *loss, int64_t n, int64_t c)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    /* one launch; the loss is summed without atomics, the same bits every run */
    return launched("k_softmax_ce_forward", d,
                    k_softmax_ce_forward(logits, targets, probs, loss, n, c, s));
}

static int cuda_softmax_ce_backward(Device d, const float *probs, const int32_t *targets,
                                float *dlogits, int64_t n, int64_t c)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_softmax_ce_backward", d,
                    k_softmax_ce_backward(probs, targets, dlogits, n, c, s));
}

static int cuda_sgd_step(Device d, float *p, const float *g, int64_t n, float lr)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_sgd_step", d, k_sgd_step(p, g, n, lr, s));
}

/* Exercise 03.4 (lessons/03_why_gpu_slower/exercises.cu). */
static int cuda_transpose(Device d, const float *x, float *out, int64_t rows, int64_t cols)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    if (rows == 0 || cols == 0) return ERR_OK;
    return launched("k_transpose", d, k_transpose(x, out, rows, cols, s));
}

static int cuda_copy_rows(Device d, const float *src, int64_t src_rows, int64_t src_start,
                      float *dst, int64_t dst_rows, int64_t dst_start, int64_t count,
                      int64_t cols)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    if (count == 0 || cols == 0) return ERR_OK;
    return launched("k_copy_rows", d,
                    k_copy_rows(src, src_rows, src_start, dst, dst_rows, dst_start, count, cols,
                                s));
}

/* ---- Lesson 03 ------------------------------------------------------------ */

static int cuda_empty_kernel(Device d)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_empty", d, k_empty(s));
}

#ifdef CUDASIM
/* The simulator's time model: started by the first call, then read. */
static int cuda_model_clock(Device d, double *seconds, char *gpu, size_t size)
{
    static int started = 0; /* 1 running, -1 refused (its report says why) */
    (void)d;
    if (!started) started = cudasim_model_start() == 0 ? 1 : -1;
    if (started < 0)
        return err_set(ERR_UNSUPPORTED, "the simulator's time model is off: %s",
                       cudasim_last_report());
    *seconds = cudasim_model_seconds();
    snprintf(gpu, size, "%s", cudasim_model_gpu());
    return ERR_OK;
}
#endif

static int cuda_host_alloc(Device d, size_t bytes, void **ptr)
{
    (void)d; /* pinned memory is for every device */
    *ptr = NULL;
    cudaError_t e = cudaMallocHost(ptr, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return err_set(e == cudaErrorMemoryAllocation ? ERR_NOMEM : ERR_DEVICE,
                       "cudaMallocHost of %.2f GiB of pinned memory failed: %s (%s); pinned "
                       "memory cannot be swapped out, so the system gives less of it: try a "
                       "smaller size",
                       gib(bytes), cudaGetErrorString(e), cudaGetErrorName(e));
    }
    return ERR_OK;
}

static void cuda_host_free(Device d, void *ptr)
{
    (void)d;
    if (ptr) cudaFreeHost(ptr);
}

static int cuda_copy_async(Device d, void *dst, const void *src, size_t bytes)
{
    TRY(use(d));
    int i = d.index;
    cudaError_t e = cudaSuccess;
    if (!g_copy_stream[i]) e = cudaStreamCreateWithFlags(&g_copy_stream[i], cudaStreamNonBlocking);
    if (e == cudaSuccess && !g_copied[i])
        e = cudaEventCreateWithFlags(&g_copied[i], cudaEventDisableTiming);
    if (e != cudaSuccess) return cuda_error("creating the copy stream", d, e);
    e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, g_copy_stream[i]);
    if (e == cudaSuccess) e = cudaEventRecord(g_copied[i], g_copy_stream[i]);
    if (e != cudaSuccess) return cuda_error("cudaMemcpyAsync on the copy stream", d, e);
    counters_copy('u', bytes);
    return ERR_OK;
}

/* Make the work queued on @p d from now on wait for @p ev (NULL: nothing to wait for). */
static int stream_wait(Device d, cudaEvent_t ev, const char *what)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    g_tl_armed = false; /* a wait between streams, not a box of the timeline */
    if (!ev) return ERR_OK;
    cudaError_t e = cudaStreamWaitEvent(s, ev, 0);
    if (e != cudaSuccess) return cuda_error(what, d, e);
    return ERR_OK;
}

static int cuda_copy_wait(Device d)
{
    return stream_wait(d, g_copied[d.index], "cudaStreamWaitEvent"); /* NULL: nothing copied */
}

static void cuda_graph_free(BackendGraph *graph);

struct BackendGraph {
    Device device;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    size_t nodes;
};

static bool cuda_capturing(Device d)
{
    return d.kind == DEVICE_CUDA && d.index >= 0 && d.index < MAX_DEVICES && g_capturing[d.index];
}

static int cuda_capture_begin(Device d)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    g_tl_armed = false;
    if (g_capturing[d.index])
        return err_set(ERR_ARG, "cuda:%d is already recording a CUDA Graph: end that recording "
                                "(backend_capture_end) first",
                       d.index);
    /* Global mode: any call that could wait for the GPU fails while recording,
     * so a hidden sync in the captured code is an error, not a wrong graph. */
    cudaError_t e = cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    if (e != cudaSuccess) return cuda_error("cudaStreamBeginCapture", d, e);
    g_capturing[d.index] = true;
    return ERR_OK;
}

static int cuda_capture_end(Device d, BackendGraph **out)
{
    *out = NULL;
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    if (!g_capturing[d.index])
        return err_set(ERR_ARG, "cuda:%d is not recording a CUDA Graph: call "
                                "backend_capture_begin first",
                       d.index);
    cudaGraph_t graph = NULL;
    cudaError_t e = cudaStreamEndCapture(s, &graph);
    g_capturing[d.index] = false;
    if (e != cudaSuccess)
        return cuda_error("cudaStreamEndCapture (an operation during the recording was not "
                          "allowed; the message before this one names it)",
                          d, e);
    BackendGraph *g = calloc(1, sizeof *g);
    if (!g) {
        cudaGraphDestroy(graph);
        return err_set(ERR_NOMEM, "out of memory for a graph");
    }
    g->device = d;
    g->graph = graph;
    e = cudaGraphGetNodes(graph, NULL, &g->nodes);
    if (e == cudaSuccess) e = cudaGraphInstantiate(&g->exec, graph, 0);
    if (e != cudaSuccess) {
        cuda_graph_free(g);
        return cuda_error("cudaGraphInstantiate", d, e);
    }
    *out = g;
    return ERR_OK;
}

static size_t cuda_graph_nodes(const BackendGraph *graph) { return graph ? graph->nodes : 0; }

static int cuda_graph_launch(BackendGraph *graph)
{
    if (!graph || !graph->exec) return err_set(ERR_ARG, "backend_graph_launch: no graph");
    cudaStream_t s = NULL;
    TRY(stream(graph->device, &s));
    return launched("cudaGraphLaunch", graph->device, cudaGraphLaunch(graph->exec, s));
}

static void cuda_graph_free(BackendGraph *graph)
{
    if (!graph) return;
    if (graph->exec) cudaGraphExecDestroy(graph->exec);
    if (graph->graph) cudaGraphDestroy(graph->graph);
    free(graph);
}

static int cuda_mlp_train_fused(Device d, const float *x, const int32_t *y, int64_t n, int64_t din,
                            int64_t h, int64_t c, float *w1, float *b1, float *w2, float *b2,
                            long epochs, float lr, float *losses)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    if (n > 1024 || din > 16 || h > 64 || c > 16 || n < 1 || din < 1 || h < 1 || c < 1 ||
        epochs < 0 || epochs > 2147483647L)
        return err_set(ERR_ARG, "the fused training kernel takes at most 1024 samples, 16 "
                                "inputs, 64 hidden units and 16 classes (got %lld, %lld, %lld, "
                                "%lld) and 0 to 2^31-1 epochs (got %ld)",
                       (long long)n, (long long)din, (long long)h, (long long)c, epochs);
    if (epochs == 0) return ERR_OK;
    return launched("k_mlp_train_fused", d,
                    k_mlp_train_fused(x, y, (int)n, (int)din, (int)h, (int)c, w1, b1, w2, b2,
                                      (int)epochs, lr, losses, s));
}

/* ---- Optimizers and gradient clipping ------------------------------------- */

static int cuda_sgd_momentum_step(Device d, float *p, const float *g, float *buf, int64_t n, float lr,
                              float momentum, float weight_decay, bool nesterov, bool first)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_sgd_momentum_step", d,
                    k_sgd_momentum_step(p, g, buf, n, lr, momentum, weight_decay, nesterov,
                                        first, s));
}

static int cuda_adam_step(Device d, float *p, const float *g, float *m, float *v, int64_t n,
                          const AdamStep *a)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_adam_step", d,
                    k_adam_step(p, g, m, v, n, a->beta1, a->beta2, a->one_minus_beta1,
                                a->one_minus_beta2, a->neg_step_size, a->bias_correction2_sqrt,
                                a->eps, a->weight_decay, s));
}

static void scratch_held(void);

/* Clipping's partial sums and norm, per device. Allocating per call would
 * cost a cudaFree, which waits for the GPU, every training step. */
static float *g_norm_scratch[MAX_DEVICES];
static size_t g_norm_scratch_floats[MAX_DEVICES];

static int cuda_clip_grad_norm(Device d, float *const *grads, const int64_t *sizes, int n,
                           float max_norm, float *total_norm)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    size_t need = 1; /* the partials of every tensor, then the norm */
    for (int i = 0; i < n; i++) need += (size_t)k_sum_squares_blocks(sizes[i]);
    if (need > g_norm_scratch_floats[d.index]) {
        void *grown = NULL;
        TRY(cuda_alloc(d, need * sizeof(float), &grown));
        cuda_free(d, g_norm_scratch[d.index], g_norm_scratch_floats[d.index] * sizeof(float));
        g_norm_scratch[d.index] = grown;
        g_norm_scratch_floats[d.index] = need;
        scratch_held();
    }
    float *partials = g_norm_scratch[d.index], *norm = partials + need - 1;
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        if (sizes[i] == 0) continue;
        TRY(launched("k_sum_squares", d, k_sum_squares(grads[i], sizes[i], partials + at, s)));
        at += (size_t)k_sum_squares_blocks(sizes[i]);
    }
    TRY(launched("k_norm_from_partials", d,
                 k_norm_from_partials(partials, (int64_t)at, norm, s)));
    for (int i = 0; i < n; i++) {
        if (sizes[i] == 0) continue;
        TRY(launched("k_clip_scale", d, k_clip_scale(grads[i], sizes[i], norm, max_norm, s)));
    }
    if (!total_norm) return ERR_OK;
    return cuda_copy(total_norm, device_cpu(), norm, d, sizeof(float));
}

/* ---- Lesson 05 ------------------------------------------------------------------ */

static int cuda_scale(Device d, float *p, int64_t n, float f)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_scale", d, k_scale(p, n, f, s));
}

static int cuda_add(Device d, float *y, const float *x, int64_t n)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    if (n == 0) return ERR_OK;
    return launched("k_add", d, k_add(y, x, n, s));
}

static int cuda_accumulate(Device d, float *acc, const float *x, float w)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_accumulate", d, k_accumulate(acc, x, w, s));
}

/* One found-inf flag per device, zero between reads. */
static int *g_found_inf[MAX_DEVICES];

static int cuda_unscale(Device d, float *g, int64_t n, float inv_scale)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    if (!g_found_inf[d.index]) {
        TRY(cuda_alloc(d, sizeof(int), (void **)&g_found_inf[d.index]));
        scratch_held();
        TRY(cuda_zero(d, g_found_inf[d.index], sizeof(int)));
    }
    return launched("k_unscale_check", d,
                    k_unscale_check(g, n, inv_scale, g_found_inf[d.index], s));
}

static int cuda_unscale_result(Device d, bool *found_inf)
{
    *found_inf = false;
    TRY(use(d));
    if (!g_found_inf[d.index]) return ERR_OK; /* nothing was unscaled */
    int flag = 0;
    TRY(cuda_copy(&flag, device_cpu(), g_found_inf[d.index], d, sizeof flag));
    *found_inf = flag != 0;
    return cuda_zero(d, g_found_inf[d.index], sizeof(int));
}

static int cuda_round(Device d, float *p, int64_t n, DType half)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    if (half == DTYPE_F32) return ERR_OK;
    return half == DTYPE_F16 ? launched("k_round_f16", d, k_round_f16(p, n, s))
                             : launched("k_round_bf16", d, k_round_bf16(p, n, s));
}

/* Scratch half buffers for backend_gemm_half's operands, grown as needed. */
static uint16_t *g_half_a[MAX_DEVICES], *g_half_b[MAX_DEVICES];
static size_t g_half_cap[MAX_DEVICES][2];

/* The scratch buffers above live as long as the program. They are freed at
 * its exit, so that a leak check at exit (compute-sanitizer's, the CUDA
 * simulator's) names only what the program itself still holds; registered at
 * the first one, after the CUDA runtime started, so it runs before the
 * runtime's own teardown. */
static void scratch_free_all(void)
{
    for (int i = 0; i < MAX_DEVICES; i++) {
        void *held[] = {g_norm_scratch[i], g_found_inf[i], g_half_a[i], g_half_b[i]};
        bool any = false;
        for (size_t k = 0; k < sizeof held / sizeof held[0]; k++) any = any || held[k];
        if (!any || cudaSetDevice(i) != cudaSuccess) continue;
        for (size_t k = 0; k < sizeof held / sizeof held[0]; k++)
            if (held[k]) cudaFree(held[k]);
        g_norm_scratch[i] = NULL;
        g_found_inf[i] = NULL;
        g_half_a[i] = g_half_b[i] = NULL;
        g_norm_scratch_floats[i] = 0;
        g_half_cap[i][0] = g_half_cap[i][1] = 0;
    }
}

static void scratch_held(void)
{
    static bool registered;
    if (!registered) {
        registered = true;
        atexit(scratch_free_all);
    }
}

static int half_scratch(Device d, int which, size_t count, uint16_t **out)
{
    uint16_t **p = which ? &g_half_b[d.index] : &g_half_a[d.index];
    size_t *cap = &g_half_cap[d.index][which];
    if (count > *cap) {
        cuda_free(d, *p, *cap * sizeof(uint16_t));
        *p = NULL;
        *cap = 0;
        TRY(cuda_alloc(d, count * sizeof(uint16_t), (void **)p));
        *cap = count;
        scratch_held();
    }
    *out = *p;
    return ERR_OK;
}

static int to_half(Device d, const float *x, uint16_t *h, int64_t n, DType half, cudaStream_t s)
{
    tl_open(d, s);
    return half == DTYPE_F16 ? launched("k_f32_to_f16", d, k_f32_to_f16(x, h, n, s))
                             : launched("k_f32_to_bf16", d, k_f32_to_bf16(x, h, n, s));
}

static int cuda_gemm_half(Device d, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                      const float *A, const float *B, float beta, float *C, DType half)
{
    cudaStream_t st = NULL;
    TRY(stream(d, &st));
    if (half != DTYPE_F16 && half != DTYPE_BF16)
        return err_set(ERR_ARG, "backend_gemm_half: float16 or bfloat16, not %s",
                       dtype_name(half));
    if (m > 2147483647 || n > 2147483647 || k > 2147483647)
        return err_set(ERR_ARG, "gemm: sizes beyond 2^31 are not supported by cublasGemmEx");
    TRY(blas_handle(d, st));
    int64_t lda = ta ? k : m, ldb = tb ? n : k;
    uint16_t *ah, *bh;
    TRY(half_scratch(d, 0, (size_t)(m * k), &ah));
    TRY(half_scratch(d, 1, (size_t)(k * n), &bh));
    TRY(to_half(d, A, ah, m * k, half, st));
    TRY(to_half(d, B, bh, k * n, half, st));
    cudaDataType t = half == DTYPE_F16 ? CUDA_R_16F : CUDA_R_16BF;
    tl_open(d, st);
    /* f32 output, then one rounding: the same as cuBLAS writing half directly. */
    cublasStatus_t s = cublasGemmEx(g_blas[d.index], ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                    tb ? CUBLAS_OP_T : CUBLAS_OP_N, (int)m, (int)n, (int)k, &alpha,
                                    ah, t, (int)lda, bh, t, (int)ldb, &beta, C, CUDA_R_32F, (int)m,
                                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    count_launch(d, "cublasGemmEx");
    if (s != CUBLAS_STATUS_SUCCESS) {
        const char *detail = sim_detail();
        return err_set(ERR_DEVICE, "cublasGemmEx (%lld x %lld x %lld, %s) on cuda:%d failed: %s%s%s",
                       (long long)m, (long long)n, (long long)k, dtype_name(half), d.index,
                       cublasGetStatusString(s), *detail ? "; " : "", detail);
    }
    return cuda_round(d, C, m * n, half);
}

static int cuda_sum(Device d, const float *x, int64_t n, float *out, bool deterministic)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    if (!deterministic) return launched("k_sum", d, k_sum(x, n, out, s));
    float *partials = NULL;
    size_t bytes = sizeof(float) * (size_t)k_sum_ordered_partials(n);
    TRY(cuda_alloc(d, bytes, (void **)&partials));
    int rc = launched("k_sum_ordered", d, k_sum_ordered(x, n, partials, out, s));
    counters_launch(1); /* its second kernel */
    cuda_free(d, partials, bytes);
    return rc;
}

#ifdef WB_NCCL
/* ---- collectives between GPUs: NCCL, on a stream of their own ----------------------- */

static cudaStream_t g_comm_stream[MAX_DEVICES];
static cudaEvent_t g_comm_ready[MAX_DEVICES], g_comm_done[MAX_DEVICES];

static int nccl_error(const char *op, Device d, ncclResult_t r)
{
    return err_set(ERR_DEVICE, "%s on cuda:%d: %s (NCCL result %d)", op, d.index,
                   ncclGetErrorString(r), (int)r);
}

static const char *cuda_comm_engine(char *buf, size_t size)
{
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess) v = 0;
    snprintf(buf, size, "NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
    return buf;
}

static int cuda_comm_id(void *id, size_t size, size_t *len)
{
    ncclUniqueId u;
    if (size < sizeof u)
        return err_set(ERR_ARG, "NCCL's unique id takes %zu bytes, %zu given", sizeof u, size);
    ncclResult_t r = ncclGetUniqueId(&u);
    if (r != ncclSuccess) return nccl_error("ncclGetUniqueId", device_cuda(0), r);
    memcpy(id, &u, sizeof u);
    *len = sizeof u;
    return ERR_OK;
}

static int cuda_comm_init(Device d, const void *id, size_t len, int world, int rank, void **comm)
{
    TRY(use(d));
    ncclUniqueId u;
    if (len != sizeof u)
        return err_set(ERR_ARG, "NCCL's unique id has %zu bytes, not %zu", sizeof u, len);
    memcpy(&u, id, sizeof u);
    ncclComm_t c = NULL;
    ncclResult_t r = ncclCommInitRank(&c, world, u, rank);
    if (r != ncclSuccess) return nccl_error("ncclCommInitRank", d, r);
    *comm = c;
    return ERR_OK;
}

/* The collectives' stream on @p d, made to wait for the work queued so far. */
static int comm_stream(Device d, cudaStream_t *cs)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    int i = d.index;
    cudaError_t e = cudaSuccess;
    if (!g_comm_stream[i]) e = cudaStreamCreateWithFlags(&g_comm_stream[i], cudaStreamNonBlocking);
    if (e == cudaSuccess && !g_comm_ready[i])
        e = cudaEventCreateWithFlags(&g_comm_ready[i], cudaEventDisableTiming);
    if (e == cudaSuccess && !g_comm_done[i])
        e = cudaEventCreateWithFlags(&g_comm_done[i], cudaEventDisableTiming);
    if (e != cudaSuccess) return cuda_error("creating the collectives' stream", d, e);
    e = cudaEventRecord(g_comm_ready[i], s);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(g_comm_stream[i], g_comm_ready[i], 0);
    if (e != cudaSuccess) return cuda_error("ordering a collective after the work before it", d, e);
    *cs = g_comm_stream[i];
    return ERR_OK;
}

static int comm_queued(Device d, cudaStream_t cs)
{
    cudaError_t e = cudaEventRecord(g_comm_done[d.index], cs);
    if (e != cudaSuccess) return cuda_error("cudaEventRecord after a collective", d, e);
    counters_launch(1);
    return ERR_OK;
}

static int cuda_comm_all_reduce(void *comm, Device d, float *p, int64_t n)
{
    cudaStream_t cs = NULL;
    TRY(comm_stream(d, &cs));
    ncclResult_t r = ncclAllReduce(p, p, (size_t)n, ncclFloat, ncclSum, (ncclComm_t)comm, cs);
    if (r != ncclSuccess) return nccl_error("ncclAllReduce", d, r);
    return comm_queued(d, cs);
}

static int cuda_comm_broadcast(void *comm, Device d, void *p, size_t bytes, int root)
{
    cudaStream_t cs = NULL;
    TRY(comm_stream(d, &cs));
    ncclResult_t r = ncclBroadcast(p, p, bytes, ncclInt8, root, (ncclComm_t)comm, cs);
    if (r != ncclSuccess) return nccl_error("ncclBroadcast", d, r);
    return comm_queued(d, cs);
}

static int cuda_comm_wait(Device d)
{
    /* NULL: no collective yet */
    return stream_wait(d, g_comm_done[d.index], "cudaStreamWaitEvent for the collectives");
}

static void cuda_comm_free(void *comm)
{
    if (comm) ncclCommDestroy((ncclComm_t)comm);
}
#endif /* WB_NCCL */

static const BackendOps cuda_ops = {
    .name = CUDA_BACKEND_NAME,
    .host_memory = false,
    .device_count = cuda_device_count,
    .device_info = cuda_device_info,
    .synchronize = cuda_synchronize,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .zero = cuda_zero,
    .copy = cuda_copy,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .linear_forward = cuda_linear_forward,
    .linear_backward = cuda_linear_backward,
    .relu_forward = cuda_relu_forward,
    .relu_backward = cuda_relu_backward,
    .softmax_ce_forward = cuda_softmax_ce_forward,
    .softmax_ce_backward = cuda_softmax_ce_backward,
    .sgd_step = cuda_sgd_step,
    .sgd_momentum_step = cuda_sgd_momentum_step,
    .adam_step = cuda_adam_step,
    .clip_grad_norm = cuda_clip_grad_norm,
    .copy_rows = cuda_copy_rows,
    .transpose = cuda_transpose,
    .add_bias = cuda_add_bias,
    .sum_columns_add = cuda_sum_columns_add,
    .add = cuda_add,
    .scale = cuda_scale,
    .accumulate = cuda_accumulate,
    .sum = cuda_sum,
    .round = cuda_round,
    .gemm_half = cuda_gemm_half,
    .count_flushed = NULL, /* a GPU does not count the gradients rounding flushed */
    .unscale = cuda_unscale,
    .unscale_result = cuda_unscale_result,
    .gemm = cuda_gemm,
    .sgemm_kernel = cuda_sgemm_kernel,
    .sgemm_name = cuda_sgemm_name,
    .empty_kernel = cuda_empty_kernel,
#ifdef CUDASIM
    .model_clock = cuda_model_clock,
#endif
    .copy_async = cuda_copy_async,
    .copy_wait = cuda_copy_wait,
    .capture_begin = cuda_capture_begin,
    .capturing = cuda_capturing,
    .capture_end = cuda_capture_end,
    .graph_nodes = cuda_graph_nodes,
    .graph_launch = cuda_graph_launch,
    .graph_free = cuda_graph_free,
    .mlp_train_fused = cuda_mlp_train_fused,
#ifdef WB_NCCL
    .comm_engine = cuda_comm_engine,
    .comm_id = cuda_comm_id,
    .comm_init = cuda_comm_init,
    .comm_all_reduce = cuda_comm_all_reduce,
    .comm_broadcast = cuda_comm_broadcast,
    .comm_wait = cuda_comm_wait,
    .comm_free = cuda_comm_free,
#endif
};

const BackendOps *backend_cuda(void) { return &cuda_ops; }
