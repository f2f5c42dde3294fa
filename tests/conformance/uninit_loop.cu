// A bug: the first kernel writes only the even elements, the second sums
// them all, reading the odd ones that nothing wrote. (The report must name
// this file even for a read in a loop that the compiler copied.)
#include <cstdio>
__global__ void evens(float *v, int n) { int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x); if (i < n) v[i] = 1; }
__global__ void total(const float *v, int n, float *out)
{
    float s = 0;
    for (int i = 0; i < n; i++) s += v[i];
    *out = s;
}
int main()
{
    const int n = 256;
    float *v, *out, r;
    cudaMalloc(&v, n * sizeof(float));
    cudaMalloc(&out, sizeof(float));
    evens<<<1, 128>>>(v, n);
    total<<<1, 1>>>(v, n, out);
    cudaMemcpy(&r, out, sizeof r, cudaMemcpyDeviceToHost);
    printf("done\n");
    return 0;
}
