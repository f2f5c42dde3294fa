// A program written against the CUDA samples' helpers, built without their
// Common folder on the include path: nvcc cannot find helper_cuda.h, and the
// simulator says where it is and how to give it (INCLUDE).
#include <cstdio>
#include <cuda_runtime.h>
#include <helper_cuda.h>

int main(int argc, char **argv)
{
    int dev = findCudaDevice(argc, (const char **)argv);
    checkCudaErrors(cudaSetDevice(dev));
    printf("Result = PASS\n");
    return 0;
}
