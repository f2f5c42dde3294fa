// More launch spellings: a template argument with > inside parentheses,
// a comment between the kernel and <<<, decltype and a constexpr function
// in the template arguments, a grid computed by a template function.
#include <cstdio>
#include <algorithm>

constexpr int N = 6;
template <typename T> constexpr T div_up(T a, T b) { return (a + b - 1) / b; }

template <int ITEMS, typename T>
__global__ void fill(T *v, int n, T value)
{
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
    for (int k = 0; k < ITEMS; k++)
        if (base + k < n) v[base + k] = value + (T)ITEMS;
}

int main()
{
    const int n = 1000;
    float *d, h[n];
    cudaMalloc(&d, n * sizeof(float));
    fill<(N > 4) ? 8 : 4, float><<<div_up<int>(n, 8 * 32), std::min(32, n)>>>(d, n, 1.0f);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("a: %g %g\n", h[0], h[n - 1]);
    fill<2, decltype(h[0] + 0)> /* two per thread */ <<<div_up(n, 2 * 64), 64>>>(d, n, 5.0f);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("b: %g %g\n", h[0], h[n - 1]);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return 0;
}
