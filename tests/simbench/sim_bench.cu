/* sim_bench.cu: what a kernel costs on the simulator beside the same work as a
 * plain C loop (sim_bench_ref.c), for `make sim-bench` (sim_bench.sh runs it
 * once per way of checking and prints the ratios).
 *
 *   sim_bench full|sample [CASE...]
 *
 * Each case runs its kernels for a number of launches and times them
 * (wall clock, the launches and their copies), times its C loop on the same
 * work (the fastest of three runs, scaled to the launches), checks the
 * kernel's result against the loop's, and prints one line:
 *
 *   CASE launches L c S sim S ok|WRONG
 *
 * full runs each case at its own size (matrixMul: 301 launches; simpleStreams:
 * ten passes); sample runs fewer launches, or a band of the rows of the 1024^3
 * products, for the ways of checking that cost the most. The kernels are
 * written here after the patterns of NVIDIA's samples and of siboehm's SGEMM
 * series, not copied. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "kernels.h"
#include "sim_bench.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define CK(call)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

static bool g_sample;

static void fill(float *x, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((seed >> 9) & 0xffff) / 65536.0f - 0.5f;
    }
}

static bool close_all(const float *a, const float *b, size_t n, float tol)
{
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(a[i] - b[i]) <= tol * (1.0f + fabsf(b[i])))) return false;
    return true;
}

static void line(const char *name, int launches, double c, double sim, bool ok)
{
    printf("%s launches %d c %.6f sim %.6f %s\n", name, launches, c, sim, ok ? "ok" : "WRONG");
    fflush(stdout);
}

/* The fastest of three runs of the C loop. */
#define TIME_C(out, stmt)                          \
    do {                                           \
        out = 1e30;                                \
        for (int r_ = 0; r_ < 3; r_++) {           \
            double t0_ = now();                    \
            stmt;                                  \
            double t_ = now() - t0_;               \
            if (t_ < out) out = t_;                \
        }                                          \
    } while (0)

/* ---- a matrix product's buffers, shared by the three GEMM cases ---- */

/* C = A B: A, B and C on the host and the device, R the C loop's C. */
struct Gemm {
    size_t nA, nB, nC;
    float *A, *B, *C, *R, *dA, *dB, *dC;
};

static Gemm gemm_setup(size_t nA, size_t nB, size_t nC, unsigned seed)
{
    Gemm g = {nA, nB, nC, (float *)malloc(nA * 4), (float *)malloc(nB * 4), (float *)malloc(nC * 4),
              (float *)malloc(nC * 4), nullptr, nullptr, nullptr};
    fill(g.A, nA, seed), fill(g.B, nB, seed + 1);
    CK(cudaMalloc(&g.dA, nA * 4));
    CK(cudaMalloc(&g.dB, nB * 4));
    CK(cudaMalloc(&g.dC, nC * 4));
    return g;
}

static void gemm_upload(const Gemm &g)
{
    CK(cudaMemcpy(g.dA, g.A, g.nA * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(g.dB, g.B, g.nB * 4, cudaMemcpyHostToDevice));
}

/* The first n elements of C back, after the launches. */
static void gemm_download(const Gemm &g, size_t n)
{
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(g.C, g.dC, n * 4, cudaMemcpyDeviceToHost));
}

static void gemm_free(Gemm &g)
{
    CK(cudaFree(g.dA));
    CK(cudaFree(g.dB));
    CK(cudaFree(g.dC));
    free(g.A), free(g.B), free(g.C), free(g.R);
}

/* ---- NVIDIA's matrixMul pattern: 32x32 tiles of A and B in shared memory ---- */

template <int BS>
__global__ void matrix_mul(float *C, const float *A, const float *B, int wA, int wB)
{
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    int aBegin = wA * BS * by, aEnd = aBegin + wA - 1, aStep = BS;
    int bBegin = BS * bx, bStep = BS * wB;
    float sum = 0;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        __shared__ float As[BS][BS];
        __shared__ float Bs[BS][BS];
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
        for (int k = 0; k < BS; ++k) sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[wB * BS * by + BS * bx + wB * ty + tx] = sum;
}

