// A bug: an odd number of normals from the default (XORWOW) generator,
// which makes them in pairs. cuRAND refuses the call with
// CURAND_STATUS_LENGTH_NOT_MULTIPLE and fills nothing; a program that does
// not look at the status goes on with a buffer that nothing wrote.
#include <cstdio>
#include <cuda_runtime.h>
#include <curand.h>

int main(void)
{
    const int n = 1001;
    float *d;
    cudaMalloc(&d, n * sizeof(float));
    curandGenerator_t gen;
    curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
    curandSetPseudoRandomGeneratorSeed(gen, 5ULL);
    curandStatus_t s = curandGenerateNormal(gen, d, n, 0.0f, 1.0f);
    printf("curandGenerateNormal of %d numbers: status %d%s\n", n, (int)s,
           s == CURAND_STATUS_LENGTH_NOT_MULTIPLE ? " (CURAND_STATUS_LENGTH_NOT_MULTIPLE)" : "");
    s = curandGenerateNormal(gen, d, n - 1, 0.0f, 1.0f);
    printf("and of %d: status %d\n", n - 1, (int)s);
    curandDestroyGenerator(gen);
    return 0;
}
