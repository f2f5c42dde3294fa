/*
 * curand_kernel.h for the CUDA simulator: cuRAND's device API for the
 * XORWOW generator (curandState, curandStateXORWOW_t) and Philox4_32_10
 * (curandStatePhilox4_32_10_t): curand_init, curand, curand4, skipahead,
 * skipahead_sequence, and the uniform, normal and log-normal distributions.
 * The generators are the published ones (Marsaglia's xorwow; Salmon et al.'s
 * Philox4x32-10) seeded as cuRAND seeds them, so a state gives NVIDIA's
 * sequence: the same bits, the same uniforms. The normals come from the same
 * pairs of bits by the same Box-Muller formula, computed with the C
 * library's logf, sinf and cosf as cuRAND's host generator computes them (a
 * GPU takes sine and cosine from its fast approximation, __sincosf, so
 * there they differ in the last bits).
 *
 * The states are the kernel's memory like any other: an array of them in
 * cudaMalloc'd memory is checked (a state read before curand_init is an
 * uninitialized read). XORWOW's jumps (a subsequence is 2^67 numbers) are
 * matrix powers over GF(2), done by the simulator's library
 * (lib/cudasim/libs/curand_xorwow.cpp). MRG32k3a, MTGP32, the Sobol generators
 * and the discrete distributions (curand_poisson) are not here; the
 * translator refuses them by name.
 */
#ifndef CUDASIM_CURAND_KERNEL_H
#define CUDASIM_CURAND_KERNEL_H

#ifndef __cplusplus
#error "curand_kernel.h is CUDA C++: include it in a .cu file"
#endif

#include <math.h>

#include "cuda_runtime.h"
#include "curand.h"

/* Advance the 160 bits of XORWOW's xorshift part by n steps (subsequences:
 * by n subsequences of 2^67 steps). The Weyl counter is the caller's. */
extern "C" void cudasim_curand_xorwow_skip(unsigned int v[5], unsigned long long n,
                                           int subsequences);

#define CURAND_2POW32_INV (2.3283064e-10f)
#define CURAND_2POW32_INV_DOUBLE (2.3283064365386963e-10)
#define CURAND_2POW53_INV_DOUBLE (1.1102230246251565e-16)
#define CURAND_2POW32_INV_2PI (2.3283064e-10f * 6.2831855f)
#define CURAND_PI_DOUBLE (3.1415926535897932)
#define EXTRA_FLAG_NORMAL 0x00000001
#define EXTRA_FLAG_LOG_NORMAL 0x00000002

