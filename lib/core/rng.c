/* rng.c: PCG32 as published by M. O'Neill (pcg-random.org), XSH-RR variant. */
#include "lib/core/rng.h"

#include <math.h>

void rng_seed(Rng *rng, uint64_t seed, uint64_t stream)
{
    rng->state = 0u;
    rng->inc = (stream << 1u) | 1u;
    rng_u32(rng);
    rng->state += seed;
    rng_u32(rng);
}

uint32_t rng_u32(Rng *rng)
{
    uint64_t old = rng->state;
    rng->state = old * 6364136223846793005ULL + rng->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

uint32_t rng_below(Rng *rng, uint32_t bound)
{
    if (bound <= 1u) return 0u;
    /* Reject the low values that would make some results more likely. */
    uint32_t threshold = (uint32_t)(-bound) % bound;
    for (;;) {
        uint32_t r = rng_u32(rng);
        if (r >= threshold) return r % bound;
    }
}

float rng_uniform(Rng *rng)
{
    return (float)(rng_u32(rng) >> 8) * (1.0f / 16777216.0f);
}

float rng_uniform_range(Rng *rng, float lo, float hi)
{
    return lo + (hi - lo) * rng_uniform(rng);
}

float rng_normal(Rng *rng)
{
    /* u1 in (0, 1] so that log(u1) is finite. */
    double u1 = ((double)(rng_u32(rng) >> 8) + 1.0) / 16777216.0;
    double u2 = (double)(rng_u32(rng) >> 8) / 16777216.0;
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

void rng_shuffle_i32(Rng *rng, int32_t *v, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = rng_below(rng, (uint32_t)i);
        int32_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}
