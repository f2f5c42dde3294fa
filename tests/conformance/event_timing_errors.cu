// cudaEventElapsedTime's errors, as CUDA documents them: an event created
// with cudaEventDisableTiming keeps no time, and an event never recorded has
// none: both are an invalid resource handle, and the time is not written.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

int main(void)
{
    cudaEvent_t start, stop, untimed, unrecorded;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
    CHECK(cudaEventCreate(&unrecorded));
    CHECK(cudaEventRecord(start));
    CHECK(cudaEventRecord(untimed));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("timed events: %s\n", ms >= 0 ? "a time" : "no time");
    ms = -1;
    cudaError_t e = cudaEventElapsedTime(&ms, start, untimed);
    printf("with cudaEventDisableTiming: %s, ms %s\n", cudaGetErrorName(e),
           ms == -1 ? "untouched" : "written");
    e = cudaEventElapsedTime(&ms, unrecorded, stop);
    printf("never recorded: %s, ms %s\n", cudaGetErrorName(e), ms == -1 ? "untouched" : "written");
    e = cudaEventElapsedTime(nullptr, start, stop);
    printf("no place for the time: %s\n", cudaGetErrorName(e));
    printf("last error: %s\n", cudaGetErrorName(cudaGetLastError()));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaEventDestroy(untimed));
    CHECK(cudaEventDestroy(unrecorded));
    return 0;
}
