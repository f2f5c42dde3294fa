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
/* All of lib's work on a device goes to one stream of its own: a blocking
 * stream (cudaStreamCreate), so a plain cudaMemcpy, which runs on the legacy
 * default stream, still waits for every kernel issued before it. One stream
 * of our own is also what CUDA Graph capture needs (it refuses the legacy
 * stream). Lesson 03's overlapped copies use a second stream and an event. */
static cudaStream_t g_stream[MAX_DEVICES], g_copy_stream[MAX_DEVICES];
static cudaEvent_t g_copied[MAX_DEVICES];
static bool g_capturing[MAX_DEVICES];

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

/* Make @p d current and give the stream lib's work on it goes to. */
static int stream(Device d, cudaStream_t *s)
{
    TRY(use(d));
    if (!g_stream[d.index]) {
        cudaError_t e = cudaStreamCreate(&g_stream[d.index]);
        if (e != cudaSuccess) return cuda_error("cudaStreamCreate", d, e);
    }
    *s = g_stream[d.index];
    return ERR_OK;
}

/* Count a launch, unless it was only recorded into a graph. */
static void count_launch(Device d)
{
    if (!g_capturing[d.index]) counters_launch(1);
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
    /* cudaFree waits for the GPU to finish whatever may still use the memory. */
    if (cudaFree(ptr) == cudaSuccess) {
        counters_memory(-(long long)bytes);
        counters_sync();
    }
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
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    cudaError_t e = cudaMemsetAsync(p, 0, bytes, s);
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
    count_launch(d);
    if (e != cudaSuccess) return cuda_error(kernel, d, e);
    return ERR_OK;
}

int backend_gemm(Device d, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                 const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                 int64_t ldc)
{
    cudaStream_t st = NULL;
    TRY(stream(d, &st));
    if (m > 2147483647 || n > 2147483647 || k > 2147483647 || lda > 2147483647 ||
        ldb > 2147483647 || ldc > 2147483647)
        return err_set(ERR_ARG, "gemm: sizes beyond 2^31 are not supported by cublasSgemm");
    if (!g_blas[d.index]) {
        cublasStatus_t s = cublasCreate(&g_blas[d.index]);
        if (s != CUBLAS_STATUS_SUCCESS)
            return err_set(ERR_DEVICE, "cublasCreate on cuda:%d failed: %s", d.index,
                           cublasGetStatusString(s));
        cublasSetStream(g_blas[d.index], st);
    }
    cublasStatus_t s = cublasSgemm(g_blas[d.index], ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                   tb ? CUBLAS_OP_T : CUBLAS_OP_N, (int)m, (int)n, (int)k, &alpha,
                                   A, (int)lda, B, (int)ldb, &beta, C, (int)ldc);
    count_launch(d);
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
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    if (variant < 0 || variant >= K_SGEMM_VARIANTS)
        return err_set(ERR_ARG, "sgemm: no kernel variant %d (0..%d)", variant,
                       K_SGEMM_VARIANTS - 1);
    return launched(k_sgemm_name(variant), d,
                    k_sgemm(variant, m, n, k, 1.0f, A, m, B, k, 0.0f, C, m, s));
}

const char *backend_sgemm_name(int variant)
{
    return variant >= 0 && variant < K_SGEMM_VARIANTS ? k_sgemm_name(variant) : NULL;
}

int backend_add_bias(Device d, float *y, const float *b, int64_t n, int64_t cols)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_add_bias", d, k_add_bias(y, b, n, cols, s));
}

int backend_sum_columns_add(Device d, const float *x, float *out, int64_t rows, int64_t cols)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_sum_columns", d, k_sum_columns(x, out, rows, cols, 1, s));
}

int backend_relu_forward(Device d, const float *x, float *y, int64_t n)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    err_clear();
    cudaError_t e = k_relu_forward(x, y, n, s);
    count_launch(d);
    if (e != cudaSuccess && err_code() == ERR_TODO) return ERR_TODO; /* still the stub */
    if (e != cudaSuccess) return cuda_error("k_relu_forward (exercise 02.4)", d, e);
    return ERR_OK;
}

int backend_relu_backward(Device d, const float *y, const float *dy, float *dx, int64_t n)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_relu_backward", d, k_relu_backward(y, dy, dx, n, s));
}

int backend_softmax_ce_forward(Device d, const float *logits, const int32_t *targets,
                               float *probs, float *loss, int64_t n, int64_t c)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    /* k_softmax_ce_forward zeroes the loss (a memset) and launches one kernel. */
    return launched("k_softmax_ce_forward", d,
                    k_softmax_ce_forward(logits, targets, probs, loss, n, c, s));
}

int backend_softmax_ce_backward(Device d, const float *probs, const int32_t *targets,
                                float *dlogits, int64_t n, int64_t c)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_softmax_ce_backward", d,
                    k_softmax_ce_backward(probs, targets, dlogits, n, c, s));
}

int backend_sgd_step(Device d, float *p, const float *g, int64_t n, float lr)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_sgd_step", d, k_sgd_step(p, g, n, lr, s));
}

int backend_copy_rows(Device d, const float *src, int64_t src_rows, int64_t src_start,
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

int backend_empty_kernel(Device d)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    return launched("k_empty", d, k_empty(s));
}

int backend_host_alloc(size_t bytes, void **ptr)
{
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

void backend_host_free(void *ptr)
{
    if (ptr) cudaFreeHost(ptr);
}

int backend_copy_async(Device d, void *dst, const void *src, size_t bytes)
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

int backend_copy_wait(Device d)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
    if (!g_copied[d.index]) return ERR_OK; /* nothing was copied */
    cudaError_t e = cudaStreamWaitEvent(s, g_copied[d.index], 0);
    if (e != cudaSuccess) return cuda_error("cudaStreamWaitEvent", d, e);
    return ERR_OK;
}

struct BackendGraph {
    Device device;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    size_t nodes;
};

int backend_capture_begin(Device d)
{
    cudaStream_t s = NULL;
    TRY(stream(d, &s));
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

int backend_capture_end(Device d, BackendGraph **out)
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
        backend_graph_free(g);
        return cuda_error("cudaGraphInstantiate", d, e);
    }
    *out = g;
    return ERR_OK;
}

size_t backend_graph_nodes(const BackendGraph *graph) { return graph ? graph->nodes : 0; }

int backend_graph_launch(BackendGraph *graph)
{
    if (!graph || !graph->exec) return err_set(ERR_ARG, "backend_graph_launch: no graph");
    cudaStream_t s = NULL;
    TRY(stream(graph->device, &s));
    return launched("cudaGraphLaunch", graph->device, cudaGraphLaunch(graph->exec, s));
}

void backend_graph_free(BackendGraph *graph)
{
    if (!graph) return;
    if (graph->exec) cudaGraphExecDestroy(graph->exec);
    if (graph->graph) cudaGraphDestroy(graph->graph);
    free(graph);
}

int backend_mlp_train_fused(Device d, const float *x, const int32_t *y, int64_t n, int64_t din,
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
