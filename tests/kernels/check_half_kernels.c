/* check_half_kernels.c: kernels/half.cu and cublasGemmEx against lib/core/half.c.
 *
 * The casts and the round-trip kernels must give lib/core/half.c's bits (which the
 * unit tests check against PyTorch) for every value but a NaN, whose bits CUDA
 * chooses differently (0x7FFF): there only NaN-ness is compared. The inputs
 * mix special values (ties, the edges of the f16 range, subnormals, -0, inf,
 * NaN) with random bit patterns, and the decode test covers all 65536 half
 * patterns. cublasGemmEx gets inputs that are small integers times powers of
 * two, so that every order of f32 summation gives the same sum and the GPU's
 * tensor cores, the simulator and the CPU agree to the bit; it is checked
 * against half_gemm(), also when recorded in a CUDA Graph and replayed.
 *
 * Like every kernel suite it needs a device, real or simulated, and fails
 * without one (tests/kernels/kernel_check.h).
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "kernel_check.h"
#include "kernel_suites.h"
#include "kernels/kernels.h"
#include "lib/core/half.h"
#ifdef CUDASIM
#include "lib/cudasim/cudasim.h"
#endif

/* ---- helpers ------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Values where rounding to a half type is delicate, then random ones: half
 * of them random bit patterns, half random magnitudes where halves live. */
static float *cast_inputs(int64_t n, uint64_t seed)
{
    static const uint32_t special[] = {
        0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFF800001, 0x7F80FFFF,
        0x477FE000, 0x477FEFFF, 0x477FF000, 0xC77FF000, 0x477FF001, 0x38800000, 0x387FFFFF,
        0x33800000, 0x33000000, 0xB3000001, 0x33C00000, 0x34200000, 0x3F801000, 0x3F803000,
        0x3F808000, 0x3F818000, 0x7F7F8000, 0x7F7F7FFF, 0x00008000, 0x80018000, 0x00000001};
    float *x = malloc((size_t)n * sizeof(float));
    ck_assert_ptr_nonnull(x);
    uint64_t state = seed;
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = splitmix(&state);
        if (i < (int64_t)(sizeof special / sizeof special[0]))
            x[i] = float_of(special[i]);
        else if (r & 1)
            x[i] = float_of((uint32_t)(r >> 32));
        else
            x[i] = ldexpf((float)(r >> 40) * 0x1p-24f, (int)((r >> 8) % 48) - 30) *
                   ((r & 2) ? -1.0f : 1.0f);
    }
    return x;
}

/* Half bits from the GPU against the CPU's: equal, or both NaN. (The first
 * mismatch is found before asserting: an assertion per element would cost a
 * write to Check's pipe each.) */
static void check_half_bits(const char *what, const uint16_t *got, const uint16_t *want,
                            const float *x, int64_t n, DType dt)
{
    uint16_t inf = dt == DTYPE_F16 ? 0x7c00 : 0x7f80;
    int64_t i = 0;
    while (i < n && (got[i] == want[i] || ((got[i] & 0x7fff) > inf && (want[i] & 0x7fff) > inf)))
        i++;
    ck_assert_msg(i == n,
                  "%s, n = %lld: element %lld (input 0x%08X) is 0x%04X, lib/core/half.c gives 0x%04X",
                  what, (long long)n, (long long)i, x ? bits_of(x[i]) : 0u, got[i], want[i]);
}

/* Floats from the GPU against the CPU's: the same bits, or both NaN. */
static void check_float_bits(const char *what, const float *got, const float *want, int64_t n)
{
    int64_t i = 0;
    while (i < n && (bits_of(got[i]) == bits_of(want[i]) || (isnan(got[i]) && isnan(want[i]))))
        i++;
    ck_assert_msg(i == n, "%s, n = %lld: element %lld is %a (0x%08X), lib/core/half.c gives %a (0x%08X)",
                  what, (long long)n, (long long)i, (double)got[i], bits_of(got[i]),
                  (double)want[i], bits_of(want[i]));
}

