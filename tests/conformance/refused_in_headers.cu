// An error that g++ finds inside the simulator's own headers (here a launch
// with one argument too few, which the simulator's launcher checks): make
// sim-run shows it as one line at the program's line, saying what g++ said,
// never g++'s chain of instantiations and candidates in lib/cudasim (the
// .buildlog's last line names the file that keeps them). nvcc refuses it too.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float *x, float by, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= by;
}

int main(void)
{
    float *d;
    cudaMalloc(&d, 64 * sizeof(float));
    scale<<<1, 64>>>(d, 2.0f);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
