// NVIDIA's "An Even Easier Introduction to CUDA", its last form: managed
// memory, a grid-stride loop, the data prefetched to the GPU before the
// launch (CUDA 13's cudaMemPrefetchAsync: a cudaMemLocation and flags), and
// the maximum error checked on the host after cudaDeviceSynchronize. On a
// Pascal or newer GPU under Linux, which the simulator models by default, it
// runs clean.
#include <cmath>
#include <cstdio>
#include <iostream>

// Kernel function to add the elements of two arrays
__global__ void add(int n, float *x, float *y)
{
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    for (int i = index; i < n; i += stride) y[i] = x[i] + y[i];
}

int main(void)
{
    int N = 1 << 16;
    float *x, *y;

    // Allocate Unified Memory -- accessible from CPU or GPU
    cudaMallocManaged(&x, N * sizeof(float));
    cudaMallocManaged(&y, N * sizeof(float));

    // initialize x and y arrays on the host
    for (int i = 0; i < N; i++) {
        x[i] = 1.0f;
        y[i] = 2.0f;
    }

    // Prefetch the x and y arrays to the GPU
    cudaMemLocation device = {cudaMemLocationTypeDevice, 0};
    cudaMemPrefetchAsync(x, N * sizeof(float), device, 0, 0);
    cudaMemPrefetchAsync(y, N * sizeof(float), device, 0, 0);

    // Launch kernel on N elements on the GPU
    int blockSize = 256;
    int numBlocks = (N + blockSize - 1) / blockSize;
    add<<<numBlocks, blockSize>>>(N, x, y);

    // Wait for GPU to finish before accessing on host
    cudaDeviceSynchronize();

    // Check for errors (all values should be 3.0f)
    float maxError = 0.0f;
    for (int i = 0; i < N; i++) maxError = fmax(maxError, fabs(y[i] - 3.0f));
    std::cout << "Max error: " << maxError << std::endl;
    std::cout << "last error: " << cudaGetErrorString(cudaGetLastError()) << std::endl;

    // Free memory
    cudaFree(x);
    cudaFree(y);

    return 0;
}