static const int64_t cast_sizes[] = {1, 37, 257, 1000, 4099};
#define N_CAST_SIZES (sizeof cast_sizes / sizeof cast_sizes[0])

/* ---- casts and rounding ------------------------------------------------------ */

typedef cudaError_t (*Encoder)(const float *, uint16_t *, int64_t, cudaStream_t);
typedef cudaError_t (*Decoder)(const uint16_t *, float *, int64_t, cudaStream_t);
typedef cudaError_t (*Rounder)(float *, int64_t, cudaStream_t);

static void check_casts(DType dt, Encoder enc, Decoder dec, Rounder rnd)
{
    require_device();
    for (size_t t = 0; t < N_CAST_SIZES; t++) {
        int64_t n = cast_sizes[t];
        float *x = cast_inputs(n, 1000 + t), *got_f = malloc((size_t)n * sizeof(float));
        float *want_f = malloc((size_t)n * sizeof(float));
        uint16_t *got_h = malloc((size_t)n * 2), *want_h = malloc((size_t)n * 2);
        ck_assert(got_f && want_f && got_h && want_h);
        float *x_d = to_device(x, (size_t)n * sizeof(float));
        uint16_t *h_d = to_device(NULL, (size_t)n * 2);
        float *y_d = to_device(NULL, (size_t)n * sizeof(float));
        char what[64];

        CUDA_OK(enc(x_d, h_d, n, 0));
        from_device(got_h, h_d, (size_t)n * 2);
        ck_assert_int_eq(half_encode(x, want_h, n, dt), 0);
        snprintf(what, sizeof what, "f32 -> %s", dtype_name(dt));
        check_half_bits(what, got_h, want_h, x, n, dt);

        CUDA_OK(dec(h_d, y_d, n, 0));
        from_device(got_f, y_d, (size_t)n * sizeof(float));
        ck_assert_int_eq(half_decode(got_h, want_f, n, dt), 0);
        snprintf(what, sizeof what, "%s -> f32", dtype_name(dt));
        check_float_bits(what, got_f, want_f, n);

        CUDA_OK(rnd(x_d, n, 0)); /* in place */
        from_device(got_f, x_d, (size_t)n * sizeof(float));
        ck_assert_int_eq(half_round(x, n, dt), 0);
        snprintf(what, sizeof what, "round through %s", dtype_name(dt));
        check_float_bits(what, got_f, x, n);

        cudaFree(x_d), cudaFree(h_d), cudaFree(y_d);
        free(x), free(got_f), free(want_f), free(got_h), free(want_h);
    }

    /* every half pattern widens as on the CPU */
    enum { ALL = 65536 };
    uint16_t *h = malloc(ALL * 2);
    float *got = malloc(ALL * sizeof(float)), *want = malloc(ALL * sizeof(float));
    ck_assert(h && got && want);
    for (int i = 0; i < ALL; i++)
        h[i] = (uint16_t)i;
    uint16_t *h_d = to_device(h, ALL * 2);
    float *y_d = to_device(NULL, ALL * sizeof(float));
    CUDA_OK(dec(h_d, y_d, ALL, 0));
    from_device(got, y_d, ALL * sizeof(float));
    ck_assert_int_eq(half_decode(h, want, ALL, dt), 0);
    check_float_bits(dt == DTYPE_F16 ? "every f16 pattern -> f32" : "every bf16 pattern -> f32",
                     got, want, ALL);
    cudaFree(h_d), cudaFree(y_d);
    free(h), free(got), free(want);
}

START_TEST(test_f16_casts_and_rounding_match_cpu)
{
    check_casts(DTYPE_F16, k_f32_to_f16, k_f16_to_f32, k_round_f16);
}
END_TEST

START_TEST(test_bf16_casts_and_rounding_match_cpu)
{
    check_casts(DTYPE_BF16, k_f32_to_bf16, k_bf16_to_f32, k_round_bf16);
}
END_TEST

