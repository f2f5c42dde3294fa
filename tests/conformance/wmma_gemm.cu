// Warp matrix functions (WMMA) against a CPU reference: D = A * B + C for
// every shape (16x16x16, 32x8x16, 8x32x16), both layouts of A and B, __half
// and __nv_bfloat16 multiplicands, float and __half accumulators, C loaded
// and D stored row-major or column-major, and an element-wise step on the
// accumulator's x[] between mma_sync and the store (as the samples scale by
// alpha and beta). The elements are small integers, so every product and sum
// is exact in both accumulator types and a GPU prints the same. (Every tile
// starts 256-bit aligned, as WMMA requires: a tile 8 __half wide is 16 bytes,
// so those of 32x8x16's B are column-major.)
#include <cstdio>
#include <cstdlib>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "check.h"

using namespace nvcuda;

// One warp per 16x16 (MxN) tile of D; A is MxK, B is KxN, in the layouts
// LA and LB (ld: the other dimension), C and D MxN, row-major or not.
template <int M, int N, int K, typename T, typename TAcc, typename LA, typename LB>
__global__ void wmma_gemm(const T *a, const T *b, const TAcc *c, TAcc *d, int m, int n, int k,
                          bool c_col_major, bool d_col_major, TAcc scale)
{
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int tiles_n = n / N, ti = warp / tiles_n, tj = warp % tiles_n;
    if (ti * M >= m) return; // whole warps only
    const bool a_row = std::is_same<LA, wmma::row_major>::value;
    const bool b_row = std::is_same<LB, wmma::row_major>::value;
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, TAcc> acc;
    wmma::fill_fragment(acc, (TAcc)0.0f);
    for (int kk = 0; kk < k; kk += K) {
        const T *pa = a_row ? a + (size_t)ti * M * k + kk : a + (size_t)kk * m + ti * M;
        const T *pb = b_row ? b + (size_t)kk * n + tj * N : b + (size_t)tj * N * k + kk;
        wmma::load_matrix_sync(fa, pa, a_row ? k : m);
        wmma::load_matrix_sync(fb, pb, b_row ? n : k);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::fragment<wmma::accumulator, M, N, K, TAcc> fc;
    const TAcc *pc = c_col_major ? c + (size_t)tj * N * m + ti * M : c + (size_t)ti * M * n + tj * N;
    wmma::load_matrix_sync(fc, pc, c_col_major ? m : n,
                           c_col_major ? wmma::mem_col_major : wmma::mem_row_major);
    for (int i = 0; i < acc.num_elements; i++) acc.x[i] = acc.x[i] * scale;
    wmma::mma_sync(fc, fa, fb, fc); // once more: D = A_last * B_last + C
    for (int i = 0; i < fc.num_elements; i++) fc.x[i] = fc.x[i] + acc.x[i];
    TAcc *pd = d_col_major ? d + (size_t)tj * N * m + ti * M : d + (size_t)ti * M * n + tj * N;
    wmma::store_matrix_sync(pd, fc, d_col_major ? m : n,
                            d_col_major ? wmma::mem_col_major : wmma::mem_row_major);
}

// Every x[] of a loaded fragment is an element of its tile (a fragment may
// hold an element more than once, never one from elsewhere): filled with 100
// first, a lane's largest and smallest x[] after the load, over the warp.
template <int M, int N, int K, typename T, typename Use, typename L>
__global__ void fragment_extremes(const T *p, unsigned ldm, float *out)
{
    wmma::fragment<Use, M, N, K, T, L> f;
    wmma::fill_fragment(f, (T)100.0f);
    wmma::load_matrix_sync(f, p, ldm);
    float hi = -1000.0f, lo = 1000.0f;
    for (int i = 0; i < f.num_elements; i++) {
        hi = fmaxf(hi, (float)f.x[i]);
        lo = fminf(lo, (float)f.x[i]);
    }
    for (int d = 16; d > 0; d /= 2) {
        hi = fmaxf(hi, __shfl_xor_sync(0xffffffff, hi, d));
        lo = fminf(lo, __shfl_xor_sync(0xffffffff, lo, d));
    }
    if (threadIdx.x == 0) {
        out[0] = hi;
        out[1] = lo;
    }
}

template <int M, int N, int K, typename T, typename Use, typename L>
static int extremes(const char *name)
{
    const bool is_a = std::is_same<Use, wmma::matrix_a>::value;
    const int rows = is_a ? M : K, cols = is_a ? K : N;
    const unsigned ldm = std::is_same<L, wmma::row_major>::value ? cols : rows;
    T h[512]; // the tile: its first rows x cols elements
    float hi = -1000.0f, lo = 1000.0f, got[2];
    for (int i = 0; i < 512; i++) {
        const float v = (float)((i * 7) % 13 - 6);
        h[i] = (T)v;
        if (i < rows * cols) {
            hi = v > hi ? v : hi;
            lo = v < lo ? v : lo;
        }
    }
    T *p;
    float *out;
    CHECK(cudaMalloc(&p, sizeof h));
    CHECK(cudaMalloc(&out, sizeof got));
    CHECK(cudaMemcpy(p, h, sizeof h, cudaMemcpyHostToDevice));
    fragment_extremes<M, N, K, T, Use, L><<<1, 32>>>(p, ldm, out);
    CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(p));
    CHECK(cudaFree(out));
    int bad = got[0] != hi || got[1] != lo;
    printf("%-44s x[] in [%g, %g]: %s\n", name, got[1], got[0], bad ? "WRONG" : "its tile's");
    return bad;
}

