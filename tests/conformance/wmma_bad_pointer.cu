// A bug: a tile loaded from half a row into a shared array (8 bytes in). CUDA
// documents the pointer as 256-bit aligned; a pointer 16 bytes aligned, as
// NVIDIA's immaTensorCoreGemm gives its char tiles, loads (the first call),
// but one that is not even 16 bytes aligned is undefined, and a GPU's 16-byte
// loads of its rows fault: the simulator stops the launch at that line.
#include <cstdio>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

__global__ void tiles(const signed char *a, int *out)
{
    __shared__ __align__(32) signed char s[16 * 48];
    for (int i = threadIdx.x; i < 16 * 48; i += 32) s[i] = a[i];
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::load_matrix_sync(fa, s + 16, 48); // 16 bytes in: loads
    if (threadIdx.x == 0) out[0] = fa.x[0];
    wmma::load_matrix_sync(fa, s + 8, 48); // BUG: 8 bytes in
    if (threadIdx.x == 0) out[1] = fa.x[0];
}

int main(void)
{
    signed char h[16 * 48];
    for (int i = 0; i < 16 * 48; i++) h[i] = 1;
    signed char *a;
    int *out;
    cudaMalloc(&a, sizeof h);
    cudaMalloc(&out, 2 * sizeof(int));
    cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
    tiles<<<1, 32>>>(a, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("tiles: %s\n", cudaGetErrorString(e));
    return 0;
}
