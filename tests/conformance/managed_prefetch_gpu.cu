// A bug on some GPUs: prefetching managed memory to the GPU without asking
// whether the device allows it. CUDA refuses it where
// cudaDevAttrConcurrentManagedAccess is 0 (GPUs under Windows and before
// Pascal: the simulator with CUDASIM_MANAGED=windows), which programs that
// check their errors see.
#include <cstdio>

int main(void)
{
    const int n = 1024;
    float *x;
    cudaMallocManaged(&x, n * sizeof(float));
    cudaMemLocation gpu = {cudaMemLocationTypeDevice, 0};
    cudaError_t e = cudaMemPrefetchAsync(x, n * sizeof(float), gpu, 0, 0);
    printf("cudaMemPrefetchAsync to the GPU: %s\n", cudaGetErrorString(e));
    e = cudaMemAdvise(x, n * sizeof(float), cudaMemAdviseSetAccessedBy, gpu);
    printf("cudaMemAdvise(cudaMemAdviseSetAccessedBy) the GPU: %s\n", cudaGetErrorString(e));
    cudaFree(x);
    return 0;
}
