// cuBLAS as its documentation's examples use it: a column-major matrix
// (IDX2C) copied with cublasSetMatrix, changed with cublasSscal on a row and
// a column, copied back with cublasGetMatrix; then level 1 (axpy, dot, nrm2,
// scal, asum, iamax) in float and double, level 2 (gemv, ger), the batched
// gemms, the Async helpers on a stream and the device pointer mode, each
// checked against a CPU reference. The values are small integers and halves,
// so every sum is exact and a GPU prints the same.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define M 6
#define N 5
#define IDX2C(i, j, ld) (((j) * (ld)) + (i))

#define CUBLAS_CHECK(call)                                                          \
    do {                                                                            \
        cublasStatus_t s_ = (call);                                                 \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                          \
            printf("%s failed: %s\n", #call, cublasGetStatusString(s_));            \
            return 1;                                                               \
        }                                                                           \
    } while (0)

static void modify(cublasHandle_t handle, float *m, int ldm, int n, int p, int q, float alpha,
                   float beta)
{
    cublasSscal(handle, n - q, &alpha, &m[IDX2C(p, q, ldm)], ldm);
    cublasSscal(handle, ldm - p, &beta, &m[IDX2C(p, q, ldm)], 1);
}

static int report(const char *what, double got, double want)
{
    int ok = fabs(got - want) <= 1e-6 * (1 + fabs(want));
    printf("%-34s %10.4f  %s\n", what, got, ok ? "ok" : "MISMATCH");
    return ok;
}

