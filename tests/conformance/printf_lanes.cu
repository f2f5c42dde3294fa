// printf in a kernel, "Hello World" style: one warp's lines come out lane
// by lane, a printf at a time (the order a GPU's printf buffer gives them).
#include <cstdio>

__host__ __device__ void where(const char *who, int i)
{
    printf("%s %d\n", who, i);
}

__global__ void hello(int base)
{
    printf("Hello from block %d, thread %d\n", blockIdx.x, threadIdx.x);
    std::printf("thread %d has %d\n", threadIdx.x, base + threadIdx.x);
    __syncthreads();
    if (threadIdx.x % 2) where("odd thread", threadIdx.x);
}

int main()
{
    hello<<<1, 6>>>(100);
    cudaDeviceSynchronize();
    where("host", 0);
    printf("That's all!\n");
    return 0;
}