START_TEST(test_half_wrappers_check_arguments)
{
    require_device();
    float *x_d = to_device(NULL, 16 * sizeof(float));
    uint16_t *h_d = to_device(NULL, 16 * 2);
    int *flag_d = to_device(NULL, sizeof(int));
    const int64_t huge = (int64_t)1 << 40;
    CUDA_INVALID(k_f32_to_f16(x_d, h_d, -1, 0));
    CUDA_INVALID(k_f32_to_f16(NULL, h_d, 4, 0));
    CUDA_INVALID(k_f16_to_f32(h_d, NULL, 4, 0));
    CUDA_INVALID(k_f32_to_bf16(x_d, h_d, huge, 0));
    CUDA_INVALID(k_bf16_to_f32(NULL, x_d, 1, 0));
    CUDA_INVALID(k_round_f16(NULL, 3, 0));
    CUDA_INVALID(k_round_bf16(x_d, -5, 0));
    CUDA_INVALID(k_unscale_check(x_d, 4, 0.5f, NULL, 0));
    CUDA_INVALID(k_unscale_check(NULL, 4, 0.5f, flag_d, 0));
    CUDA_INVALID(k_unscale_check(x_d, huge, 0.5f, flag_d, 0));
    /* n == 0 launches nothing, and needs no data */
    CUDA_OK(k_f32_to_f16(NULL, NULL, 0, 0));
    CUDA_OK(k_bf16_to_f32(NULL, NULL, 0, 0));
    CUDA_OK(k_round_bf16(NULL, 0, 0));
    CUDA_OK(k_unscale_check(NULL, 0, 0.5f, NULL, 0));
    CUDA_OK(cudaDeviceSynchronize());
    cudaFree(x_d), cudaFree(h_d), cudaFree(flag_d);
}
END_TEST

/* ---- GradScaler's unscale ---------------------------------------------------- */

START_TEST(test_unscale_check_finds_inf_and_nan_anywhere)
{
    require_device();
    enum { N = 1000 };
    const float bad[] = {INFINITY, -INFINITY, NAN};
    const int64_t where[] = {0, N / 2, N - 1, -1}; /* -1: all finite */
    const float inv_scale = 0x1p-16f;
    float *g = cast_inputs(N, 77), *got = malloc(N * sizeof(float));
    ck_assert_ptr_nonnull(got);
    for (int64_t i = 0; i < N; i++) /* finite gradients, some huge as with a large scale */
        if (!isfinite(g[i])) g[i] = (float)(i % 17) * 4096.0f - 30000.0f;
    float *g_d = to_device(NULL, N * sizeof(float));
    int *flag_d = to_device(NULL, sizeof(int));
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++)
        for (size_t w = 0; w < sizeof where / sizeof where[0]; w++) {
            float *want = malloc(N * sizeof(float));
            ck_assert_ptr_nonnull(want);
            memcpy(want, g, N * sizeof(float));
            if (where[w] >= 0) want[where[w]] = bad[b];
            CUDA_OK(cudaMemcpy(g_d, want, N * sizeof(float), cudaMemcpyHostToDevice));
            CUDA_OK(cudaMemset(flag_d, 0, sizeof(int)));
            CUDA_OK(k_unscale_check(g_d, N, inv_scale, flag_d, 0));
            int found = -1, want_found = 0;
            from_device(&found, flag_d, sizeof(int));
            ck_assert_int_eq(half_unscale_check(want, N, inv_scale, &want_found), 0);
            ck_assert_msg(found == want_found && found == (where[w] >= 0),
                          "k_unscale_check with %g at %lld: found_inf = %d, expected %d",
                          (double)bad[b], (long long)where[w], found, where[w] >= 0);
            from_device(got, g_d, N * sizeof(float));
            check_float_bits("k_unscale_check g * inv_scale", got, want, N);

            /* the flag is never reset by the kernel: finite values leave a 1 */
            CUDA_OK(cudaMemcpy(g_d, g, N * sizeof(float), cudaMemcpyHostToDevice));
            CUDA_OK(k_unscale_check(g_d, N, 1.0f, flag_d, 0));
            from_device(&found, flag_d, sizeof(int));
            ck_assert_int_eq(found, where[w] >= 0);
            free(want);
        }
    cudaFree(g_d), cudaFree(flag_d);
    free(g), free(got);
}
END_TEST

