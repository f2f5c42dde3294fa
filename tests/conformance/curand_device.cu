// cuRAND's device API: per-thread XORWOW (curandState) and Philox4_32_10
// states set up by curand_init with the thread's index as subsequence, then
// the raw numbers, uniforms, normals and log-normals, skipahead and
// skipahead_sequence, and curand_init with large subsequences and offsets.
// What it prints is NVIDIA's sequence: tests/conformance/curand_reference.sh
// derives every number from libcurand's host generator where the toolkit is
// installed. Normals are printed to 4 decimals, as a GPU's __sincosf
// differs in the last bits (--exact prints every float in hex).
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include "check.h"

#define THREADS 64
#define XW 8 /* numbers kept per XORWOW thread */
#define PH 14 /* per Philox thread */

/* Each thread's state: the seed, its index as the subsequence. */
template <typename State>
__global__ void setup(State *states, unsigned long long seed)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curand_init(seed, id, 0, &states[id]);
}

__global__ void draw_xorwow(curandState *states, float *out)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState s = states[id];
    float *o = out + id * XW;
    o[0] = __uint_as_float(curand(&s)); /* numbers 0, 1 (bits kept as they are) */
    o[1] = __uint_as_float(curand(&s));
    o[2] = curand_uniform(&s);          /* 2 */
    skipahead(5, &s);                   /* 3 to 7 skipped */
    o[3] = __uint_as_float(curand(&s)); /* 8 */
    curand(&s);                         /* 9 */
    o[4] = curand_normal(&s);           /* 10 and 11: two normals */
    o[5] = curand_normal(&s);
    o[6] = curand_log_normal(&s, 0.5f, 0.25f); /* 12 and 13 */
    o[7] = __uint_as_float(curand(&s));        /* 14 */
    states[id] = s;
}

__global__ void draw_philox(curandStatePhilox4_32_10_t *states, float *out)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandStatePhilox4_32_10_t s = states[id];
    float *o = out + id * PH;
    uint4 b = curand4(&s); /* numbers 0 to 3 */
    o[0] = __uint_as_float(b.x);
    o[1] = __uint_as_float(b.w);
    float4 u = curand_uniform4(&s); /* 4 to 7 */
    o[2] = u.x;
    o[3] = u.w;
    o[4] = __uint_as_float(curand(&s)); /* 8 */
    skipahead(3, &s);                   /* 9 to 11 */
    float4 n = curand_normal4(&s);      /* 12 to 15 */
    o[5] = n.x, o[6] = n.y, o[7] = n.z, o[8] = n.w;
    o[9] = curand_normal(&s); /* 16 and 17 */
    o[10] = curand_normal(&s);
    o[11] = __uint_as_float(curand(&s)); /* 18 */
    o[12] = curand_uniform(&s);          /* 19 */
    o[13] = __uint_as_float(curand(&s)); /* 20 */
}

/* Jumps far into the sequences, in one thread. */
__global__ void jumps(unsigned *out)
{
    curandState x;
    curand_init(1234, 3, 100, &x);
    out[0] = curand(&x);
    curand_init(1234, 0, 0, &x);
    skipahead_sequence(4000, &x);
    skipahead(250, &x);
    out[1] = curand(&x);
    curand_init(1234, 4095, 300, &x);
    out[2] = curand(&x);
    curandStatePhilox4_32_10_t p;
    curand_init(42, 60000, 21, &p);
    out[3] = curand(&p);
    curand_init(42, 7, 0, &p);
    skipahead_sequence(10, &p);
    out[4] = curand(&p);
    curand_init(42, 1, 6, &p);
    skipahead(1, &p);
    out[5] = curand(&p);
}

static bool exact;

static void show(const char *what, float v, bool bits)
{
    if (bits) {
        unsigned u;
        memcpy(&u, &v, 4);
        printf(" %s %u", what, u);
    } else if (exact) {
        printf(" %s %a", what, v);
    } else {
        printf(" %s %.4f", what, v);
    }
}

int main(int argc, char **argv)
{
    exact = argc > 1 && !strcmp(argv[1], "--exact");
    curandState *xs;
    curandStatePhilox4_32_10_t *ps;
    float *dout, out[THREADS * PH];
    unsigned *djump, jump[6];
    CHECK(cudaMalloc(&xs, THREADS * sizeof *xs));
    CHECK(cudaMalloc(&ps, THREADS * sizeof *ps));
    CHECK(cudaMalloc(&dout, sizeof out));
    CHECK(cudaMalloc(&djump, sizeof jump));

    setup<<<THREADS / 32, 32>>>(xs, 1234);
    draw_xorwow<<<THREADS / 32, 32>>>(xs, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, dout, THREADS * XW * sizeof(float), cudaMemcpyDeviceToHost));
    const int shown[] = {0, 1, 31, 63};
    for (int t : shown) {
        const float *o = out + t * XW;
        printf("xorwow %2d:", t);
        show("bits", o[0], true), show("", o[1], true), show("uniform", o[2], false);
        show("after skipahead", o[3], true), show("normal", o[4], false), show("", o[5], false);
        show("log-normal", o[6], false), show("bits", o[7], true);
        printf("\n");
    }

    setup<<<THREADS / 32, 32>>>(ps, 42);
    draw_philox<<<THREADS / 32, 32>>>(ps, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, dout, THREADS * PH * sizeof(float), cudaMemcpyDeviceToHost));
    for (int t : shown) {
        const float *o = out + t * PH;
        printf("philox %2d:", t);
        show("curand4", o[0], true), show("", o[1], true), show("uniform4", o[2], false);
        show("", o[3], false), show("bits", o[4], true);
        show("normal4", o[5], false), show("", o[6], false), show("", o[7], false);
        show("", o[8], false), show("normal", o[9], false), show("", o[10], false);
        show("bits", o[11], true), show("uniform", o[12], false), show("bits", o[13], true);
        printf("\n");
    }

    jumps<<<1, 1>>>(djump);
    CHECK(cudaMemcpy(jump, djump, sizeof jump, cudaMemcpyDeviceToHost));
    printf("jumps: %u %u %u %u %u %u\n", jump[0], jump[1], jump[2], jump[3], jump[4], jump[5]);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return 0;
}
