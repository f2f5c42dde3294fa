// Template kernels launched every way they are written: explicit template
// arguments (block_max<int, 128><<<g, b>>>), arguments that deduce them,
// odd spacing, a launch over several lines.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

template <typename T, int BLOCK>
__global__ void block_max(const T *in, T *out, int n)
{
    __shared__ T best[BLOCK];
    int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    best[t] = i < n ? in[i] : in[0];
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if (t < s && best[t + s] > best[t]) best[t] = best[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = best[0];
}

template <typename T>
__global__ void scale(T *x, T factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}

int main(void)
{
    const int n = 1000, blocks = (n + 127) / 128;
    int hi[n], maxima[blocks];
    double hd[n];
    for (int i = 0; i < n; i++) {
        hi[i] = (i * 7919) % 10007;
        hd[i] = i * 0.25;
    }
    int *di, *dmax;
    double *dd;
    CHECK(cudaMalloc(&di, sizeof hi));
    CHECK(cudaMalloc(&dmax, sizeof maxima));
    CHECK(cudaMalloc(&dd, sizeof hd));
    CHECK(cudaMemcpy(di, hi, sizeof hi, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dd, hd, sizeof hd, cudaMemcpyHostToDevice));

    block_max<int, 128><<<blocks, 128>>>(di, dmax, n);
    CHECK(cudaGetLastError());
    scale<<<(n + 255) / 256,256>>>(dd, 2.0, n);          /* T = double, deduced */
    scale<int> <<< blocks , 128 >>> (di, 3, n);          /* spaces everywhere */
    scale<double>
        <<<(n + 63) / 64,
           64>>>(dd, 0.5, n);                            /* over several lines */
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(maxima, dmax, sizeof maxima, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hd, dd, sizeof hd, cudaMemcpyDeviceToHost));
    int top = 0;
    for (int b = 0; b < blocks; b++) top = maxima[b] > top ? maxima[b] : top;
    printf("block maxima: first %d, last %d, overall %d\n", maxima[0], maxima[blocks - 1], top);
    printf("scaled ints: %d %d; doubles: %g %g\n", hi[1], hi[n - 1], hd[1], hd[n - 1]);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return 0;
}
