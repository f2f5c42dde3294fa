// A file whose kernels read through a volatile pointer keeps no uninstrumented
// twin (lib/cudasim/translate/twin_link.sh): a volatile read is how a
// hand-written wait polls a flag, and only the instrumented build watches a
// wait for spinning forever. The later launches of `copy` run unchecked, but
// instrumented (twin_volatile.env asks for the summary that counts them).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void copy(const volatile int *in, int *out)
{
    out[threadIdx.x] = in[threadIdx.x] + 1;
}

int main(void)
{
    int *d_in, *d_out, h[32];
    cudaMalloc(&d_in, sizeof h);
    cudaMalloc(&d_out, sizeof h);
    cudaMemset(d_in, 0, sizeof h);
    for (int launch = 0; launch < 10; launch++) {
        copy<<<1, 32>>>(d_in, d_out);
        cudaMemcpy(d_in, d_out, sizeof h, cudaMemcpyDeviceToDevice);
    }
    cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
    printf("after ten launches: %d %d\n", h[0], h[31]);
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
