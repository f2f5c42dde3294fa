// libcu++'s cuda::std in device code, from the <cuda/std/...> headers that
// C++17 has: type traits, limits, pairs and tuples, arrays, function objects,
// identity, min and max, optional, complex numbers and the math functions.
#include <cstdio>
#include <cuda/std/array>
#include <cuda/std/cmath>
#include <cuda/std/complex>
#include <cuda/std/cstdint>
#include <cuda/std/functional>
#include <cuda/std/limits>
#include <cuda/std/optional>
#include <cuda/std/tuple>
#include <cuda/std/type_traits>
#include <cuda/std/utility>

#include "check.h"

template <typename T>
__device__ T biggest(const T *x, int n)
{
    static_assert(cuda::std::is_arithmetic<T>::value, "numbers only");
    T best = cuda::std::numeric_limits<T>::lowest();
    for (int i = 0; i < n; i++) best = cuda::std::max(best, x[i]);
    return best;
}

__device__ cuda::std::optional<int> first_negative(const int *x, int n)
{
    for (int i = 0; i < n; i++)
        if (x[i] < 0) return i;
    return cuda::std::nullopt;
}

__global__ void show(const float *f, const int *k, int n, float *out)
{
    if (threadIdx.x != 0) return;
    cuda::std::array<float, 3> a = {1.0f, 2.0f, 3.0f};
    cuda::std::pair<int, float> p = cuda::std::make_pair(7, 0.5f);
    cuda::std::tuple<int, int> t(3, 4);
    cuda::std::plus<int> add;
    cuda::std::identity same;
    cuda::std::complex<float> z(3.0f, 4.0f);
    cuda::std::optional<int> neg = first_negative(k, n);
    out[0] = biggest(f, n);
    out[1] = (float)biggest(k, n);
    out[2] = a[0] + a[1] + a[2];
    out[3] = (float)p.first + p.second;
    out[4] = (float)add(cuda::std::get<0>(t), cuda::std::get<1>(t));
    out[5] = cuda::std::abs(z);
    out[6] = neg ? (float)*neg : -1.0f;
    out[7] = cuda::std::sqrt(2.0f) * cuda::std::sqrt(2.0f);
    out[8] = (float)sizeof(cuda::std::uint16_t) + same(0.0f);
}

int main(void)
{
    const int n = 5;
    float hf[n] = {0.5f, -2.0f, 9.25f, 3.0f, 1.0f};
    int hk[n] = {4, 8, -1, 15, 2};
    float *f, *out;
    int *k;
    CHECK(cudaMalloc(&f, sizeof hf));
    CHECK(cudaMalloc(&k, sizeof hk));
    CHECK(cudaMalloc(&out, 9 * sizeof(float)));
    CHECK(cudaMemcpy(f, hf, sizeof hf, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(k, hk, sizeof hk, cudaMemcpyHostToDevice));
    show<<<1, 32>>>(f, k, n, out);
    float h[9];
    CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    printf("largest float %.2f, largest int %.0f, array sum %.1f, pair %.1f\n", h[0], h[1], h[2], h[3]);
    printf("tuple sum %.0f, |3+4i| = %.1f, first negative at %.0f, sqrt(2)^2 = %.4f, uint16 bytes %.0f\n",
           h[4], h[5], h[6], h[7], h[8]);
    CHECK(cudaFree(f));
    CHECK(cudaFree(k));
    CHECK(cudaFree(out));
    return 0;
}
