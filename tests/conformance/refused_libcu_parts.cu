// What the simulator's WMMA and libcu++ do not have is refused when the
// program is compiled, each with a line that says what it has: an int4 WMMA
// fragment, a barrier of the device's scope, a pipeline of the device's
// scope. nvcc builds the program. (g++ adds a line or two that follow from
// the refusals.)
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <mma.h>

using namespace nvcuda;

__global__ void int4_tile(const void *a)
{
    wmma::fragment<wmma::matrix_a, 8, 8, 32, wmma::experimental::precision::s4, wmma::row_major> f;
    wmma::load_matrix_sync(f, a, 32);
}

__global__ void grid_barrier(cuda::barrier<cuda::thread_scope_device> *bar)
{
    bar->arrive_and_wait();
}

__global__ void device_pipeline(cuda::pipeline_shared_state<cuda::thread_scope_device, 2> *state)
{
    (void)cuda::make_pipeline(cooperative_groups::this_thread_block(), state);
}

int main(void)
{
    printf("built\n");
    return 0;
}
