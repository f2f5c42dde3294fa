/*
 * sgemm_check.h: runs the SGEMM kernels of siboehm's SGEMM_CUDA (its src/kernels,
 * included before this header, unmodified) on one problem, C = alpha*A*B + beta*C
 * with A (M, K), B (K, N), C (M, N) row-major, each with the launch configuration
 * its own runner uses, and compares every result with a host reference. The inputs
 * are multiples of 1/8 and small, so every product and sum is exact in float: a
 * right kernel matches the reference to the last bit, whatever its order of
 * summation. SGEMM_LAST says how many kernels the including file has (11, or 12
 * with kernel 12, which needs libcu++'s cuda::barrier).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define SGEMM_CHECK(call)                                                                   \
    do {                                                                                    \
        cudaError_t e_ = (call);                                                            \
        if (e_ != cudaSuccess) {                                                            \
            printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));    \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)
#define SGEMM_DIV_UP(a, b) (((a) + (b) - 1) / (b))

static const int M = 256, N = 512, K = 64;

/* Kernel `num` on the device matrices, launched as SGEMM_CUDA's runner launches it
 * for a problem of at least 128 rows and columns. */
static void run_kernel(int num, float alpha, float *A, float *B, float beta, float *C)
{
    switch (num) {
    case 1:
        sgemm_naive<<<dim3(SGEMM_DIV_UP(M, 32), SGEMM_DIV_UP(N, 32)), dim3(32, 32)>>>(M, N, K, alpha, A,
                                                                                   B, beta, C);
        break;
    case 2:
        sgemm_global_mem_coalesce<32>
            <<<dim3(SGEMM_DIV_UP(M, 32), SGEMM_DIV_UP(N, 32)), 32 * 32>>>(M, N, K, alpha, A, B, beta, C);
        break;
    case 3:
        sgemm_shared_mem_block<32>
            <<<dim3(SGEMM_DIV_UP(M, 32), SGEMM_DIV_UP(N, 32)), 32 * 32>>>(M, N, K, alpha, A, B, beta, C);
        break;
    case 4:
        sgemm1DBlocktiling<64, 64, 8, 8>
            <<<dim3(SGEMM_DIV_UP(N, 64), SGEMM_DIV_UP(M, 64)), 64 * 64 / 8>>>(M, N, K, alpha, A, B, beta, C);
        break;
#define SGEMM_2D(kernel)                                                                    \
    kernel<128, 128, 8, 8, 8><<<dim3(SGEMM_DIV_UP(N, 128), SGEMM_DIV_UP(M, 128)),            \
                                128 * 128 / (8 * 8)>>>(M, N, K, alpha, A, B, beta, C)
    case 5: SGEMM_2D(sgemm2DBlocktiling); break;
    case 6: SGEMM_2D(sgemmVectorize); break;
    case 7: SGEMM_2D(sgemmResolveBankConflicts); break;
    case 8: SGEMM_2D(sgemmResolveBankExtraCol); break;
    case 9:
        sgemmAutotuned<128, 128, 16, 8, 8>
            <<<dim3(SGEMM_DIV_UP(N, 128), SGEMM_DIV_UP(M, 128)), K9_NUM_THREADS>>>(M, N, K, alpha, A, B,
                                                                                beta, C);
        break;
    case 10:
        sgemmWarptiling<128, 128, 16, 64, 64, 4, 8, 4, 128>
            <<<dim3(SGEMM_DIV_UP(N, 128), SGEMM_DIV_UP(M, 128)), 128>>>(M, N, K, alpha, A, B, beta, C);
        break;
    case 11:
        sgemmDoubleBuffering<128, 256, 16, 128, 32, 1, 8, 8, 256>
            <<<dim3(SGEMM_DIV_UP(N, 256), SGEMM_DIV_UP(M, 128)), 256>>>(M, N, K, alpha, A, B, beta, C);
        break;
#if SGEMM_LAST >= 12
    case 12:
        runSgemmDoubleBuffering2<128, 128, 16, 64, 64, 4, 8, 4, 128>
            <<<dim3(SGEMM_DIV_UP(N, 128), SGEMM_DIV_UP(M, 128)), 128>>>(M, N, K, alpha, A, B, beta, C);
        break;
#endif
    }
}

int main(int argc, char **argv)
{
    /* (sgemm_check [FIRST [LAST]]: the kernels to run, 1 to SGEMM_LAST by default) */
    int first = argc > 1 ? atoi(argv[1]) : 1, last = argc > 2 ? atoi(argv[2]) : SGEMM_LAST;
    if (first < 1 || last > SGEMM_LAST || first > last) {
        printf("usage: %s [FIRST [LAST]], kernels 1 to %d\n", argv[0], SGEMM_LAST);
        return 2;
    }
    std::vector<float> a((size_t)M * K), b((size_t)K * N), c((size_t)M * N), out(c.size());
    std::vector<double> want(c.size());
    unsigned s = 12345;
    auto next = [&s]() { s = s * 1103515245u + 12345u; return (int)((s >> 16) % 17) - 8; };
    for (float &x : a) x = next() / 8.0f;
    for (float &x : b) x = next() / 8.0f;
    for (float &x : c) x = next() / 8.0f;
    const float alpha = 0.5f, beta = 3.0f;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double sum = 0;
            for (int k = 0; k < K; k++) sum += (double)a[(size_t)i * K + k] * b[(size_t)k * N + j];
            want[(size_t)i * N + j] = alpha * sum + beta * (double)c[(size_t)i * N + j];
        }
    float *dA, *dB, *dC;
    SGEMM_CHECK(cudaMalloc(&dA, a.size() * sizeof(float)));
    SGEMM_CHECK(cudaMalloc(&dB, b.size() * sizeof(float)));
    SGEMM_CHECK(cudaMalloc(&dC, c.size() * sizeof(float)));
    SGEMM_CHECK(cudaMemcpy(dA, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
    SGEMM_CHECK(cudaMemcpy(dB, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
    int failed = 0;
    for (int num = first; num <= last; num++) {
        SGEMM_CHECK(cudaMemcpy(dC, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));
        run_kernel(num, alpha, dA, dB, beta, dC);
        SGEMM_CHECK(cudaGetLastError());
        SGEMM_CHECK(cudaDeviceSynchronize());
        SGEMM_CHECK(cudaMemcpy(out.data(), dC, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
        size_t wrong = 0, first_wrong = 0;
        for (size_t i = 0; i < out.size(); i++)
            if ((double)out[i] != want[i] && wrong++ == 0) first_wrong = i;
        if (wrong) {
            printf("kernel %d: FAIL, %zu of %zu elements differ from the host's; C[%zu][%zu] = %g, "
                   "expected %g\n", num, wrong, out.size(), first_wrong / N, first_wrong % N,
                   out[first_wrong], want[first_wrong]);
            failed++;
        } else {
            printf("kernel %d: ok, C (%d x %d) equals the host's\n", num, M, N);
        }
    }
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    return failed ? 1 : 0;
}
