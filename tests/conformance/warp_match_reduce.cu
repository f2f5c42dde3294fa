// The warp intrinsics of compute capability 7.0 and 8.0 (warp_match_reduce.flags:
// built for sm_80): __match_any_sync and __match_all_sync on int, unsigned,
// long long, float and double, and the __reduce_*_sync family (add, min, max on
// int and unsigned; and, or, xor on unsigned), over the whole warp and over half
// of it.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void intrinsics(unsigned *out)
{
    unsigned lane = threadIdx.x % 32;
    int key = (int)lane / 4;
    unsigned o = 0;
    out[o++ * 32 + lane] = __match_any_sync(0xffffffffu, key);
    out[o++ * 32 + lane] = __match_any_sync(0xffffffffu, lane % 2 ? 1.5f : -0.0f);
    out[o++ * 32 + lane] = __match_any_sync(0xffffffffu, (long long)(lane % 3) << 40);
    out[o++ * 32 + lane] = __match_any_sync(0xffffffffu, lane < 7 ? 2.0 : 3.0);
    int pred = -1;
    out[o++ * 32 + lane] = __match_all_sync(0xffffffffu, 7u, &pred);
    out[o++ * 32 + lane] = (unsigned)pred;
    out[o++ * 32 + lane] = __match_all_sync(0xffffffffu, key, &pred);
    out[o++ * 32 + lane] = (unsigned)pred;
    int v = (int)lane * 3 - 40;
    out[o++ * 32 + lane] = (unsigned)__reduce_add_sync(0xffffffffu, v);
    out[o++ * 32 + lane] = (unsigned)__reduce_min_sync(0xffffffffu, v);
    out[o++ * 32 + lane] = (unsigned)__reduce_max_sync(0xffffffffu, v);
    out[o++ * 32 + lane] = __reduce_add_sync(0xffffffffu, 0x10000000u * lane);
    out[o++ * 32 + lane] = __reduce_min_sync(0xffffffffu, (unsigned)v);
    out[o++ * 32 + lane] = __reduce_and_sync(0xffffffffu, ~(1u << lane));
    out[o++ * 32 + lane] = __reduce_or_sync(0xffffffffu, 1u << (lane % 8 * 4));
    out[o++ * 32 + lane] = __reduce_xor_sync(0xffffffffu, lane);
    if (lane < 16) {
        out[o * 32 + lane] = (unsigned)__reduce_add_sync(0x0000ffffu, v);
        out[(o + 1) * 32 + lane] = __match_any_sync(0x0000ffffu, key);
    } else {
        out[o * 32 + lane] = (unsigned)__reduce_max_sync(0xffff0000u, v);
        out[(o + 1) * 32 + lane] = __match_any_sync(0xffff0000u, key);
    }
}

int main(void)
{
    const int rows = 18;
    const char *what[rows] = {"match_any(lane / 4)", "match_any(float)", "match_any(long long)",
                              "match_any(double)", "match_all(7u)", "  pred", "match_all(lane / 4)",
                              "  pred", "reduce_add(int)", "reduce_min(int)", "reduce_max(int)",
                              "reduce_add(unsigned, wraps)", "reduce_min(unsigned)", "reduce_and",
                              "reduce_or", "reduce_xor", "reduce_add/max, half warps",
                              "match_any, half warps"};
    unsigned h[rows * 32], *d;
    CHECK(cudaMalloc(&d, sizeof h));
    intrinsics<<<1, 32>>>(d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int r = 0; r < rows; r++)
        printf("%-28s lane 0: 0x%08x  lane 5: 0x%08x  lane 31: 0x%08x\n", what[r], h[r * 32],
               h[r * 32 + 5], h[r * 32 + 31]);
    CHECK(cudaFree(d));
    return 0;
}
