/* matmul.c: C = A B with OpenBLAS on the CPU, cuBLAS or our kernels on a GPU. */
#include "lib/device/matmul.h"

#include <cblas.h>

#include "lib/device/backend.h"
#include "lib/core/err.h"

int matmul_cpu(const float *A, const float *B, float *C, int64_t m, int64_t n, int64_t k)
{
    if (m < 0 || n < 0 || k < 0 || m > 2147483647 || n > 2147483647 || k > 2147483647)
        return err_set(ERR_ARG, "matmul_cpu: sizes (%lld, %lld, %lld) out of range", (long long)m,
                       (long long)n, (long long)k);
    if (m == 0 || n == 0) return ERR_OK;
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, A,
                (int)(m ? m : 1), B, (int)(k ? k : 1), 0.0f, C, (int)(m ? m : 1));
    return ERR_OK;
}

int matmul_device(Device d, int variant, const float *A, const float *B, float *C, int64_t m,
                  int64_t n, int64_t k)
{
    TRY(device_check(d));
    const BackendOps *ops = backend_of(d);
    if (variant == MATMUL_CUBLAS)
        return ops->gemm(d, false, false, m, n, k, 1.0f, A, m, B, k, 0.0f, C, m);
    return ops->sgemm_kernel(d, variant, A, B, C, m, n, k);
}

/* The workbook's own kernels are the CUDA backend's (none without one). */
static const char *kernel_name(int variant)
{
    const BackendOps *cuda = backend_cuda();
    return cuda ? cuda->sgemm_name(variant) : NULL;
}

int matmul_variants(void)
{
    int n = 0;
    while (kernel_name(n)) n++;
    return n;
}

const char *matmul_variant_name(int variant)
{
    if (variant == MATMUL_CUBLAS) return "cuBLAS";
    const char *name = kernel_name(variant);
    return name ? name : "unknown";
}

int matmul_cpu_threads(void) { return openblas_get_num_threads(); }
