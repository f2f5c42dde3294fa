// A bug: cudaStreamAddCallback on a capturing stream. CUDA does not support
// it in stream capture (cudaLaunchHostFunc is the call that can be
// captured): the call fails, and the capture is invalidated.
#include <cstdio>
#include <cuda_runtime.h>

void CUDART_CB note(cudaStream_t, cudaError_t, void *data) { ++*(int *)data; }

int main(void)
{
    cudaStream_t s;
    cudaStreamCreate(&s);
    int calls = 0;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaError_t e = cudaStreamAddCallback(s, note, &calls, 0);
    printf("cudaStreamAddCallback in a capture: %s\n", cudaGetErrorName(e));
    cudaGraph_t graph;
    e = cudaStreamEndCapture(s, &graph);
    printf("cudaStreamEndCapture: %s, callbacks run: %d\n", cudaGetErrorName(e), calls);
    cudaStreamDestroy(s);
    return 0;
}
