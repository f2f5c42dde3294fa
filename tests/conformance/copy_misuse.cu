// Three runtime-call bugs from textbook code: a copy with its kind
// swapped, a copy back longer than the buffer, and a second cudaFree. Each
// call returns an error, and the report names the line that made it.
#include <cstdio>

int main()
{
    const int n = 256;
    float h[n + 1], *d;
    for (int i = 0; i < n; i++) h[i] = i;
    cudaMalloc(&d, n * sizeof(float));
    cudaError_t e = cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("swapped kind: %s\n", cudaGetErrorName(e));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    e = cudaMemcpy(h, d, (n + 1) * sizeof(float), cudaMemcpyDeviceToHost);
    printf("one element too many: %s\n", cudaGetErrorName(e));
    cudaFree(d);
    e = cudaFree(d);
    printf("second cudaFree: %s\n", cudaGetErrorName(e));
    return 0;
}
