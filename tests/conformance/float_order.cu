// Float arithmetic in the order written, as nvcc compiles it: a Kahan sum
// keeps its correction, (x + big) - big loses x, and -0.0f stays negative.
#include <cstdio>

__global__ void sums(const float *x, int n, float *out)
{
    float naive = 0, sum = 0, c = 0;
    for (int i = 0; i < n; i++) {
        naive += x[i];
        float y = x[i] - c;
        float t = sum + y;
        c = (t - sum) - y;
        sum = t;
    }
    float big = 1.0e8f;
    out[0] = naive;
    out[1] = sum;
    out[2] = (x[0] + big) - big;
    out[3] = -x[0] * 0.0f;
}

int main()
{
    const int n = 100000;
    static float h[n];
    for (int i = 0; i < n; i++) h[i] = 0.1f;
    float *x, *out, r[4];
    cudaMalloc(&x, sizeof h);
    cudaMalloc(&out, sizeof r);
    cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
    sums<<<1, 1>>>(x, n, out);
    cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
    printf("naive %.4f kahan %.4f (x + 1e8) - 1e8 = %g, -x * 0 = %g\n", r[0], r[1], r[2], r[3]);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return 0;
}
