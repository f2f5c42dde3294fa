/*
 * bench_sgemm: our register-blocked SGEMM against cuBLAS, 4096 x 4096, in one
 * run on one GPU (make bench). Target (issue "GPU half"): at least 50% of
 * cuBLAS FP32. Without a GPU it says so and exits 0; on the CUDA simulator it
 * refuses, since simulator times say nothing about a GPU.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/device/backend.h"
#include "lib/device/device.h"
#include "lib/core/err.h"
#include "lib/device/matmul.h"
#include "lib/core/timer.h"

#define TARGET 0.50

/* Best of 5 synchronized runs of one variant, in seconds. */
static double best_time(Device d, int variant, const float *A, const float *B, float *C,
                        int64_t n)
{
    double best = 1e30;
    for (int r = 0; r < 6; r++) { /* the first run warms up */
        double t0 = timer_now();
        if (matmul_device(d, variant, A, B, C, n, n, n) || device_synchronize(d)) {
            fprintf(stderr, "bench_sgemm: %s\n", err_message());
            exit(1);
        }
        double s = timer_now() - t0;
        if (r > 0 && s < best) best = s;
    }
    return best;
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atol(argv[1]) : 4096;
    int count = 0;
    printf("SGEMM %lld x %lld: our kernels against cuBLAS on one GPU\n", (long long)n,
           (long long)n);
    if (device_count(&count) != ERR_OK) {
        printf("  skipped: %s\n", err_message());
        return 0;
    }
    Device d = device_cuda(0);
    DeviceInfo info;
    if (device_info(d, &info) != ERR_OK || info.simulated) {
        printf("  skipped: %s\n", info.simulated ? "the CUDA simulator times the CPU, not a GPU"
                                                 : err_message());
        return 0;
    }
    size_t bytes = (size_t)(n * n) * sizeof(float);
    float *h = malloc(bytes), *A, *B, *C;
    for (int64_t i = 0; i < n * n; i++) h[i] = (float)((i * 7919) % 2001 - 1000) * 1e-3f;
    if (device_alloc(d, bytes, (void **)&A) || device_alloc(d, bytes, (void **)&B) ||
        device_alloc(d, bytes, (void **)&C) || device_copy(A, d, h, device_cpu(), bytes) ||
        device_copy(B, d, h, device_cpu(), bytes)) {
        fprintf(stderr, "bench_sgemm: %s\n", err_message());
        return 1;
    }
    double flops = 2.0 * (double)n * (double)n * (double)n;
    double ref = best_time(d, MATMUL_CUBLAS, A, B, C, n);
    printf("  on %s\n  %-24s %8.3f ms  %8.1f GFLOP/s\n", info.name, "cuBLAS", ref * 1e3,
           flops / ref * 1e-9);
    double ratio = 0;
    for (int v = 0; v < matmul_variants(); v++) {
        double s = best_time(d, v, A, B, C, n);
        printf("  %-24s %8.3f ms  %8.1f GFLOP/s  %5.1f%% of cuBLAS\n", matmul_variant_name(v),
               s * 1e3, flops / s * 1e-9, 100.0 * ref / s);
        if (v == matmul_variants() - 1) ratio = ref / s;
    }
    printf("  register-blocked / cuBLAS = %.0f%%  (target: at least %.0f%%: %s)\n", 100 * ratio,
           100 * TARGET, ratio >= TARGET ? "met" : "NOT MET");
    device_free(d, A, bytes);
    device_free(d, B, bytes);
    device_free(d, C, bytes);
    free(h);
    return 0;
}