/* ---- cublasGemmEx ------------------------------------------------------------ */

/* A (rows, cols) column-major matrix with leading dimension ld of integers
 * 1..31 times 2^0..2^-3 with random signs: exact in f16 and bf16, and every
 * f32 sum of their products is exact for k up to a few hundred. The padding
 * rows hold NaN. */
static float *exact_matrix(int64_t rows, int64_t cols, int64_t ld, uint64_t seed)
{
    float *p = malloc((size_t)(ld * cols) * sizeof(float));
    ck_assert_ptr_nonnull(p);
    uint64_t state = seed;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < ld; i++) {
            uint64_t r = splitmix(&state);
            p[i + j * ld] = i >= rows ? NAN
                                      : ldexpf((float)(1 + r % 31), -(int)((r >> 8) % 4)) *
                                            ((r >> 16) & 1 ? -1.0f : 1.0f);
        }
    return p;
}

/* A matrix of floats as an array of dtype on the device (bits for a half type). */
static void *matrix_to_device(const float *x, int64_t count, DType dt)
{
    if (dt == DTYPE_F32) return to_device(x, (size_t)count * sizeof(float));
    uint16_t *h = malloc((size_t)count * 2);
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(half_encode(x, h, count, dt), 0);
    void *d = to_device(h, (size_t)count * 2);
    free(h);
    return d;
}

static void matrix_from_device(float *x, const void *d, int64_t count, DType dt)
{
    if (dt == DTYPE_F32) {
        from_device(x, d, (size_t)count * sizeof(float));
        return;
    }
    uint16_t *h = malloc((size_t)count * 2);
    ck_assert_ptr_nonnull(h);
    from_device(h, d, (size_t)count * 2);
    ck_assert_int_eq(half_decode(h, x, count, dt), 0);
    free(h);
}

static cudaDataType cuda_type(DType dt)
{
    return dt == DTYPE_F16 ? CUDA_R_16F : dt == DTYPE_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

/* C (m, n) with leading dimension ldc: got against want, padding rows included. */
static void check_matrix(const char *what, const float *got, const float *want, int64_t m,
                         int64_t n, int64_t ldc)
{
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < ldc; i++) {
            float g = got[i + j * ldc], w = want[i + j * ldc];
            ck_assert_msg(bits_of(g) == bits_of(w) || (isnan(g) && isnan(w)),
                          "%s: C(%lld, %lld)%s = %a, half_gemm gives %a", what, (long long)i,
                          (long long)j, i >= m ? " (padding)" : "", (double)g, (double)w);
        }
}

