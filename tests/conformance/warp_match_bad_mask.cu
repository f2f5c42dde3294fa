// A bug: lane 31 calls __match_any_sync with a mask that leaves it out
// (warp_match_bad_mask.flags: built for sm_80). A GPU's result is undefined;
// the simulator reports the lane, as for a shuffle (warp_reduce_lane_returns.cu:
// a lane of the mask that never calls).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void left_out(unsigned *out)
{
    unsigned lane = threadIdx.x % 32;
    out[lane] = __match_any_sync(0x7fffffffu, lane / 4);
}

int main(void)
{
    unsigned *u;
    cudaMalloc(&u, 32 * sizeof(unsigned));
    left_out<<<1, 32>>>(u);
    cudaError_t e = cudaDeviceSynchronize();
    printf("left_out: %s\n", e == cudaSuccess ? "no error reported" : "the launch failed");
    return 0;
}
