// Planted bugs in the calls of CUB's device-wide algorithms, which run as
// kernels of the simulator and are checked as kernels are: a radix sort of
// keys that nothing has written (initcheck: reported, and the sort goes on),
// then a reduction told of more items than its buffer holds (memcheck: the
// kernel stops at the first read past the end, and the call returns the
// error a GPU gives, sticky).
#include <cstdio>
#include <cub/cub.cuh>

int main(void)
{
    const int n = 100;
    int *d_keys, *d_sorted, *d_sum;
    cudaMalloc(&d_keys, n * sizeof(int));
    cudaMalloc(&d_sorted, n * sizeof(int));
    cudaMalloc(&d_sum, sizeof(int));

    void *d_temp = NULL;
    size_t temp_bytes = 0;
    cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_keys, d_sorted, n);
    cudaMalloc(&d_temp, temp_bytes);
    cudaError_t e = cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_keys, d_sorted, n); /* d_keys unwritten */
    printf("SortKeys of unwritten keys: %s\n", cudaGetErrorName(e));
    cudaFree(d_temp);

    cudaMemset(d_keys, 0, n * sizeof(int));
    d_temp = NULL;
    cub::DeviceReduce::Sum(d_temp, temp_bytes, d_keys, d_sum, n + 1);
    cudaMalloc(&d_temp, temp_bytes);
    e = cub::DeviceReduce::Sum(d_temp, temp_bytes, d_keys, d_sum, n + 1); /* one item too many */
    printf("Sum of %d items of a buffer of %d: %s\n", n + 1, n, cudaGetErrorName(e));
    printf("then cudaDeviceSynchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
