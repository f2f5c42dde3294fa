// Warp matrix functions of the other types against a CPU reference: signed
// and unsigned char multiplicands with int accumulators (16x16x16, 32x8x16,
// 8x32x16, with and without satf), tf32 ones held as float with float
// accumulators (16x16x8, __float_to_tf32), and double (8x8x4). D = A * B + C,
// one warp per tile of D, A row-major and B column-major. The elements are
// small integers (and, for tf32, values __float_to_tf32 keeps), so every
// product and sum is exact and a GPU prints the same; an int sum past int's
// range wraps around, or with satf is clamped.
#include <climits>
#include <cstdio>
#include <cuda_runtime.h>
#include <mma.h>
#include <type_traits>

#include "check.h"

using namespace nvcuda;

// Tm: the fragment's type (precision::tf32 for tf32), T: what memory holds. A and B
// are kept as their MxK and KxN blocks, each contiguous (A's row-major, B's
// column-major, ldm K), so that every block starts 256-bit aligned as WMMA
// requires, whatever K * sizeof(T) is; C and D are row-major.
template <int M, int N, int K, typename Tm, typename T, typename TAcc>
__global__ void gemm(const T *a, const T *b, const TAcc *c, TAcc *d, int m, int n, int k, bool satf)
{
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int tiles_n = n / N, ti = warp / tiles_n, tj = warp % tiles_n, kb = k / K;
    if (ti * M >= m) return; // whole warps only
    wmma::fragment<wmma::matrix_a, M, N, K, Tm, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, Tm, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, TAcc> acc;
    wmma::load_matrix_sync(acc, c + (size_t)ti * M * n + tj * N, n, wmma::mem_row_major);
    for (int q = 0; q < kb; q++) {
        wmma::load_matrix_sync(fa, a + (size_t)(ti * kb + q) * M * K, K);
        wmma::load_matrix_sync(fb, b + (size_t)(tj * kb + q) * N * K, K);
        if constexpr (std::is_same<TAcc, int>::value) // (satf: int accumulators only)
            wmma::mma_sync(acc, fa, fb, acc, satf);
        else
            wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + (size_t)ti * M * n + tj * N, acc, n, wmma::mem_row_major);
}

// tf32: each element converted in the kernel, as the samples do, then used.
__global__ void to_tf32(float *x, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) x[i] = wmma::__float_to_tf32(x[i]);
}

// __float_to_tf32 keeps 10 bits of mantissa, rounding to nearest, ties away from zero.
__global__ void tf32_rounding(float *x, int count)
{
    int i = threadIdx.x;
    if (i < count) x[i] = wmma::__float_to_tf32(x[i]);
}

template <int M, int N, int K, typename Tm, typename T, typename TAcc>
static int run(const char *name, int big, bool satf)
{
    const int m = 2 * M, n = 2 * N, k = 4 * K;
    T *a, *b;
    TAcc *c, *d;
    CHECK(cudaMallocManaged(&a, m * k * sizeof(T)));
    CHECK(cudaMallocManaged(&b, n * k * sizeof(T)));
    CHECK(cudaMallocManaged(&c, m * n * sizeof(TAcc)));
    CHECK(cudaMallocManaged(&d, m * n * sizeof(TAcc)));
    for (int i = 0; i < m * k; i++) a[i] = (T)(big ? big : (i * 7) % 11 - 5 + (T)0.25 * (i % 2));
    for (int i = 0; i < n * k; i++) b[i] = (T)(big ? big : (i * 5) % 9 - 4);
    for (int i = 0; i < m * n; i++) c[i] = big ? (TAcc)(INT_MAX - 1000) : (TAcc)(i % 13 - 6);
    if (sizeof(T) == 4 && (T)0.25 != 0) { // tf32: the device's conversion, then the reference
        to_tf32<<<(m * k + 127) / 128, 128>>>((float *)a, m * k);
        to_tf32<<<(n * k + 127) / 128, 128>>>((float *)b, n * k);
        CHECK(cudaDeviceSynchronize());
    }
    const int warps = (m / M) * (n / N);
    gemm<M, N, K, Tm, T, TAcc><<<(warps * 32 + 127) / 128, 128>>>(a, b, c, d, m, n, k, satf);
    CHECK(cudaDeviceSynchronize());
    // A(i, p) and B(p, j), where the blocks keep them
    auto A = [&](int i, int p) { return a[((i / M) * (k / K) + p / K) * M * K + (i % M) * K + p % K]; };
    auto B = [&](int p, int j) { return b[((j / N) * (k / K) + p / K) * N * K + (j % N) * K + p % K]; };
    int wrong = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = (double)c[i * n + j];
            for (int p = 0; p < k; p++) s += (double)A(i, p) * (double)B(p, j);
            if (satf) s = s > INT_MAX ? INT_MAX : s < INT_MIN ? INT_MIN : s;
            else if (s > INT_MAX) s -= 4294967296.0; // an int sum wraps around
            wrong += (double)d[i * n + j] != s;
        }
    printf("%-28s %dx%dx%d: %s (d[0] = %.2f)\n", name, M, N, K, wrong ? "WRONG" : "as the CPU's",
           (double)d[0]);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    CHECK(cudaFree(d));
    return wrong;
}

int main(void)
{
    int bad = 0;
    bad += run<16, 16, 16, signed char, signed char, int>("signed char, int", 0, false);
    bad += run<32, 8, 16, unsigned char, unsigned char, int>("unsigned char, int", 0, false);
    bad += run<8, 32, 16, signed char, signed char, int>("signed char, int", 0, false);
    // C near int's largest, plus 127 * 127 * 64: past it, wrapped, or clamped with satf.
    bad += run<16, 16, 16, signed char, signed char, int>("signed char, int, wraps", 127, false);
    bad += run<16, 16, 16, signed char, signed char, int>("signed char, int, satf", 127, true);
    bad += run<16, 16, 8, wmma::precision::tf32, float, float>("tf32, float", 0, false);
    bad += run<8, 8, 4, double, double, double>("double", 0, false);
    float *x;
    CHECK(cudaMallocManaged(&x, 5 * sizeof(float)));
    const float one = 1.0f, ulp10 = 1.0f / 1024; // tf32's step at 1
    x[0] = one + ulp10 / 2;                      // a tie: away from zero
    x[1] = one + ulp10 / 4;                      // below half a step: down
    x[2] = -(one + ulp10 / 2);                   // a tie, negative: away from zero
    x[3] = one + ulp10 + ulp10 / 2;              // a tie above an odd step: still away
    x[4] = one + ulp10 * 3 / 4;                  // past half a step: up
    tf32_rounding<<<1, 32>>>(x, 5);
    CHECK(cudaDeviceSynchronize());
    printf("__float_to_tf32, in steps of 2^-10 from 1: %.2f %.2f %.2f %.2f %.2f\n", (x[0] - 1) * 1024,
           (x[1] - 1) * 1024, (x[2] + 1) * -1024, (x[3] - 1) * 1024, (x[4] - 1) * 1024);
    CHECK(cudaFree(x));
    printf("%s\n", bad ? "some differ" : "all as the CPU's");
    return 0;
}
