// A program in the manner of NVIDIA's CUDA samples (simpleZeroCopy and
// vectorAdd): the toolkit's public headers by name, helpers from a folder on
// the include path (include/sample_helpers.h, given as INCLUDE, the way the
// samples' Common folder is), a device picked through cudaDeviceGetAttribute,
// host memory the program allocated itself registered and mapped for the
// kernel (cudaHostRegister with cudaHostRegisterMapped), and the verdict the
// samples print.
#include <cuda_runtime.h>
#include <device_launch_parameters.h>
#include <driver_types.h>
#include <math_constants.h>
#include <vector_functions.h>
#include <vector_types.h>

#include <sample_helpers.h>

#if !defined(__CUDA_RUNTIME_H__) || !defined(__DRIVER_TYPES_H__) || !defined(__VECTOR_TYPES_H__)
#error "the runtime's headers define the macros programs test"
#endif
#if CUDART_VERSION < 13000
#error "CUDA 13 or later"
#endif

__global__ void circles(const float2 *radius, float4 *out, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) {
        float r = radius[i].x, s = radius[i].y;
        out[i] = make_float4(CUDART_PI_F * r * r, 2.0f * CUDART_PI_F * r, s * CUDART_SQRT_TWO_F,
                             r + s);
    }
}

int main(int argc, char **argv)
{
    printf("[samples_style] - Starting...\n");
    int dev = findCudaDevice(argc, (const char **)argv);
    int can_map = 0;
    checkCudaErrors(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, dev));
    if (!can_map) {
        printf("Device %d cannot map host memory; waiving\n", dev);
        exit(EXIT_WAIVED);
    }

    const int n = 5000;
    float2 *h_radius = (float2 *)malloc(n * sizeof(float2));
    float4 *h_out = (float4 *)malloc(n * sizeof(float4));
    for (int i = 0; i < n; i++) h_radius[i] = make_float2(0.25f * (i % 97), 0.5f * (i % 13));
    checkCudaErrors(cudaHostRegister(h_radius, n * sizeof(float2), cudaHostRegisterMapped));
    float2 *d_radius;
    checkCudaErrors(cudaHostGetDevicePointer((void **)&d_radius, h_radius, 0));
    float4 *d_out;
    checkCudaErrors(cudaMalloc((void **)&d_out, n * sizeof(float4)));

    int threads = 256, blocks = (n + threads - 1) / threads;
    printf("CUDA kernel launch with %d blocks of %d threads\n", blocks, threads);
    circles<<<blocks, threads>>>(d_radius, d_out, n);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaMemcpy(h_out, d_out, n * sizeof(float4), cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int i = 0; i < n; i++) {
        float r = h_radius[i].x, s = h_radius[i].y;
        float4 want = make_float4(CUDART_PI_F * r * r, 2.0f * CUDART_PI_F * r,
                                  s * CUDART_SQRT_TWO_F, r + s);
        if (h_out[i].x != want.x || h_out[i].y != want.y || h_out[i].z != want.z ||
            h_out[i].w != want.w)
            errors++;
    }
    checkCudaErrors(cudaHostUnregister(h_radius));
    checkCudaErrors(cudaFree(d_out));
    free(h_radius);
    free(h_out);
    printf("%d of %d results differ from the CPU's\n", errors, n);
    printf("Result = %s\n", errors ? "FAIL" : "PASS");
    exit(errors ? EXIT_FAILURE : EXIT_SUCCESS);
}