START_TEST(test_gemm_ex_matches_half_gemm)
{
    require_device();
    cublasHandle_t handle;
    ck_assert_int_eq(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
    const int64_t m = 37, n = 19, k = 45;
    const float alpha = 0.5f, beta = -2.0f;
    for (int d = 0; d < 2; d++) {
        DType dt = d ? DTYPE_BF16 : DTYPE_F16;
        for (int t = 0; t < 8; t++) {
            bool ta = t & 1, tb = t & 2, c32 = t & 4;
            DType ct = c32 ? DTYPE_F32 : dt;
            int64_t lda = (ta ? k : m) + 3, ldb = (tb ? n : k) + 1, ldc = m + 2;
            float *A = exact_matrix(ta ? k : m, ta ? m : k, lda, 10 + t);
            float *B = exact_matrix(tb ? n : k, tb ? k : n, ldb, 20 + t);
            float *C = exact_matrix(m, n, ldc, 30 + t), *got = malloc((size_t)(ldc * n) * 4);
            ck_assert_ptr_nonnull(got);
            void *A_d = matrix_to_device(A, lda * (ta ? m : k), dt);
            void *B_d = matrix_to_device(B, ldb * (tb ? k : n), dt);
            void *C_d = matrix_to_device(C, ldc * n, ct);
            cublasStatus_t st = cublasGemmEx(
                handle, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, (int)m,
                (int)n, (int)k, &alpha, A_d, cuda_type(dt), (int)lda, B_d, cuda_type(dt), (int)ldb,
                &beta, C_d, cuda_type(ct), (int)ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            ck_assert_msg(st == CUBLAS_STATUS_SUCCESS, "cublasGemmEx returned %s",
                          cublasGetStatusString(st));
            matrix_from_device(got, C_d, ldc * n, ct);
            ck_assert_int_eq(
                half_gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, dt, ct), 0);
            char what[96];
            snprintf(what, sizeof what, "cublasGemmEx %s (ta %d, tb %d, C %s)", dtype_name(dt), ta,
                     tb, dtype_name(ct));
            check_matrix(what, got, C, m, n, ldc);
            cudaFree(A_d), cudaFree(B_d), cudaFree(C_d);
            free(A), free(B), free(C), free(got);
        }
    }
    cublasDestroy(handle);
}
END_TEST

/* A GemmEx recorded in a CUDA Graph runs when the graph is launched, with the
 * alpha of the moment it was recorded and the data of the moment it runs. */
START_TEST(test_gemm_ex_in_a_cuda_graph)
{
    require_device();
    const int64_t m = 24, n = 17, k = 33;
    for (int d = 0; d < 2; d++) {
        DType dt = d ? DTYPE_BF16 : DTYPE_F16;
        cudaStream_t stream;
        cublasHandle_t handle;
        CUDA_OK(cudaStreamCreate(&stream));
        ck_assert_int_eq(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(cublasSetStream(handle, stream), CUBLAS_STATUS_SUCCESS);
        float *A = exact_matrix(m, k, m, 40), *A2 = exact_matrix(m, k, m, 41);
        float *B = exact_matrix(k, n, k, 42), *C = malloc((size_t)(m * n) * 4);
        float *got = malloc((size_t)(m * n) * 4);
        ck_assert(C && got);
        void *A_d = matrix_to_device(A, m * k, dt), *B_d = matrix_to_device(B, k * n, dt);
        for (int64_t i = 0; i < m * n; i++)
            C[i] = 7.0f; /* to see that nothing ran yet */
        void *C_d = matrix_to_device(C, m * n, dt);
        float alpha = 0.25f, beta = 0.0f;

        /* One call before the capture, as cuBLAS recommends (a handle's first
         * call may allocate, which a capture forbids); then C is reset. */
        cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1) CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
            st = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &alpha, A_d,
                              cuda_type(dt), (int)m, B_d, cuda_type(dt), (int)k, &beta, C_d,
                              cuda_type(dt), (int)m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            if (pass == 0) {
                ck_assert_int_eq(st, CUBLAS_STATUS_SUCCESS);
                CUDA_OK(cudaStreamSynchronize(stream));
                cudaFree(C_d);
                C_d = matrix_to_device(C, m * n, dt);
            }
        }
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDA_OK(cudaStreamEndCapture(stream, &graph));
        ck_assert_msg(st == CUBLAS_STATUS_SUCCESS, "cublasGemmEx in a capture returned %s",
                      cublasGetStatusString(st));
        CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
        alpha = 100.0f; /* too late: the graph keeps 0.25 */
        matrix_from_device(got, C_d, m * n, dt);
        for (int64_t i = 0; i < m * n; i++)
            ck_assert_msg(got[i] == 7.0f, "the captured cublasGemmEx ran before the graph");

        /* new data in A, then two replays: both give 0.25 * A2 B */
        void *A2_d = matrix_to_device(A2, m * k, dt);
        CUDA_OK(cudaMemcpy(A_d, A2_d, (size_t)(m * k) * 2, cudaMemcpyDeviceToDevice));
        ck_assert_int_eq(half_gemm(false, false, m, n, k, 0.25f, A2, m, B, k, 0.0f, C, m, dt, dt),
                         0);
        for (int replay = 0; replay < 2; replay++) {
            CUDA_OK(cudaGraphLaunch(exec, stream));
            CUDA_OK(cudaStreamSynchronize(stream));
            matrix_from_device(got, C_d, m * n, dt);
            char what[64];
            snprintf(what, sizeof what, "cublasGemmEx %s in a graph, replay %d", dtype_name(dt),
                     replay + 1);
            check_matrix(what, got, C, m, n, m);
        }
        CUDA_OK(cudaGraphExecDestroy(exec));
        CUDA_OK(cudaGraphDestroy(graph));
        cublasDestroy(handle);
        CUDA_OK(cudaStreamDestroy(stream));
        cudaFree(A_d), cudaFree(A2_d), cudaFree(B_d), cudaFree(C_d);
        free(A), free(A2), free(B), free(C), free(got);
    }
}
END_TEST

