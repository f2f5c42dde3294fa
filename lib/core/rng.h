/**
 * @file rng.h
 * @brief A seeded random number generator that gives the same numbers everywhere.
 *
 * PCG32 (O'Neill's pcg32_random_r, the XSH-RR output on a 64-bit LCG): only
 * integer arithmetic, so a seed gives the same stream on every machine and
 * compiler. Floats are built from the top 24 bits, which makes them exact in
 * f32 and identical everywhere too. The state is plain data: copying an ::Rng
 * copies the stream, which is what a checkpoint needs.
 */
#ifndef WB_RNG_H
#define WB_RNG_H

#include <stddef.h>
#include <stdint.h>

/** PCG32 state: the LCG state and its (odd) increment, which selects the stream. */
typedef struct Rng {
    uint64_t state; /**< current LCG state */
    uint64_t inc;   /**< stream selector, always odd */
} Rng;

/**
 * @brief Seed a generator (pcg32_srandom_r).
 *
 * @p seed picks the starting point and @p stream one of 2^63 independent
 * sequences. The same pair always yields the same numbers.
 */
void rng_seed(Rng *rng, uint64_t seed, uint64_t stream);

/** @brief The next 32 random bits. */
uint32_t rng_u32(Rng *rng);

/**
 * @brief A uniform integer in [0, bound), without modulo bias.
 *
 * Uses PCG's rejection rule, so every value is equally likely. @p bound must be
 * at least 1.
 */
uint32_t rng_below(Rng *rng, uint32_t bound);

/** @brief A uniform float in [0, 1) with 24 random bits (exact in f32). */
float rng_uniform(Rng *rng);

/** @brief A uniform float in [lo, hi). */
float rng_uniform_range(Rng *rng, float lo, float hi);

/**
 * @brief A standard normal float (Box-Muller, one value per call).
 *
 * Draws two uniforms per call and returns one normal; slower than caching the
 * second value but keeps the state a plain pair of integers.
 */
float rng_normal(Rng *rng);

/** @brief Shuffle @p n int32 values in place (Fisher-Yates with rng_below()). */
void rng_shuffle_i32(Rng *rng, int32_t *v, size_t n);

#endif /* WB_RNG_H */
