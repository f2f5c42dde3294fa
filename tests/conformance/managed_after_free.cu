// A bug: host code reads managed memory after cudaFree released it. On a
// GPU machine the pages are gone and the program dies of a SIGSEGV; here
// too, after one line that says what and where.
#include <cstdio>
__global__ void fill(int *v) { v[threadIdx.x] = threadIdx.x; }
int main()
{
    int *v;
    cudaMallocManaged(&v, 32 * sizeof(int));
    fill<<<1, 32>>>(v);
    cudaDeviceSynchronize();
    printf("v[3] = %d\n", v[3]);
    fflush(stdout);
    cudaFree(v);
    printf("v[3] = %d\n", v[3]); /* after cudaFree */
    return 0;
}
