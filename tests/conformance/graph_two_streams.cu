// A graph captured across two streams joined by events: stream a begins the
// capture and records an event; stream b waits for it (and so joins the
// capture), does its work, records an event that a waits for; a ends the
// capture. The graph holds both streams' work, and each launch runs it all.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void fill(float *x, int n, float v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v + i;
}

__global__ void scale(float *y, const float *x, int n, float by)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * by;
}

__global__ void add(float *out, const float *y, const float *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += y[i] + z[i];
}

int main(void)
{
    const int n = 1024, threads = 256, blocks = n / threads;
    float *x, *y, *z, *out;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMalloc(&z, n * sizeof(float)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    CHECK(cudaMemset(out, 0, n * sizeof(float)));
    cudaStream_t a, b;
    CHECK(cudaStreamCreate(&a));
    CHECK(cudaStreamCreate(&b));
    cudaEvent_t forked, joined;
    CHECK(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));

    CHECK(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
    fill<<<blocks, threads, 0, a>>>(x, n, 1.0f);
    CHECK(cudaEventRecord(forked, a));
    CHECK(cudaStreamWaitEvent(b, forked, 0));
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(b, &status));
    printf("stream b after waiting for the fork: %s\n",
           status == cudaStreamCaptureStatusActive ? "capturing" : "not capturing");
    scale<<<blocks, threads, 0, b>>>(y, x, n, 2.0f); // on b
    scale<<<blocks, threads, 0, a>>>(z, x, n, 3.0f); // on a, beside it
    CHECK(cudaEventRecord(joined, b));
    CHECK(cudaStreamWaitEvent(a, joined, 0));
    add<<<blocks, threads, 0, a>>>(out, y, z, n);
    cudaGraph_t graph;
    CHECK(cudaStreamEndCapture(a, &graph));
    CHECK(cudaStreamIsCapturing(b, &status));
    printf("stream b after the capture: %s\n",
           status == cudaStreamCaptureStatusActive ? "capturing" : "not capturing");
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    printf("the graph has %zu nodes\n", nodes);

    float h[n];
    CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    printf("before any launch: out[10] = %.0f\n", h[10]);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int k = 0; k < 2; k++) CHECK(cudaGraphLaunch(exec, a));
    CHECK(cudaStreamSynchronize(a));
    CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    printf("after two launches: out[10] = %.0f (5 * (1 + 10) each)\n", h[10]);
    // b is an ordinary stream again
    scale<<<blocks, threads, 0, b>>>(y, x, n, 1.0f);
    CHECK(cudaStreamSynchronize(b));
    printf("b runs its own work again: %s\n", cudaGetErrorString(cudaGetLastError()));

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaEventDestroy(forked));
    CHECK(cudaEventDestroy(joined));
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(z));
    CHECK(cudaFree(out));
    return 0;
}
