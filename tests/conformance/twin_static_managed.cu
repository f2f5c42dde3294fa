// A static __managed__ variable keeps its file's kernels off the uninstrumented
// twin (lib/cudasim/translate/twin_link.sh): the translation leaves its
// declaration as written, so it has internal linkage, and the twin, a shared
// object of its own, would count into a copy of it. Ten launches of bump add
// ten to the program's own variable; the later six run unchecked, but
// instrumented (twin_static_managed.env asks for the summary that says so).
#include <cstdio>
#include <cuda_runtime.h>

static __managed__ int s_count;

__global__ void bump(void)
{
    s_count += 1;
}

int main(void)
{
    for (int launch = 0; launch < 10; launch++) bump<<<1, 1>>>();
    cudaDeviceSynchronize();
    printf("count: %d\n", s_count);
    return 0;
}
