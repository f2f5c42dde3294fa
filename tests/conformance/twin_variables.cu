// A kernel's later launches run its uninstrumented twin (docs/simulator.md,
// "Checked, then run"): the same code compiled without the calls that check
// each access, in a shared object beside the program. The twin must reach the
// program's own __device__ and __constant__ variables (a static one too), not
// copies of its own: each kernel adds to a variable ten times, and the host
// reads the sums back. The first four launches of each kernel are checked; the
// six after them run the twin, those of the static kernel and of the kernel of
// an anonymous namespace too (the build gives functions of internal linkage
// global names of their own, translate/twin_globalize.sh), and the summary
// counts them (twin_variables.env asks for it).
#include <cstdio>
#include <cuda_runtime.h>

__device__ int g_sum[32];
static __device__ float s_sum[32];
__constant__ int c_step;

__global__ void add_device(void)
{
    __shared__ int staged[32];
    staged[threadIdx.x] = c_step;
    __syncthreads();
    g_sum[threadIdx.x] += staged[31 - threadIdx.x];
}

static __global__ void add_static(float scale)
{
    s_sum[threadIdx.x] += scale * (float)c_step;
}

template <typename T>
__global__ void add_template(T *out, T step)
{
    out[threadIdx.x] += step;
}

namespace {
__global__ void add_anonymous(int *out)
{
    out[threadIdx.x] += 1;
}
} // namespace

int main(void)
{
    int step = 3;
    cudaMemcpyToSymbol(c_step, &step, sizeof step);
    double *d_t;
    int *d_a;
    cudaMalloc(&d_t, 32 * sizeof(double));
    cudaMalloc(&d_a, 32 * sizeof(int));
    cudaMemset(d_t, 0, 32 * sizeof(double));
    cudaMemset(d_a, 0, 32 * sizeof(int));
    for (int launch = 0; launch < 10; launch++) {
        add_device<<<1, 32>>>();
        add_static<<<1, 32>>>(0.5f);
        add_template<double><<<1, 32>>>(d_t, 0.25);
        add_anonymous<<<1, 32>>>(d_a);
    }
    int h_g[32], h_a[32];
    float h_s[32];
    double h_t[32];
    cudaMemcpyFromSymbol(h_g, g_sum, sizeof h_g);
    cudaMemcpyFromSymbol(h_s, s_sum, sizeof h_s);
    cudaMemcpy(h_t, d_t, sizeof h_t, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_a, d_a, sizeof h_a, cudaMemcpyDeviceToHost);
    printf("__device__ sums: %d %d\n", h_g[0], h_g[31]);
    printf("static __device__ sums: %g %g\n", h_s[0], h_s[31]);
    printf("template kernel's sums: %g %g\n", h_t[0], h_t[31]);
    printf("anonymous kernel's sums: %d %d\n", h_a[0], h_a[31]);
    cudaFree(d_t);
    cudaFree(d_a);
    return 0;
}