int main(void)
{
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));

    /* The documentation's example 2: 0-based indexing. */
    float *a = (float *)malloc(M * N * sizeof(float)), *devPtrA;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) a[IDX2C(i, j, M)] = (float)(i * N + j + 1);
    cudaMalloc((void **)&devPtrA, M * N * sizeof(*a));
    CUBLAS_CHECK(cublasSetMatrix(M, N, sizeof(*a), a, M, devPtrA, M));
    modify(handle, devPtrA, M, N, 1, 2, 16.0f, 12.0f);
    CUBLAS_CHECK(cublasGetMatrix(M, N, sizeof(*a), devPtrA, M, a, M));
    for (int j = 0; j < N; j++) {
        for (int i = 0; i < M; i++) printf("%7.0f", a[IDX2C(i, j, M)]);
        printf("\n");
    }

    /* Level 1, float and double, against loops on the CPU. */
    const int n = 1000;
    float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(n * sizeof(float));
    double *xd = (double *)malloc(n * sizeof(double)), *yd = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) {
        x[i] = (float)((i * 7) % 13) - 6.0f;
        y[i] = (float)((i * 3) % 5) * 0.5f;
        xd[i] = x[i];
        yd[i] = y[i];
    }
    x[737] = xd[737] = 9.5; /* the largest magnitude, for iamax */
    float *dx, *dy;
    double *dxd, *dyd;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMalloc(&dxd, n * sizeof(double));
    cudaMalloc(&dyd, n * sizeof(double));
    CUBLAS_CHECK(cublasSetVector(n, sizeof(float), x, 1, dx, 1));
    CUBLAS_CHECK(cublasSetVector(n, sizeof(float), y, 1, dy, 1));
    CUBLAS_CHECK(cublasSetVector(n, sizeof(double), xd, 1, dxd, 1));
    CUBLAS_CHECK(cublasSetVector(n, sizeof(double), yd, 1, dyd, 1));
    int ok = 1;
    double dot = 0, sq = 0, asum = 0;
    int imax = 0;
    for (int i = 0; i < n; i++) {
        dot += (double)x[i] * y[i];
        sq += (double)x[i] * x[i];
        asum += fabs(x[i]);
        if (fabs(x[i]) > fabs(x[imax])) imax = i;
    }
    float fr;
    double dr;
    int ir;
    CUBLAS_CHECK(cublasSdot(handle, n, dx, 1, dy, 1, &fr));
    ok &= report("cublasSdot", fr, dot);
    CUBLAS_CHECK(cublasDdot(handle, n, dxd, 1, dyd, 1, &dr));
    ok &= report("cublasDdot", dr, dot);
    CUBLAS_CHECK(cublasSnrm2(handle, n, dx, 1, &fr));
    ok &= report("cublasSnrm2", fr, sqrt(sq));
    CUBLAS_CHECK(cublasDnrm2(handle, n, dxd, 1, &dr));
    ok &= report("cublasDnrm2", dr, sqrt(sq));
    CUBLAS_CHECK(cublasSasum(handle, n, dx, 1, &fr));
    ok &= report("cublasSasum", fr, asum);
    CUBLAS_CHECK(cublasDasum(handle, n, dxd, 1, &dr));
    ok &= report("cublasDasum", dr, asum);
    CUBLAS_CHECK(cublasIsamax(handle, n, dx, 1, &ir));
    ok &= report("cublasIsamax (1-based)", ir, imax + 1);
    CUBLAS_CHECK(cublasIdamax(handle, n, dxd, 1, &ir));
    ok &= report("cublasIdamax (1-based)", ir, imax + 1);
    /* every second element: stride 2 */
    CUBLAS_CHECK(cublasSdot(handle, n / 2, dx, 2, dy, 2, &fr));
    double dot2 = 0;
    for (int i = 0; i < n; i += 2) dot2 += (double)x[i] * y[i];
    ok &= report("cublasSdot, stride 2", fr, dot2);

    float alpha = 2.5f;
    double alphad = -1.5;
    CUBLAS_CHECK(cublasSaxpy(handle, n, &alpha, dx, 1, dy, 1));
    CUBLAS_CHECK(cublasDaxpy(handle, n, &alphad, dxd, 1, dyd, 1));
    float scale = 0.5f;
    CUBLAS_CHECK(cublasSscal(handle, n, &scale, dx, 1));
    float *y2 = (float *)malloc(n * sizeof(float)), *x2 = (float *)malloc(n * sizeof(float));
    double *yd2 = (double *)malloc(n * sizeof(double));
    CUBLAS_CHECK(cublasGetVector(n, sizeof(float), dy, 1, y2, 1));
    CUBLAS_CHECK(cublasGetVector(n, sizeof(float), dx, 1, x2, 1));
    CUBLAS_CHECK(cublasGetVector(n, sizeof(double), dyd, 1, yd2, 1));
    double err = 0, sum_y = 0;
    for (int i = 0; i < n; i++) {
        err = fmax(err, fabs(y2[i] - (y[i] + 2.5 * x[i])));
        err = fmax(err, fabs(yd2[i] - (y[i] - 1.5 * x[i])));
        err = fmax(err, fabs(x2[i] - 0.5 * x[i]));
        sum_y += y2[i];
    }
    ok &= report("axpy and scal: largest error", err, 0);
    printf("sum of y after cublasSaxpy: %.1f\n", sum_y);

    /* Level 2: y = A x, y = A^T x, then A += 2 x y^T; A is M x N. */
    float xv[N], yv[M], xt[M], yt[N];
    for (int j = 0; j < N; j++) xv[j] = (float)(j + 1);
    for (int i = 0; i < M; i++) xt[i] = (float)(i % 3) - 1.0f;
    float *dxv, *dyv, *dxt, *dyt;
    cudaMalloc(&dxv, N * sizeof(float));
    cudaMalloc(&dyv, M * sizeof(float));
    cudaMalloc(&dxt, M * sizeof(float));
    cudaMalloc(&dyt, N * sizeof(float));
    cublasSetVector(N, sizeof(float), xv, 1, dxv, 1);
    cublasSetVector(M, sizeof(float), xt, 1, dxt, 1);
    float one = 1.0f, zero = 0.0f, two = 2.0f;
    CUBLAS_CHECK(cublasSgemv(handle, CUBLAS_OP_N, M, N, &one, devPtrA, M, dxv, 1, &zero, dyv, 1));
    CUBLAS_CHECK(cublasSgemv(handle, CUBLAS_OP_T, M, N, &one, devPtrA, M, dxt, 1, &zero, dyt, 1));
    cublasGetVector(M, sizeof(float), dyv, 1, yv, 1);
    cublasGetVector(N, sizeof(float), dyt, 1, yt, 1);
    err = 0;
    for (int i = 0; i < M; i++) {
        double want = 0;
        for (int j = 0; j < N; j++) want += a[IDX2C(i, j, M)] * xv[j];
        err = fmax(err, fabs(yv[i] - want));
    }
    for (int j = 0; j < N; j++) {
        double want = 0;
        for (int i = 0; i < M; i++) want += a[IDX2C(i, j, M)] * xt[i];
        err = fmax(err, fabs(yt[j] - want));
    }
    ok &= report("cublasSgemv N and T: largest error", err, 0);
    printf("A x = %.0f %.0f %.0f %.0f %.0f %.0f\n", yv[0], yv[1], yv[2], yv[3], yv[4], yv[5]);
    CUBLAS_CHECK(cublasSger(handle, M, N, &two, dxt, 1, dxv, 1, devPtrA, M));
    float *a2 = (float *)malloc(M * N * sizeof(float));
    cublasGetMatrix(M, N, sizeof(float), devPtrA, M, a2, M);
    err = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++)
            err = fmax(err, fabs(a2[IDX2C(i, j, M)] - (a[IDX2C(i, j, M)] + 2 * xt[i] * xv[j])));
    ok &= report("cublasSger: largest error", err, 0);

    /* Batched: 3 products of (4 x 3) (3 x 2), strided and through pointer arrays. */
    const int bm = 4, bn = 2, bk = 3, batches = 3;
    float hA[batches * bm * bk], hB[batches * bk * bn], hC[batches * bm * bn];
    for (int i = 0; i < batches * bm * bk; i++) hA[i] = (float)(i % 5) - 2.0f;
    for (int i = 0; i < batches * bk * bn; i++) hB[i] = (float)(i % 4) * 0.5f;
    float *dA, *dB, *dC, *dC2;
    cudaMalloc(&dA, sizeof hA);
    cudaMalloc(&dB, sizeof hB);
    cudaMalloc(&dC, sizeof hC);
    cudaMalloc(&dC2, sizeof hC);
    cudaMemcpy(dA, hA, sizeof hA, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, sizeof hB, cudaMemcpyHostToDevice);
    CUBLAS_CHECK(cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, bm, bn, bk, &one, dA,
                                           bm, bm * bk, dB, bk, bk * bn, &zero, dC, bm, bm * bn,
                                           batches));
    const float *pa[batches], *pb[batches];
    float *pc[batches];
    for (int b = 0; b < batches; b++) {
        pa[b] = dA + b * bm * bk;
        pb[b] = dB + b * bk * bn;
        pc[b] = dC2 + b * bm * bn;
    }
    const float **dpa, **dpb;
    float **dpc;
    cudaMalloc(&dpa, sizeof pa);
    cudaMalloc(&dpb, sizeof pb);
    cudaMalloc(&dpc, sizeof pc);
    cudaMemcpy(dpa, pa, sizeof pa, cudaMemcpyHostToDevice);
    cudaMemcpy(dpb, pb, sizeof pb, cudaMemcpyHostToDevice);
    cudaMemcpy(dpc, pc, sizeof pc, cudaMemcpyHostToDevice);
    CUBLAS_CHECK(cublasSgemmBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, bm, bn, bk, &one, dpa, bm,
                                    dpb, bk, &zero, dpc, bm, batches));
    float hC2[batches * bm * bn];
    cudaMemcpy(hC, dC, sizeof hC, cudaMemcpyDeviceToHost);
    cudaMemcpy(hC2, dC2, sizeof hC2, cudaMemcpyDeviceToHost);
    double err2 = 0, trace = 0;
    err = 0;
    for (int b = 0; b < batches; b++)
        for (int j = 0; j < bn; j++)
            for (int i = 0; i < bm; i++) {
                double want = 0;
                for (int k = 0; k < bk; k++)
                    want += hA[b * bm * bk + IDX2C(i, k, bm)] * hB[b * bk * bn + IDX2C(k, j, bk)];
                err = fmax(err, fabs(hC[b * bm * bn + IDX2C(i, j, bm)] - want));
                err2 = fmax(err2, fabs(hC2[b * bm * bn + IDX2C(i, j, bm)] - want));
                if (i == j) trace += want;
            }
    ok &= report("cublasSgemmStridedBatched: error", err, 0);
    ok &= report("cublasSgemmBatched: error", err2, 0);
    printf("sum of the batches' diagonals: %.2f\n", trace);

    /* The Async helpers on a stream, and a dot whose result stays on the device. */
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    float in[8] = {1, -2, 3, -4, 5, -6, 7, -8}, out[8] = {0};
    float *dv, *dres;
    cudaMalloc(&dv, sizeof in);
    cudaMalloc(&dres, sizeof(float));
    CUBLAS_CHECK(cublasSetVectorAsync(8, sizeof(float), in, 1, dv, 1, stream));
    CUBLAS_CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE));
    CUBLAS_CHECK(cublasSdot(handle, 8, dv, 1, dv, 1, dres));
    CUBLAS_CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
    CUBLAS_CHECK(cublasGetMatrixAsync(4, 2, sizeof(float), dv, 4, out, 4, stream));
    cudaStreamSynchronize(stream);
    cudaMemcpy(&fr, dres, sizeof fr, cudaMemcpyDeviceToHost);
    ok &= report("dot in CUBLAS_POINTER_MODE_DEVICE", fr, 204);
    printf("back through cublasGetMatrixAsync: %.0f %.0f ... %.0f\n", out[0], out[1], out[7]);

    cublasDestroy(handle);
    cudaStreamDestroy(stream);
    printf("%s\n", ok ? "all results match the CPU" : "SOME RESULTS DIFFER");
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return ok ? 0 : 1;
}
