// The stream API a tutorial uses: a stream's flags, priority and id,
// cudaStreamAddCallback (CUDART_CB) running in stream order with the stream,
// the status and the user's data, cudaStreamQuery once the work is done, and
// cudaStreamWaitEvent between two streams, cudaStreamAttachMemAsync.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void add_one(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

struct Seen {
    cudaStream_t stream;
    int calls;
    int first; // what the callback saw of the device's results
};

static int *g_host;

void CUDART_CB after_copy(cudaStream_t stream, cudaError_t status, void *data)
{
    Seen *seen = (Seen *)data;
    seen->stream = stream;
    seen->calls += status == cudaSuccess;
    seen->first = g_host[0];
}

int main(void)
{
    cudaStream_t plain, nonblocking, urgent;
    CHECK(cudaStreamCreate(&plain));
    CHECK(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));
    int least, greatest;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK(cudaStreamCreateWithPriority(&urgent, cudaStreamDefault, greatest));
    unsigned flags = 99;
    CHECK(cudaStreamGetFlags(plain, &flags));
    printf("flags: plain %u,", flags);
    CHECK(cudaStreamGetFlags(nonblocking, &flags));
    printf(" non-blocking %u\n", flags);
    int priority = 99;
    CHECK(cudaStreamGetPriority(urgent, &priority));
    printf("priority of the urgent stream is the greatest: %s\n",
           priority == greatest ? "yes" : "no");
    CHECK(cudaStreamGetPriority(plain, &priority));
    printf("priority of the plain stream: %d\n", priority);
    unsigned long long id1 = 0, id2 = 0;
    CHECK(cudaStreamGetId(plain, &id1));
    CHECK(cudaStreamGetId(nonblocking, &id2));
    printf("stream ids differ: %s\n", id1 != id2 ? "yes" : "no");
    int device = -1;
    CHECK(cudaStreamGetDevice(plain, &device));
    printf("device of the stream: %d\n", device);

    const int n = 1024;
    int *d;
    CHECK(cudaMallocHost(&g_host, n * sizeof(int)));
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    for (int i = 0; i < n; i++) g_host[i] = i;
    Seen seen = {nullptr, 0, -1};
    CHECK(cudaMemcpyAsync(d, g_host, n * sizeof(int), cudaMemcpyHostToDevice, plain));
    add_one<<<n / 256, 256, 0, plain>>>(d, n);
    CHECK(cudaMemcpyAsync(g_host, d, n * sizeof(int), cudaMemcpyDeviceToHost, plain));
    CHECK(cudaStreamAddCallback(plain, after_copy, &seen, 0));
    CHECK(cudaStreamSynchronize(plain));
    printf("callback: %d call with cudaSuccess, its stream %s, saw h[0] = %d\n", seen.calls,
           seen.stream == plain ? "right" : "wrong", seen.first);
    printf("query after the work: %s\n", cudaGetErrorString(cudaStreamQuery(plain)));

    // The second stream waits for the first's kernel before it copies back.
    cudaEvent_t done;
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    add_one<<<n / 256, 256, 0, plain>>>(d, n);
    CHECK(cudaEventRecord(done, plain));
    CHECK(cudaStreamWaitEvent(nonblocking, done, 0));
    CHECK(cudaMemcpyAsync(g_host, d, n * sizeof(int), cudaMemcpyDeviceToHost, nonblocking));
    CHECK(cudaStreamSynchronize(nonblocking));
    printf("after the wait: h[5] = %d\n", g_host[5]);

    // Managed memory attached to one stream, used by that stream's kernel.
    int *m;
    CHECK(cudaMallocManaged(&m, n * sizeof(int)));
    for (int i = 0; i < n; i++) m[i] = 10 * i;
    CHECK(cudaStreamAttachMemAsync(plain, m));
    add_one<<<n / 256, 256, 0, plain>>>(m, n);
    CHECK(cudaStreamSynchronize(plain));
    printf("managed memory attached to the stream: m[3] = %d\n", m[3]);
    CHECK(cudaFree(m));

    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(plain));
    CHECK(cudaStreamDestroy(nonblocking));
    CHECK(cudaStreamDestroy(urgent));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(g_host));
    return 0;
}