/* A refused type combination: the simulator says NOT_SUPPORTED, as cuBLAS's documentation
 * does; a cuBLAS release may answer INVALID_VALUE instead, and either is a refusal. */
static bool refused(cublasStatus_t st)
{
#ifdef CUDASIM
    return st == CUBLAS_STATUS_NOT_SUPPORTED;
#else
    return st == CUBLAS_STATUS_NOT_SUPPORTED || st == CUBLAS_STATUS_INVALID_VALUE;
#endif
}

/* Combinations cuBLAS itself does not support, and bad shapes. */
START_TEST(test_gemm_ex_refuses_what_cublas_refuses)
{
    require_device();
#ifdef CUDASIM
    cudasim_set_report_stream(NULL); /* expected refusals; the last report is still read */
#endif
    cublasHandle_t handle;
    ck_assert_int_eq(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
    void *A_d = to_device(NULL, 64 * 2), *B_d = to_device(NULL, 64 * 2);
    void *C_d = to_device(NULL, 64 * 4);
    float one = 1.0f, zero = 0.0f;
    cublasStatus_t st = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, A_d,
                                     CUDA_R_16F, 4, B_d, CUDA_R_16BF, 4, &zero, C_d, CUDA_R_32F, 4,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    ck_assert_msg(refused(st),
                  "f16 A with bf16 B: cublasGemmEx returned %s, expected "
                  "CUBLAS_STATUS_NOT_SUPPORTED",
                  cublasGetStatusString(st));
#ifdef CUDASIM
    ck_assert_msg(strstr(cudasim_last_report(), "A CUDA_R_16F, B CUDA_R_16BF") != NULL,
                  "the report \"%s\" does not name the types", cudasim_last_report());
#endif
    st = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, A_d, CUDA_R_16F, 4, B_d,
                      CUDA_R_16F, 4, &zero, C_d, CUDA_R_16BF, 4, CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT);
    ck_assert_msg(refused(st),
                  "f16 inputs with a bf16 C: cublasGemmEx returned %s", cublasGetStatusString(st));
    st = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, A_d, CUDA_R_16F, 3, B_d,
                      CUDA_R_16F, 4, &zero, C_d, CUDA_R_16F, 4, CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT);
    ck_assert_msg(st == CUBLAS_STATUS_INVALID_VALUE, "lda 3 < m 4: cublasGemmEx returned %s",
                  cublasGetStatusString(st));
    CUDA_OK(cudaDeviceSynchronize());
    cudaFree(A_d), cudaFree(B_d), cudaFree(C_d);
    cublasDestroy(handle);
}
END_TEST

Suite *half_kernels_suite(void)
{
    Suite *s = suite_create("half_kernels");
    TCase *tc = tcase_create("half");
    tcase_set_timeout(tc, 60); /* the simulator runs every CUDA thread on the CPU */
    tcase_add_test(tc, test_f16_casts_and_rounding_match_cpu);
    tcase_add_test(tc, test_bf16_casts_and_rounding_match_cpu);
    tcase_add_test(tc, test_half_wrappers_check_arguments);
    tcase_add_test(tc, test_unscale_check_finds_inf_and_nan_anywhere);
    tcase_add_test(tc, test_gemm_ex_matches_half_gemm);
    tcase_add_test(tc, test_gemm_ex_in_a_cuda_graph);
    tcase_add_test(tc, test_gemm_ex_refuses_what_cublas_refuses);
    suite_add_tcase(s, tc);
    return s;
}
