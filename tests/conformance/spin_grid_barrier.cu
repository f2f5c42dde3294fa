// A bug on the simulator, and a gamble on a GPU: a hand-made grid barrier,
// each block spinning until every block arrived (which needs every block
// resident at once; nothing guarantees it without a cooperative launch).
#include <cstdio>
__device__ unsigned arrived;
__global__ void grid_sync(int *out)
{
    if (threadIdx.x == 0) {
        atomicAdd(&arrived, 1);
        while (atomicAdd(&arrived, 0) < gridDim.x) { }
    }
    __syncthreads();
    out[blockIdx.x] = 1;
}
int main()
{
    int *d;
    cudaMalloc(&d, 4 * sizeof(int));
    grid_sync<<<4, 32>>>(d);
    printf("grid_sync: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
