// A graph built node by node (cudaGraphCreate, cudaGraphAddKernelNode), as
// NVIDIA's simpleCudaGraphs builds its first: the simulator builds graphs by
// stream capture only, and refuses this in one line, where nvcc builds it.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void twice(float *x) { x[threadIdx.x] *= 2.0f; }

int main(void)
{
    float *x;
    cudaMalloc(&x, 32 * sizeof(float));
    cudaGraph_t graph;
    cudaGraphCreate(&graph, 0);
    cudaKernelNodeParams params = {};
    void *args[] = {&x};
    params.func = (void *)twice;
    params.gridDim = dim3(1);
    params.blockDim = dim3(32);
    params.kernelParams = args;
    cudaGraphNode_t node;
    cudaGraphAddKernelNode(&node, graph, nullptr, 0, &params);
    cudaGraphExec_t exec;
    cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphLaunch(exec, 0);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