struct curandStateXORWOW {
    unsigned int d, v[5];
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    int cudasim_padding; /* what the compiler pads with: written, so copying a state reads
                          * nothing uninitialized */
    double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

struct curandStatePhilox4_32_10 {
    uint4 ctr;
    uint4 output;
    uint2 key;
    unsigned int STATE;
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

#define CUDASIM_CURAND static inline

/* The distributions are IEEE arithmetic in the order written, as cuRAND
 * computes them, even in a file built with -fassociative-math (which would
 * regroup stddev * (sin(v) * s)). */
#pragma GCC push_options
#pragma GCC optimize("no-associative-math")

/* ---- XORWOW ------------------------------------------------------------- */

CUDASIM_CURAND void cudasim_xorwow_jump(curandStateXORWOW_t *state, unsigned long long n,
                                        int subsequences)
{
    unsigned int v[5];
    for (int i = 0; i < 5; i++) v[i] = state->v[i];
    cudasim_curand_xorwow_skip(v, n, subsequences);
    for (int i = 0; i < 5; i++) state->v[i] = v[i];
    /* The Weyl counter moves by 362437 a step; 2^67 steps are a multiple of 2^32. */
    if (!subsequences) state->d += 362437u * (unsigned int)n;
}

CUDASIM_CURAND void skipahead(unsigned long long n, curandStateXORWOW_t *state)
{
    cudasim_xorwow_jump(state, n, 0);
}

CUDASIM_CURAND void skipahead_sequence(unsigned long long n, curandStateXORWOW_t *state)
{
    cudasim_xorwow_jump(state, n, 1);
}

CUDASIM_CURAND void curand_init(unsigned long long seed, unsigned long long subsequence,
                                unsigned long long offset, curandStateXORWOW_t *state)
{
    /* The seed's halves, salted and mixed by odd multipliers, fill the state. */
    unsigned int s0 = (unsigned int)seed ^ 0xaad26b49u;
    unsigned int s1 = (unsigned int)(seed >> 32) ^ 0xf7dcefddu;
    unsigned int t0 = 1099087573u * s0, t1 = 2591861531u * s1;
    state->d = 6615241u + t1 + t0;
    state->v[0] = 123456789u + t0;
    state->v[1] = 362436069u ^ t0;
    state->v[2] = 521288629u + t1;
    state->v[3] = 88675123u ^ t1;
    state->v[4] = 5783321u + t0;
    if (subsequence) cudasim_xorwow_jump(state, subsequence, 1);
    if (offset) cudasim_xorwow_jump(state, offset, 0);
    state->boxmuller_flag = 0;
    state->boxmuller_flag_double = 0;
    state->boxmuller_extra = 0.f;
    state->cudasim_padding = 0;
    state->boxmuller_extra_double = 0.;
}

CUDASIM_CURAND unsigned int curand(curandStateXORWOW_t *state)
{
    unsigned int t = state->v[0] ^ (state->v[0] >> 2);
    state->v[0] = state->v[1];
    state->v[1] = state->v[2];
    state->v[2] = state->v[3];
    state->v[3] = state->v[4];
    state->v[4] = (state->v[4] ^ (state->v[4] << 4)) ^ (t ^ (t << 1));
    state->d += 362437u;
    return state->v[4] + state->d;
}

/* ---- Philox4_32_10 ------------------------------------------------------ */

CUDASIM_CURAND uint4 cudasim_philox_round(uint4 c, uint2 k)
{
    unsigned long long p0 = 0xD2511F53ull * c.x, p1 = 0xCD9E8D57ull * c.z;
    return make_uint4((unsigned int)(p1 >> 32) ^ c.y ^ k.x, (unsigned int)p1,
                      (unsigned int)(p0 >> 32) ^ c.w ^ k.y, (unsigned int)p0);
}

/* Ten rounds, the key bumped by the Weyl constants between them. */
CUDASIM_CURAND uint4 curand_Philox4x32_10(uint4 c, uint2 k)
{
    for (int round = 0; round < 9; round++) {
        c = cudasim_philox_round(c, k);
        k.x += 0x9E3779B9u;
        k.y += 0xBB67AE85u;
    }
    return cudasim_philox_round(c, k);
}

/* The 128-bit counter plus n (ctr.x the lowest word). */
CUDASIM_CURAND void cudasim_philox_add(curandStatePhilox4_32_10_t *s, unsigned long long n)
{
    unsigned long long lo = (unsigned long long)s->ctr.x + (unsigned int)n;
    s->ctr.x = (unsigned int)lo;
    unsigned long long hi = (unsigned long long)s->ctr.y + (n >> 32) + (lo >> 32);
    s->ctr.y = (unsigned int)hi;
    if (hi >> 32 && ++s->ctr.z == 0) ++s->ctr.w;
}

CUDASIM_CURAND void skipahead(unsigned long long n, curandStatePhilox4_32_10_t *state)
{
    state->STATE += (unsigned int)(n & 3);
    n /= 4;
    if (state->STATE > 3) {
        n += 1;
        state->STATE -= 4;
    }
    cudasim_philox_add(state, n);
    state->output = curand_Philox4x32_10(state->ctr, state->key);
}

/* A subsequence is 2^66 numbers: the counter's upper 64 bits. */
CUDASIM_CURAND void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t *state)
{
    unsigned long long z = (unsigned long long)state->ctr.z + (unsigned int)n;
    state->ctr.z = (unsigned int)z;
    state->ctr.w += (unsigned int)(n >> 32) + (unsigned int)(z >> 32);
    state->output = curand_Philox4x32_10(state->ctr, state->key);
}

CUDASIM_CURAND void curand_init(unsigned long long seed, unsigned long long subsequence,
                                unsigned long long offset, curandStatePhilox4_32_10_t *state)
{
    state->ctr = make_uint4(0, 0, 0, 0);
    state->key = make_uint2((unsigned int)seed, (unsigned int)(seed >> 32));
    state->STATE = 0;
    state->boxmuller_flag = 0;
    state->boxmuller_flag_double = 0;
    state->boxmuller_extra = 0.f;
    state->boxmuller_extra_double = 0.;
    skipahead_sequence(subsequence, state);
    skipahead(offset, state);
}

CUDASIM_CURAND unsigned int curand(curandStatePhilox4_32_10_t *state)
{
    unsigned int r = state->STATE == 0   ? state->output.x
                     : state->STATE == 1 ? state->output.y
                     : state->STATE == 2 ? state->output.z
                                         : state->output.w;
    if (++state->STATE == 4) {
        cudasim_philox_add(state, 1);
        state->output = curand_Philox4x32_10(state->ctr, state->key);
        state->STATE = 0;
    }
    return r;
}

/* The next four numbers at once. */
CUDASIM_CURAND uint4 curand4(curandStatePhilox4_32_10_t *state)
{
    uint4 now = state->output;
    cudasim_philox_add(state, 1);
    state->output = curand_Philox4x32_10(state->ctr, state->key);
    const uint4 &next = state->output;
    switch (state->STATE) {
    case 1: return make_uint4(now.y, now.z, now.w, next.x);
    case 2: return make_uint4(now.z, now.w, next.x, next.y);
    case 3: return make_uint4(now.w, next.x, next.y, next.z);
    default: return now;
    }
}

/* ---- distributions ------------------------------------------------------ */

/* (0, 1]: the 32 bits scaled, plus half a step. */
CUDASIM_CURAND float _curand_uniform(unsigned int x)
{
    return x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2.0f);
}