static void case_matrixmul(void)
{
    const int BS = 32, hA = 10 * BS, wA = 10 * BS, wB = 20 * BS; /* the sample's own sizes */
    int launches = g_sample ? 4 : 301;                           /* a warm-up and 300 */
    Gemm g = gemm_setup((size_t)hA * wA, (size_t)wA * wB, (size_t)hA * wB, 0);
    for (size_t i = 0; i < g.nA; i++) g.A[i] = 1.0f; /* the sample's values */
    for (size_t i = 0; i < g.nB; i++) g.B[i] = 0.01f;
    double t0 = now();
    gemm_upload(g);
    dim3 threads(BS, BS), grid(wB / BS, hA / BS);
    for (int i = 0; i < launches; i++) matrix_mul<BS><<<grid, threads>>>(g.dC, g.dA, g.dB, wA, wB);
    gemm_download(g, g.nC);
    double sim = now() - t0, c;
    TIME_C(c, ref_matmul(g.R, g.A, g.B, hA, wA, wB));
    line("matrixMul", launches, c * launches, sim, close_all(g.C, g.R, g.nC, 1e-4f));
    gemm_free(g);
}

/* ---- NVIDIA's simpleStreams pattern: 16 Mi ints, four streams, ten passes ---- */

__global__ void init_array(int *g_data, const int *factor, int num_iterations)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < num_iterations; i++) g_data[idx] += *factor;
}

static void case_simplestreams(void)
{
    const int nstreams = 4, niterations = 5, nthreads = 512;
    int nreps = g_sample ? 2 : 10;
    const size_t n = 16u << 20;
    int *a, *d_a, *d_c, c_factor = 5;
    CK(cudaMallocHost(&a, n * 4));
    CK(cudaMalloc(&d_a, n * 4));
    CK(cudaMalloc(&d_c, 4));
    cudaStream_t streams[nstreams];
    for (int i = 0; i < nstreams; i++) CK(cudaStreamCreate(&streams[i]));
    double t0 = now();
    CK(cudaMemset(d_a, 0, n * 4));
    CK(cudaMemcpy(d_c, &c_factor, 4, cudaMemcpyHostToDevice));
    dim3 threads(nthreads), blocks((unsigned)(n / (nstreams * nthreads)));
    for (int k = 0; k < nreps; k++) {
        for (int i = 0; i < nstreams; i++)
            init_array<<<blocks, threads, 0, streams[i]>>>(d_a + i * n / nstreams, d_c, niterations);
        for (int i = 0; i < nstreams; i++)
            CK(cudaMemcpyAsync(a + i * n / nstreams, d_a + i * n / nstreams, n / nstreams * 4,
                               cudaMemcpyDeviceToHost, streams[i]));
    }
    CK(cudaDeviceSynchronize());
    double sim = now() - t0, c;
    int *r = (int *)malloc(n * 4);
    TIME_C(c, (memset(r, 0, n * 4), ref_add_factor(r, n, c_factor, niterations), memcpy(a, a, 0)));
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) ok = a[i] == c_factor * niterations * nreps;
    line("simpleStreams", nreps * nstreams, c * nreps, sim, ok);
    for (int i = 0; i < nstreams; i++) CK(cudaStreamDestroy(streams[i]));
    CK(cudaFree(d_a));
    CK(cudaFree(d_c));
    CK(cudaFreeHost(a));
    free(r);
}

/* ---- SGEMM at 1024^3, row-major: naive and 32x32 shared-memory tiles ---- */

__global__ void sgemm_naive(int n, const float *A, const float *B, float *C)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0;
    for (int k = 0; k < n; k++) acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
}

