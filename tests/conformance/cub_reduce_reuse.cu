// A planted bug: cub::BlockReduce's TempStorage used twice without a
// __syncthreads() between (CUB's documentation: "a subsequent
// __syncthreads() threadblock barrier should be invoked after calling this
// method if the collective's temporary storage is to be reused"). Lane 0 of
// each warp writes its warp's total into the storage for the second sum
// while thread 0 may still be reading the totals of the first: a data race
// on __shared__ memory, reported at the two calls' lines, whatever order the
// threads ran in. (Here the sums still come out right; on a GPU they may not.)
#include <cstdio>
#include <cub/cub.cuh>

__global__ void sum_and_sum_of_squares(const int *in, int *out)
{
    typedef cub::BlockReduce<int, 128> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp_storage;
    int x = in[blockIdx.x * 128 + threadIdx.x];
    int sum = BlockReduce(temp_storage).Sum(x);
    int squares = BlockReduce(temp_storage).Sum(x * x); /* needs a __syncthreads() before */
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = sum;
        out[2 * blockIdx.x + 1] = squares;
    }
}

int main(void)
{
    int h[256], *d_in, *d_out, r[4];
    for (int i = 0; i < 256; i++) h[i] = i % 10;
    cudaMalloc(&d_in, sizeof h);
    cudaMalloc(&d_out, sizeof r);
    cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
    sum_and_sum_of_squares<<<2, 128>>>(d_in, d_out);
    printf("launch: %s\n", cudaGetErrorString(cudaGetLastError()));
    cudaMemcpy(r, d_out, sizeof r, cudaMemcpyDeviceToHost);
    printf("block 0: sum %d, sum of squares %d; block 1: %d, %d\n", r[0], r[1], r[2], r[3]);
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