CUDASIM_CURAND double _curand_uniform_double_hq(unsigned int x, unsigned int y)
{
    unsigned long long z = (unsigned long long)x ^ ((unsigned long long)y << (53 - 32));
    return z * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
}

/* Box-Muller: two uniforms give two independent normals. */
CUDASIM_CURAND float2 _curand_box_muller(unsigned int x, unsigned int y)
{
    float u = x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2);
    float v = y * CURAND_2POW32_INV_2PI + (CURAND_2POW32_INV_2PI / 2);
    float s = sqrtf(-2.0f * logf(u));
    return make_float2(sinf(v) * s, cosf(v) * s);
}

CUDASIM_CURAND double2 _curand_box_muller_double(unsigned int x0, unsigned int x1,
                                                 unsigned int y0, unsigned int y1)
{
    unsigned long long zx = (unsigned long long)x0 ^ ((unsigned long long)x1 << (53 - 32));
    double u = zx * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
    unsigned long long zy = (unsigned long long)y0 ^ ((unsigned long long)y1 << (53 - 32));
    double v = zy * (CURAND_2POW53_INV_DOUBLE * 2.0) + CURAND_2POW53_INV_DOUBLE;
    double s = sqrt(-2.0 * log(u));
    return make_double2(sin(v * CURAND_PI_DOUBLE) * s, cos(v * CURAND_PI_DOUBLE) * s);
}

/* What XORWOW and Philox share: one normal from a pair, the other kept. */
template <typename S>
CUDASIM_CURAND float cudasim_curand_normal(S *state)
{
    if (state->boxmuller_flag != EXTRA_FLAG_NORMAL) {
        unsigned int x = curand(state), y = curand(state);
        float2 v = _curand_box_muller(x, y);
        state->boxmuller_extra = v.y;
        state->boxmuller_flag = EXTRA_FLAG_NORMAL;
        return v.x;
    }
    state->boxmuller_flag = 0;
    return state->boxmuller_extra;
}

template <typename S>
CUDASIM_CURAND float cudasim_curand_log_normal(S *state, float mean, float stddev)
{
    if (state->boxmuller_flag != EXTRA_FLAG_LOG_NORMAL) {
        unsigned int x = curand(state), y = curand(state);
        float2 v = _curand_box_muller(x, y);
        state->boxmuller_extra = expf(mean + (stddev * v.y));
        state->boxmuller_flag = EXTRA_FLAG_LOG_NORMAL;
        return expf(mean + (stddev * v.x));
    }
    state->boxmuller_flag = 0;
    return state->boxmuller_extra;
}

template <typename S>
CUDASIM_CURAND double cudasim_curand_normal_double(S *state, unsigned int x0, unsigned int x1,
                                                   unsigned int y0, unsigned int y1)
{
    double2 v = _curand_box_muller_double(x0, x1, y0, y1);
    state->boxmuller_extra_double = v.y;
    state->boxmuller_flag_double = EXTRA_FLAG_NORMAL;
    return v.x;
}