#define TILE 32
__global__ void sgemm_tiled(int n, const float *A, const float *B, float *C)
{
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

static void case_sgemm(bool tiled)
{
    const int n = 1024;
    int rows = g_sample ? 64 : n; /* sample: a band of C's rows */
    size_t nn = (size_t)n * n;
    Gemm g = gemm_setup(nn, nn, nn, 1);
    double t0 = now();
    gemm_upload(g);
    dim3 block(32, 32), grid(n / 32, rows / 32);
    if (tiled)
        sgemm_tiled<<<grid, block>>>(n, g.dA, g.dB, g.dC);
    else
        sgemm_naive<<<grid, block>>>(n, g.dA, g.dB, g.dC);
    gemm_download(g, (size_t)rows * n);
    double sim = now() - t0, c;
    TIME_C(c, ref_sgemm_rows(g.R, g.A, g.B, n, rows));
    line(tiled ? "sgemm-tiled-1024" : "sgemm-naive-1024", 1, c, sim,
         close_all(g.C, g.R, (size_t)rows * n, 1e-3f));
    gemm_free(g);
}

/* ---- a sum of 64 Mi floats: grid-stride loads, then a tree in shared memory ---- */

__global__ void reduce_sum(const float *x, size_t n, float *partials)
{
    __shared__ float s[256];
    float acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        acc += x[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if ((int)threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = s[0];
}

static void case_reduce(void)
{
    size_t n = g_sample ? (8u << 20) : (64u << 20);
    const int blocks = 1024;
    float *x = (float *)malloc(n * 4), *dx, *dp, *dsum, sum;
    fill(x, n, 3);
    CK(cudaMalloc(&dx, n * 4));
    CK(cudaMalloc(&dp, blocks * 4));
    CK(cudaMalloc(&dsum, 4));
    double t0 = now();
    CK(cudaMemcpy(dx, x, n * 4, cudaMemcpyHostToDevice));
    reduce_sum<<<blocks, 256>>>(dx, n, dp);
    reduce_sum<<<1, 256>>>(dp, blocks, dsum);
    CK(cudaMemcpy(&sum, dsum, 4, cudaMemcpyDeviceToHost));
    double sim = now() - t0, c;
    float r = 0;
    TIME_C(c, r = ref_sum(x, n));
    line(g_sample ? "reduce-8Mi" : "reduce-64Mi", 2, c, sim, fabsf(sum - r) <= 1e-3f * (1 + fabsf(r)) + 1.0f);
    CK(cudaFree(dx));
    CK(cudaFree(dp));
    CK(cudaFree(dsum));
    free(x);
}

/* ---- an inclusive scan of each 1024 ints: Hillis-Steele, two barriers a step ---- */

__global__ void scan_block(const int *in, int *out)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + t;
    s[t] = in[i];
    __syncthreads();
    for (int d = 1; d < (int)blockDim.x; d <<= 1) {
        int v = t >= d ? s[t - d] : 0;
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    out[i] = s[t];
}

static void case_scan(void)
{
    size_t n = g_sample ? (1u << 20) : (4u << 20);
    int *in = (int *)malloc(n * 4), *out = (int *)malloc(n * 4), *r = (int *)malloc(n * 4);
    for (size_t i = 0; i < n; i++) in[i] = (int)(i % 7) - 3;
    int *din, *dout;
    CK(cudaMalloc(&din, n * 4));
    CK(cudaMalloc(&dout, n * 4));
    double t0 = now();
    CK(cudaMemcpy(din, in, n * 4, cudaMemcpyHostToDevice));
    scan_block<<<(unsigned)(n / 1024), 1024>>>(din, dout);
    CK(cudaMemcpy(out, dout, n * 4, cudaMemcpyDeviceToHost));
    double sim = now() - t0, c;
    TIME_C(c, ref_scan_segments(r, in, n, 1024));
    line("scan-syncthreads", 1, c, sim, memcmp(out, r, n * 4) == 0);
    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(in), free(out), free(r);
}

/* ---- what a __syncthreads costs a thread: a kernel of nothing else ---- */

__global__ void barriers_only(int rounds, int *out)
{
    for (int r = 0; r < rounds; r++) __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = rounds;
}

static void case_syncthreads(void)
{
    const int blocks = 64, threads = 256, rounds = g_sample ? 50 : 200;
    int *d;
    CK(cudaMalloc(&d, blocks * 4));
    barriers_only<<<blocks, threads>>>(1, d); /* the stacks of the fibers made once */
    CK(cudaDeviceSynchronize());
    double t0 = now();
    barriers_only<<<blocks, threads>>>(rounds, d);
    CK(cudaDeviceSynchronize());
    double sim = now() - t0;
    printf("syncthreads-cost ns-per-thread-barrier %.1f\n", sim * 1e9 / ((double)blocks * threads * rounds));
    fflush(stdout);
    CK(cudaFree(d));
}

/* ---- the workbook's own kernels (kernels/): Adam's step and the tiled SGEMM ---- */

static void case_adam(void)
{
    size_t n = g_sample ? (1u << 20) : (4u << 20);
    int steps = g_sample ? 2 : 5;
    float *h[4], *d[4];
    for (int k = 0; k < 4; k++) {
        h[k] = (float *)malloc(n * 4);
        fill(h[k], n, 10 + k);
        CK(cudaMalloc(&d[k], n * 4));
    }
    for (size_t i = 0; i < n; i++) h[3][i] = fabsf(h[3][i]); /* v >= 0 */
    float *out = (float *)malloc(n * 4);
    double t0 = now();
    for (int k = 0; k < 4; k++) CK(cudaMemcpy(d[k], h[k], n * 4, cudaMemcpyHostToDevice));
    for (int s = 0; s < steps; s++)
        CK(k_adam_step(d[0], d[1], d[2], d[3], (int64_t)n, 0.9f, 0.999f, 0.1f, 0.001f, -1e-3f,
                       0.05f, 1e-8f, 0.0f, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out, d[0], n * 4, cudaMemcpyDeviceToHost));
    double sim = now() - t0, c;
    float *p = (float *)malloc(n * 4), *m = (float *)malloc(n * 4), *v = (float *)malloc(n * 4);
    TIME_C(c, (memcpy(p, h[0], n * 4), memcpy(m, h[2], n * 4), memcpy(v, h[3], n * 4),
               ref_adam(p, h[1], m, v, n, 0.9f, 0.999f, 0.1f, 0.001f, -1e-3f, 0.05f, 1e-8f)));
    double c_steps = c; /* one step, then steps - 1 more on the same buffers */
    for (int s = 1; s < steps; s++) ref_adam(p, h[1], m, v, n, 0.9f, 0.999f, 0.1f, 0.001f, -1e-3f, 0.05f, 1e-8f);
    line("workbook-adam", steps, c_steps * steps, sim, close_all(out, p, n, 1e-4f));
    for (int k = 0; k < 4; k++) {
        CK(cudaFree(d[k]));
        free(h[k]);
    }
    free(out), free(p), free(m), free(v);
}

static void case_workbook_sgemm(void)
{
    const int n = g_sample ? 256 : 512;
    size_t nn = (size_t)n * n;
    Gemm g = gemm_setup(nn, nn, nn, 4);
    double t0 = now();
    gemm_upload(g);
    CK(k_sgemm(1, n, n, n, 1.0f, g.dA, n, g.dB, n, 0.0f, g.dC, n, 0));
    gemm_download(g, nn);
    double sim = now() - t0, c;
    TIME_C(c, ref_sgemm_colmajor(g.R, g.A, g.B, n));
    line(g_sample ? "workbook-sgemm-256" : "workbook-sgemm-512", 1, c, sim, close_all(g.C, g.R, nn, 1e-3f));
    gemm_free(g);
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "full") && strcmp(argv[1], "sample"))) {
        fprintf(stderr, "usage: sim_bench full|sample [CASE...]\n");
        return 2;
    }
    g_sample = !strcmp(argv[1], "sample");
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"matrixMul", case_matrixmul},
        {"simpleStreams", case_simplestreams},
        {"sgemm-naive", [] { case_sgemm(false); }},
        {"sgemm-tiled", [] { case_sgemm(true); }},
        {"reduce", case_reduce},
        {"scan", case_scan},
        {"syncthreads", case_syncthreads},
        {"workbook-adam", case_adam},
        {"workbook-sgemm", case_workbook_sgemm},
    };
    for (const auto &k : cases) {
        bool wanted = argc == 2;
        for (int i = 2; i < argc; i++) wanted |= !strcmp(argv[i], k.name);
        if (wanted) k.run();
    }
    return 0;
}
