// A bug: the kernel is launched with the host array instead of its device
// copy. On a GPU the kernel faults where it writes; the simulator could
// reach host memory, so it says so at the launch.
#include <cstdio>
#include <cstdlib>
__global__ void fill(int *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = i;
}
int main()
{
    const int n = 100;
    int *h = (int *)calloc(n, sizeof(int)), *d;
    cudaMalloc(&d, n * sizeof(int));
    fill<<<1, 128>>>(d, n);
    fill<<<1, 128>>>(h, n); /* meant d */
    cudaDeviceSynchronize();
    printf("launched\n");
    return 0;
}