static float value_of(float v) { return v; }
static float value_of(__half v) { return __half2float(v); }
template <typename T>
static T make(float v);
template <>
float make<float>(float v) { return v; }
template <>
__half make<__half>(float v) { return __float2half(v); }
template <>
__nv_bfloat16 make<__nv_bfloat16>(float v) { return __float2bfloat16(v); }

template <int M, int N, int K, typename T, typename TAcc, typename LA, typename LB>
static int run(const char *name, bool c_col, bool d_col)
{
    const int m = 2 * M, n = 3 * N, k = 3 * K; // 6 warps, 3 steps of K
    const bool a_row = std::is_same<LA, wmma::row_major>::value;
    const bool b_row = std::is_same<LB, wmma::row_major>::value;
    T *ha = new T[m * k], *hb = new T[k * n];
    TAcc *hc = new TAcc[m * n], *hd = new TAcc[m * n];
    float *A = new float[m * k], *B = new float[k * n], *C = new float[m * n];
    unsigned s = 12345;
    auto next = [&s](int range) { s = s * 1103515245u + 12345u; return (int)((s >> 16) % range) - range / 2; };
    for (int i = 0; i < m; i++)
        for (int j = 0; j < k; j++) A[i * k + j] = (float)next(7);
    for (int i = 0; i < k; i++)
        for (int j = 0; j < n; j++) B[i * n + j] = (float)next(5);
    for (int i = 0; i < m * n; i++) C[i] = (float)next(9);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < k; j++) ha[a_row ? i * k + j : j * m + i] = make<T>(A[i * k + j]);
    for (int i = 0; i < k; i++)
        for (int j = 0; j < n; j++) hb[b_row ? i * n + j : j * k + i] = make<T>(B[i * n + j]);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) hc[c_col ? j * m + i : i * n + j] = make<TAcc>(C[i * n + j]);
    T *a, *b;
    TAcc *c, *d;
    CHECK(cudaMalloc(&a, sizeof(T) * m * k));
    CHECK(cudaMalloc(&b, sizeof(T) * k * n));
    CHECK(cudaMalloc(&c, sizeof(TAcc) * m * n));
    CHECK(cudaMalloc(&d, sizeof(TAcc) * m * n));
    CHECK(cudaMemcpy(a, ha, sizeof(T) * m * k, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb, sizeof(T) * k * n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(c, hc, sizeof(TAcc) * m * n, cudaMemcpyHostToDevice));
    wmma_gemm<M, N, K, T, TAcc, LA, LB><<<3, 64>>>(a, b, c, d, m, n, k, c_col, d_col, make<TAcc>(2.0f));
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hd, d, sizeof(TAcc) * m * n, cudaMemcpyDeviceToHost));
    int bad = 0;
    double sum = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float full = 0, last = C[i * n + j];
            for (int x = 0; x < k; x++) full += A[i * k + x] * B[x * n + j];
            for (int x = k - K; x < k; x++) last += A[i * k + x] * B[x * n + j];
            float want = 2.0f * full + last, got = value_of(hd[d_col ? j * m + i : i * n + j]);
            bad += got != want;
            sum += got;
        }
    printf("%-44s %dx%d: %s (sum %.0f)\n", name, m, n, bad ? "WRONG" : "exact", sum);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    CHECK(cudaFree(d));
    delete[] ha;
    delete[] hb;
    delete[] hc;
    delete[] hd;
    delete[] A;
    delete[] B;
    delete[] C;
    return bad;
}

