// Collectives and algorithms of CUB that the simulator does not have, reached
// through <cub/cub.cuh>: refused when the program is compiled, the first
// error of each naming it and what the simulator's CUB has (GCC's
// `unavailable` attribute). nvcc builds the program.
#include <cstdio>
#include <cub/cub.cuh>

__global__ void sort_tile(int *data)
{
    typedef cub::BlockRadixSort<int, 128, 4> BlockRadixSort;
    __shared__ typename BlockRadixSort::TempStorage temp;
    int keys[4];
    for (int i = 0; i < 4; i++) keys[i] = data[threadIdx.x * 4 + i];
    BlockRadixSort(temp).Sort(keys);
    for (int i = 0; i < 4; i++) data[threadIdx.x * 4 + i] = keys[i];
}

struct Positive {
    __host__ __device__ bool operator()(int x) const { return x > 0; }
};

int main(void)
{
    int *d_in = NULL, *d_out = NULL, *d_count = NULL;
    void *d_temp = NULL;
    size_t temp_bytes = 0;
    cub::DeviceSelect::If(d_temp, temp_bytes, d_in, d_out, d_count, 100, Positive());
    sort_tile<<<1, 128>>>(d_in);
    printf("built\n");
    return 0;
}
