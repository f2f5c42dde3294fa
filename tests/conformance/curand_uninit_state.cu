// A bug: the states are used without curand_init (the setup kernel was
// never launched), so every thread starts from whatever the memory held.
// On a GPU the numbers are garbage, often the same in every thread;
// compute-sanitizer's initcheck, and the simulator, report the read.
#include <cstdio>
#include <cuda_runtime.h>
#include <curand_kernel.h>

__global__ void setup(curandState *states, unsigned long long seed)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curand_init(seed, id, 0, &states[id]);
}

__global__ void draw(curandState *states, float *out)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState s = states[id];
    out[id] = curand_uniform(&s);
    states[id] = s;
}

int main(void)
{
    const int n = 128;
    curandState *states;
    float *out;
    cudaMalloc(&states, n * sizeof(curandState));
    cudaMalloc(&out, n * sizeof(float));
    /* setup<<<n / 64, 64>>>(states, 7);   forgotten */
    draw<<<n / 64, 64>>>(states, out);
    cudaDeviceSynchronize();
    printf("drew %d numbers\n", n);
    return 0;
}
