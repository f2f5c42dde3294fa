// A bug: stream b joins a's capture (it waits for an event recorded in it)
// and launches a kernel, but a never waits for b's work before it ends the
// capture. CUDA refuses the graph: the fork was not joined.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(float *x, int n, float v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}

int main(void)
{
    const int n = 256;
    float *x, *y;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaStream_t a, b;
    cudaStreamCreate(&a);
    cudaStreamCreate(&b);
    cudaEvent_t forked;
    cudaEventCreate(&forked);
    cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal);
    fill<<<1, n, 0, a>>>(x, n, 1.0f);
    cudaEventRecord(forked, a);
    cudaStreamWaitEvent(b, forked, 0);
    fill<<<1, n, 0, b>>>(y, n, 2.0f);
    cudaGraph_t graph = (cudaGraph_t)1;
    cudaError_t e = cudaStreamEndCapture(a, &graph);
    printf("cudaStreamEndCapture: %s, graph %s\n", cudaGetErrorName(e), graph ? "made" : "NULL");
    cudaStreamCaptureStatus status;
    cudaStreamIsCapturing(b, &status);
    printf("stream b: %s\n", status == cudaStreamCaptureStatusNone ? "not capturing" : "capturing");
    cudaEventDestroy(forked);
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
    cudaFree(x);
    cudaFree(y);
    return 0;
}