CUDASIM_CURAND float curand_uniform(curandStateXORWOW_t *state)
{
    return _curand_uniform(curand(state));
}
CUDASIM_CURAND float curand_uniform(curandStatePhilox4_32_10_t *state)
{
    return _curand_uniform(curand(state));
}
CUDASIM_CURAND float4 curand_uniform4(curandStatePhilox4_32_10_t *state)
{
    uint4 x = curand4(state);
    return make_float4(_curand_uniform(x.x), _curand_uniform(x.y), _curand_uniform(x.z),
                       _curand_uniform(x.w));
}
/* XORWOW's double takes two numbers (53 bits); Philox's one. */
CUDASIM_CURAND double curand_uniform_double(curandStateXORWOW_t *state)
{
    unsigned int x = curand(state);
    unsigned int y = curand(state);
    return _curand_uniform_double_hq(x, y);
}
CUDASIM_CURAND double curand_uniform_double(curandStatePhilox4_32_10_t *state)
{
    return curand(state) * CURAND_2POW32_INV_DOUBLE + CURAND_2POW32_INV_DOUBLE;
}
CUDASIM_CURAND double2 curand_uniform2_double(curandStatePhilox4_32_10_t *state)
{
    uint4 x = curand4(state);
    return make_double2(_curand_uniform_double_hq(x.x, x.y), _curand_uniform_double_hq(x.z, x.w));
}

CUDASIM_CURAND float curand_normal(curandStateXORWOW_t *state)
{
    return cudasim_curand_normal(state);
}
CUDASIM_CURAND float curand_normal(curandStatePhilox4_32_10_t *state)
{
    return cudasim_curand_normal(state);
}
CUDASIM_CURAND float2 curand_normal2(curandStateXORWOW_t *state)
{
    unsigned int x = curand(state), y = curand(state);
    return _curand_box_muller(x, y);
}
CUDASIM_CURAND float2 curand_normal2(curandStatePhilox4_32_10_t *state)
{
    unsigned int x = curand(state), y = curand(state);
    return _curand_box_muller(x, y);
}
CUDASIM_CURAND float4 curand_normal4(curandStatePhilox4_32_10_t *state)
{
    uint4 x = curand4(state);
    float2 a = _curand_box_muller(x.x, x.y), b = _curand_box_muller(x.z, x.w);
    return make_float4(a.x, a.y, b.x, b.y);
}
CUDASIM_CURAND double curand_normal_double(curandStateXORWOW_t *state)
{
    if (state->boxmuller_flag_double == EXTRA_FLAG_NORMAL) {
        state->boxmuller_flag_double = 0;
        return state->boxmuller_extra_double;
    }
    unsigned int x0 = curand(state), x1 = curand(state);
    unsigned int y0 = curand(state), y1 = curand(state);
    return cudasim_curand_normal_double(state, x0, x1, y0, y1);
}
CUDASIM_CURAND double curand_normal_double(curandStatePhilox4_32_10_t *state)
{
    if (state->boxmuller_flag_double == EXTRA_FLAG_NORMAL) {
        state->boxmuller_flag_double = 0;
        return state->boxmuller_extra_double;
    }
    uint4 x = curand4(state);
    return cudasim_curand_normal_double(state, x.x, x.y, x.z, x.w);
}
CUDASIM_CURAND double2 curand_normal2_double(curandStateXORWOW_t *state)
{
    unsigned int x0 = curand(state), x1 = curand(state);
    unsigned int y0 = curand(state), y1 = curand(state);
    return _curand_box_muller_double(x0, x1, y0, y1);
}
CUDASIM_CURAND double2 curand_normal2_double(curandStatePhilox4_32_10_t *state)
{
    uint4 x = curand4(state);
    return _curand_box_muller_double(x.x, x.y, x.z, x.w);
}
CUDASIM_CURAND float curand_log_normal(curandStateXORWOW_t *state, float mean, float stddev)
{
    return cudasim_curand_log_normal(state, mean, stddev);
}
CUDASIM_CURAND float curand_log_normal(curandStatePhilox4_32_10_t *state, float mean,
                                       float stddev)
{
    return cudasim_curand_log_normal(state, mean, stddev);
}

#pragma GCC pop_options
#undef CUDASIM_CURAND

#endif /* CUDASIM_CURAND_KERNEL_H */
