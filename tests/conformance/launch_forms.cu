// Launch syntax from the wild: a launch inside a macro, shifts and
// comparisons inside <<< >>> and the arguments, extern "C" and static
// kernels, overloaded kernels, default arguments, and the blog's
// blockReduceSum with a static __shared__ array in a __device__ function.
#include <cstdio>

#define LAUNCH(kernel, grid, block, ...) kernel<<<grid, block>>>(__VA_ARGS__)

__inline__ __device__ int warpReduceSum(int val)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        val += __shfl_down_sync(0xffffffff, val, offset);
    return val;
}

__inline__ __device__ int blockReduceSum(int val)
{
    static __shared__ int shared[32];
    int lane = threadIdx.x % warpSize;
    int wid = threadIdx.x / warpSize;
    val = warpReduceSum(val);
    if (lane == 0) shared[wid] = val;
    __syncthreads();
    val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;
    if (wid == 0) val = warpReduceSum(val);
    return val;
}

__global__ void deviceReduceKernel(const int *in, int *out, int N)
{
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x)
        sum += in[i];
    sum = blockReduceSum(sum);
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

extern "C" __global__ void fill(int *v, int n, int value = 3)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = value;
}

static __global__ void scale(float *v, float s) { v[threadIdx.x] *= s; }
static __global__ void scale(double *v, double s) { v[threadIdx.x] *= s; }

int main()
{
    const int n = 1 << 12;
    int *in, *out, h[8];
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&out, 8 * sizeof(int));
    LAUNCH(fill, n >> 8, 1 << 8, in, n);
    fill<<<(n >> 8), (1 << 8)>>>(in, n / 2 > 1 ? n / 2 : 1, 1 < 2);
    deviceReduceKernel<<<8, 512>>>(in, out, n);
    deviceReduceKernel<<<1, 1024>>>(out, out, 8);
    cudaMemcpy(h, out, sizeof(int), cudaMemcpyDeviceToHost);
    printf("sum %d (want %d)\n", h[0], n / 2 * 1 + n / 2 * 3);

    float *f;
    double *d, hd[4];
    cudaMalloc(&f, 4 * sizeof(float));
    cudaMalloc(&d, 4 * sizeof(double));
    float one[4] = {1, 2, 3, 4};
    double two[4] = {1, 2, 3, 4};
    cudaMemcpy(f, one, sizeof one, cudaMemcpyHostToDevice);
    cudaMemcpy(d, two, sizeof two, cudaMemcpyHostToDevice);
    scale<<<1, 4>>>(f, 2.0f);
    scale<<<1, 4>>>(d, 0.5);
    cudaMemcpy(one, f, sizeof one, cudaMemcpyDeviceToHost);
    cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
    printf("%g %g\n", one[3], hd[3]);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return 0;
}
