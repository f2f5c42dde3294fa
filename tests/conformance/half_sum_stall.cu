// A bug: a sum kept in __half. Adding two arrays of 0.1 into a half sum,
// s = s + x[i] + y[i], stops growing at 256: there halves are 0.25 apart,
// and each addition, rounded to half on a GPU, adds 0.1 to 256 and rounds
// back to 256. A GPU prints 256, not about 2000 (and not the 512 that a
// float s + x[i] + y[i] rounded once would reach). The usual fix is the
// float accumulator beside it.
#include <cstdio>
#include <cuda_fp16.h>

__global__ void accumulate(const __half *x, const __half *y, int n, __half *hsum, float *fsum)
{
    __half s = __float2half(0.0f);
    float f = 0.0f;
    for (int i = 0; i < n; i++) {
        s = s + x[i] + y[i]; // the bug: each partial sum rounded to half
        f += __half2float(x[i]) + __half2float(y[i]);
    }
    *hsum = s;
    *fsum = f;
}

int main(void)
{
    const int n = 10000;
    static __half x[n];
    for (int i = 0; i < n; i++) x[i] = __float2half(0.1f);
    __half *dx, *dh, hsum;
    float *df, fsum;
    cudaMalloc(&dx, sizeof x);
    cudaMalloc(&dh, sizeof(__half));
    cudaMalloc(&df, sizeof(float));
    cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
    accumulate<<<1, 1>>>(dx, dx, n, dh, df);
    cudaMemcpy(&hsum, dh, sizeof hsum, cudaMemcpyDeviceToHost);
    cudaMemcpy(&fsum, df, sizeof fsum, cudaMemcpyDeviceToHost);
    printf("%d x (%.8f + %.8f) summed in __half: %.4f; in float: %.4f\n", n, __half2float(x[0]),
           __half2float(x[0]), __half2float(hsum), fsum);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return 0;
}