int main(void)
{
    typedef wmma::row_major R;
    typedef wmma::col_major Cm;
    int bad = 0;
    bad += run<16, 16, 16, __half, float, R, Cm>("16x16x16 half A row, B col, float", false, false);
    bad += run<16, 16, 16, __half, float, R, R>("16x16x16 half A row, B row, float", false, true);
    bad += run<16, 16, 16, __half, float, Cm, Cm>("16x16x16 half A col, B col, float", true, false);
    bad += run<16, 16, 16, __half, float, Cm, R>("16x16x16 half A col, B row, float", true, true);
    bad += run<16, 16, 16, __half, __half, R, Cm>("16x16x16 half A row, B col, half", false, false);
    bad += run<16, 16, 16, __half, __half, Cm, R>("16x16x16 half A col, B row, half", true, true);
    bad += run<16, 16, 16, __nv_bfloat16, float, R, Cm>("16x16x16 bf16 A row, B col, float", false, true);
    bad += run<16, 16, 16, __nv_bfloat16, float, Cm, R>("16x16x16 bf16 A col, B row, float", true, false);
    bad += run<32, 8, 16, __half, float, R, Cm>("32x8x16 half A row, B col, float", false, false);
    bad += run<32, 8, 16, __nv_bfloat16, float, Cm, Cm>("32x8x16 bf16 A col, B col, float", true, true);
    bad += run<8, 32, 16, __half, __half, R, R>("8x32x16 half A row, B row, half", false, false);
    bad += run<8, 32, 16, __nv_bfloat16, float, R, Cm>("8x32x16 bf16 A row, B col, float", true, false);

    bad += extremes<16, 16, 16, __half, wmma::matrix_a, R>("16x16x16 half matrix_a, row-major");
    bad += extremes<16, 16, 16, __half, wmma::matrix_b, Cm>("16x16x16 half matrix_b, col-major");
    bad += extremes<32, 8, 16, __half, wmma::matrix_b, R>("32x8x16 half matrix_b, row-major");
    bad += extremes<8, 32, 16, __nv_bfloat16, wmma::matrix_a, Cm>("8x32x16 bf16 matrix_a, col-major");

    // The per-lane element counts (a program's loops over x[] depend on them).
    printf("num_elements: %d %d %d %d %d %d\n",
           (int)wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, R>::num_elements,
           (int)wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, Cm>::num_elements,
           (int)wmma::fragment<wmma::matrix_b, 32, 8, 16, __nv_bfloat16, R>::num_elements,
           (int)wmma::fragment<wmma::matrix_a, 8, 32, 16, __half, Cm>::num_elements,
           (int)wmma::fragment<wmma::accumulator, 16, 16, 16, float>::num_elements,
           (int)wmma::fragment<wmma::accumulator, 8, 32, 16, __half>::num_elements);
    printf("%s\n", bad ? "FAILED" : "all exact");
    return bad != 0;
}
