// A bug: __reduce_add_sync over the whole warp, which lanes 16-31 never reach
// (they return first; warp_reduce_lane_returns.flags: built for sm_80). On a GPU
// this hangs or gives garbage; the simulator reports the lane that returned.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void never_comes(int *out)
{
    int lane = threadIdx.x % 32;
    if (lane >= 16) return;
    out[lane] = __reduce_add_sync(0xffffffffu, lane);
}

int main(void)
{
    int *i;
    cudaMalloc(&i, 32 * sizeof(int));
    never_comes<<<1, 32>>>(i);
    cudaError_t e = cudaDeviceSynchronize();
    printf("never_comes: %s\n", e == cudaSuccess ? "no error reported" : "the launch failed");
    return 0;
}
