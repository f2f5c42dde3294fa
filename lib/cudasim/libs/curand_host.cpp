/*
 * curand_host.cpp: cuRAND's host API for XORWOW and Philox4_32_10, filling
 * simulator memory with the numbers NVIDIA's library gives for the same
 * seed, offset and calls (checked against libcurand's host generator by
 * tests/conformance/curand_reference.sh where the toolkit is installed).
 *
 * How cuRAND lays the numbers out, as measured against its library:
 *  - XORWOW runs 4096 generators, generator t being curand_init(seed, t,
 *    0)'s sequence. Number k of a call comes from generator (start + k) mod
 *    4096, each generator continuing where it stopped; a normal takes a pair
 *    of numbers from one generator, two normals (sine and cosine) per pair,
 *    pair p from generator (start + p) mod 4096; start moves on by the
 *    numbers (or pairs) a call made. An offset o starts at generator o mod
 *    4096, each generator t < o having given ceil((o - t) / 4096) numbers.
 *    A new seed keeps those positions.
 *  - Philox numbers are one sequence: number g is element g mod 4 of the
 *    Philox block of counter (g / 4) / 65536 in subsequence (g / 4) mod 65536;
 *    normal g comes from numbers 2 floor(g / 2) and the one after (sine for
 *    even g, cosine for odd). A call starts where the last one ended, at
 *    the offset after curandSetGeneratorOffset.
 * The arithmetic of the distributions is curand_kernel.h's.
 */
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

/* mean + stddev * z, as libcurand computes it: not regrouped, although the
 * simulator is built with -fassociative-math. */
#pragma GCC optimize("no-associative-math")

#include "../include/curand.h"
#include "../include/curand_kernel.h"
#include "../internal.h"

struct curandGenerator_st {
    curandRngType_t type;
    bool host; /* curandCreateGeneratorHost: results to host memory */
    cudaStream_t stream;
    unsigned long long seed, offset;
    /* XORWOW: the 4096 generators (made when first needed), the numbers
     * each has given, and which gives the next. */
    std::vector<curandStateXORWOW> states;
    std::vector<unsigned long long> given;
    unsigned start;
    bool ready;
    /* Philox: the next number's place in the sequence, and the last block. */
    unsigned long long next;
    unsigned long long block_index;
    uint4 block;
};

namespace {

const unsigned kXorwowGenerators = 4096;
const unsigned long long kPhiloxGenerators = 65536;

curandStatus_t refuse(const char *call, curandStatus_t status, const std::string &what)
{
    cudasim_report((std::string(call) + ": " + what).c_str());
    return status;
}

const char *type_name(curandRngType_t t)
{
    switch (t) {
    case CURAND_RNG_TEST: return "CURAND_RNG_TEST";
    case CURAND_RNG_PSEUDO_DEFAULT: return "CURAND_RNG_PSEUDO_DEFAULT";
    case CURAND_RNG_PSEUDO_XORWOW: return "CURAND_RNG_PSEUDO_XORWOW";
    case CURAND_RNG_PSEUDO_MRG32K3A: return "CURAND_RNG_PSEUDO_MRG32K3A";
    case CURAND_RNG_PSEUDO_MTGP32: return "CURAND_RNG_PSEUDO_MTGP32";
    case CURAND_RNG_PSEUDO_MT19937: return "CURAND_RNG_PSEUDO_MT19937";
    case CURAND_RNG_PSEUDO_PHILOX4_32_10: return "CURAND_RNG_PSEUDO_PHILOX4_32_10";
    case CURAND_RNG_QUASI_DEFAULT: return "CURAND_RNG_QUASI_DEFAULT";
    case CURAND_RNG_QUASI_SOBOL32: return "CURAND_RNG_QUASI_SOBOL32";
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32: return "CURAND_RNG_QUASI_SCRAMBLED_SOBOL32";
    case CURAND_RNG_QUASI_SOBOL64: return "CURAND_RNG_QUASI_SOBOL64";
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64: return "CURAND_RNG_QUASI_SCRAMBLED_SOBOL64";
    }
    return "an unknown generator type";
}

curandStatus_t create(const char *call, curandGenerator_t *generator, curandRngType_t type,
                      bool host)
{
    if (!generator) return refuse(call, CURAND_STATUS_OUT_OF_RANGE, "generator is NULL");
    if (type == CURAND_RNG_PSEUDO_DEFAULT) type = CURAND_RNG_PSEUDO_XORWOW;
    if (type != CURAND_RNG_PSEUDO_XORWOW && type != CURAND_RNG_PSEUDO_PHILOX4_32_10)
        return refuse(call, CURAND_STATUS_TYPE_ERROR,
                      std::string(type_name(type)) +
                          " is not in the CUDA simulator's cuRAND, which has "
                          "CURAND_RNG_PSEUDO_XORWOW (the default) and "
                          "CURAND_RNG_PSEUDO_PHILOX4_32_10");
    int devices = 0;
    if (!host && (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0))
        return CURAND_STATUS_INITIALIZATION_FAILED;
    curandGenerator_t g = new curandGenerator_st();
    g->type = type;
    g->host = host;
    g->stream = nullptr;
    g->seed = g->offset = 0;
    g->start = 0;
    g->ready = false;
    g->next = 0;
    g->block_index = ~0ull;
    g->given.assign(kXorwowGenerators, 0);
    *generator = g;
    return CURAND_STATUS_SUCCESS;
}

/* ---- XORWOW ---- */

/* The generators, made from the seed at the positions they have reached. */
void xorwow_ready(curandGenerator_t g)
{
    if (g->ready) return;
    g->states.resize(kXorwowGenerators);
    for (unsigned t = 0; t < kXorwowGenerators; t++)
        curand_init(g->seed, t, g->given[t], &g->states[t]);
    g->ready = true;
}

/* The generator that gives a call's k-th number (or pair). */
curandStateXORWOW &xorwow_for(curandGenerator_t g, unsigned long long k, unsigned count)
{
    unsigned t = (unsigned)((g->start + k) % kXorwowGenerators);
    g->given[t] += count;
    return g->states[t];
}

/* ---- Philox ---- */

unsigned int philox_number(curandGenerator_t g, unsigned long long n)
{
    unsigned long long block = n / 4;
    if (block != g->block_index) {
        unsigned long long sub = block % kPhiloxGenerators, ctr = block / kPhiloxGenerators;
        g->block = curand_Philox4x32_10(
            make_uint4((unsigned)ctr, (unsigned)(ctr >> 32), (unsigned)sub, (unsigned)(sub >> 32)),
            make_uint2((unsigned)g->seed, (unsigned)(g->seed >> 32)));
        g->block_index = block;
    }
    switch (n % 4) {
    case 0: return g->block.x;
    case 1: return g->block.y;
    case 2: return g->block.z;
    default: return g->block.w;
    }
}

/* ---- generation ---- */

enum Kind { BITS, UNIFORM, NORMAL, LOG_NORMAL };

float from_pair(Kind kind, unsigned x, unsigned y, bool second, float mean, float stddev)
{
    float2 z = _curand_box_muller(x, y);
    float v = mean + stddev * (second ? z.y : z.x);
    return kind == LOG_NORMAL ? expf(v) : v;
}

void fill(curandGenerator_t g, Kind kind, void *out, size_t n, float mean, float stddev)
{
    unsigned *bits = static_cast<unsigned *>(out);
    float *f = static_cast<float *>(out);
    if (g->type == CURAND_RNG_PSEUDO_PHILOX4_32_10) {
        for (size_t k = 0; k < n; k++) {
            unsigned long long at = g->next + k;
            if (kind == BITS) bits[k] = philox_number(g, at);
            else if (kind == UNIFORM) f[k] = _curand_uniform(philox_number(g, at));
            else {
                unsigned long long pair = at & ~1ull;
                unsigned x = philox_number(g, pair), y = philox_number(g, pair + 1);
                f[k] = from_pair(kind, x, y, at & 1, mean, stddev);
            }
        }
        g->next += n;
        return;
    }
    xorwow_ready(g);
    if (kind == BITS || kind == UNIFORM) {
        for (size_t k = 0; k < n; k++) {
            unsigned x = curand(&xorwow_for(g, k, 1));
            if (kind == BITS) bits[k] = x;
            else f[k] = _curand_uniform(x);
        }
        g->start = (unsigned)((g->start + n) % kXorwowGenerators);
        return;
    }
    for (size_t p = 0; p < n / 2; p++) {
        curandStateXORWOW &s = xorwow_for(g, p, 2);
        unsigned x = curand(&s), y = curand(&s);
        f[2 * p] = from_pair(kind, x, y, false, mean, stddev);
        f[2 * p + 1] = from_pair(kind, x, y, true, mean, stddev);
    }
    g->start = (unsigned)((g->start + n / 2) % kXorwowGenerators);
}

/* Move the generator on as fill would, without making the numbers. */
void skip(curandGenerator_t g, Kind kind, size_t n)
{
    if (g->type == CURAND_RNG_PSEUDO_PHILOX4_32_10) {
        g->next += n;
        return;
    }
    size_t calls = kind >= NORMAL ? n / 2 : n; /* numbers, or pairs */
    for (size_t k = 0; k < calls; k++)
        g->given[(g->start + k) % kXorwowGenerators] += kind >= NORMAL ? 2 : 1;
    g->start = (unsigned)((g->start + calls) % kXorwowGenerators);
    g->ready = false; /* the generators are made again where they now are */
}

curandStatus_t generate(const char *call, curandGenerator_t g, Kind kind, void *out, size_t n,
                        float mean, float stddev)
{
    if (!g) return CURAND_STATUS_NOT_INITIALIZED;
    if (n == 0) return CURAND_STATUS_SUCCESS;
    if (kind >= NORMAL && g->type == CURAND_RNG_PSEUDO_XORWOW && n % 2)
        return refuse(call, CURAND_STATUS_LENGTH_NOT_MULTIPLE,
                      "XORWOW makes normals in pairs: n must be even (cuRAND reports: "
                      "CURAND_STATUS_LENGTH_NOT_MULTIPLE)");
    size_t bytes = n * 4;
    char what[256];
    if (!g->host && !cudasim_is_device_range(out, bytes)) {
        snprintf(what, sizeof what,
                 "outputPtr (%p) is not a device buffer of the %zu bytes that %zu numbers need "
                 "(cuRAND reports: CURAND_STATUS_LAUNCH_FAILURE)",
                 out, bytes, n);
        return refuse(call, CURAND_STATUS_LAUNCH_FAILURE, what);
    }
    if (g->host && (!out || cudasim_is_device_range(out, 1))) {
        snprintf(what, sizeof what,
                 "outputPtr (%p) is not host memory, but the generator was made by "
                 "curandCreateGeneratorHost (use curandCreateGenerator for device memory)",
                 out);
        return refuse(call, CURAND_STATUS_LAUNCH_FAILURE, what);
    }
    if (g->host) {
        fill(g, kind, out, n, mean, stddev);
        return CURAND_STATUS_SUCCESS;
    }
    /* A stream capture records the numbers of this moment: the graph gives
     * the same ones at every launch (as cuRAND's recorded kernels do), and the
     * generator moves on now. */
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    std::shared_ptr<const curandGenerator_st> recorded;
    if (cudaStreamIsCapturing(g->stream, &capture) == cudaSuccess &&
        capture == cudaStreamCaptureStatusActive) {
        recorded = std::make_shared<const curandGenerator_st>(*g);
        skip(g, kind, n);
    }
    cudaError_t e = cudasim::issue_work(call, g->stream, [=] {
        if (!cudasim_is_device_range(out, bytes)) {
            cudasim_report((std::string(call) + ": outputPtr is no longer a device buffer of " +
                            std::to_string(bytes) + " bytes (freed?)")
                               .c_str());
            return cudaErrorInvalidValue;
        }
        cudasim::device_operand(out);
        cudasim::device_written(out, bytes);
        if (recorded) {
            curandGenerator_st copy = *recorded;
            fill(&copy, kind, out, n, mean, stddev);
        } else {
            fill(g, kind, out, n, mean, stddev);
        }
        return cudaSuccess;
    });
    return e == cudaSuccess ? CURAND_STATUS_SUCCESS : CURAND_STATUS_LAUNCH_FAILURE;
}

} // namespace

extern "C" {

curandStatus_t curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type)
{
    return create("curandCreateGenerator", generator, rng_type, false);
}

curandStatus_t curandCreateGeneratorHost(curandGenerator_t *generator, curandRngType_t rng_type)
{
    return create("curandCreateGeneratorHost", generator, rng_type, true);
}

curandStatus_t curandDestroyGenerator(curandGenerator_t generator)
{
    if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
    delete generator;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGetVersion(int *version)
{
    if (!version) return CURAND_STATUS_OUT_OF_RANGE;
    *version = CURAND_VERSION;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream)
{
    if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
    generator->stream = stream;
    return CURAND_STATUS_SUCCESS;
}

/* A new seed: each of XORWOW's generators stays where it was. */
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator,
                                                  unsigned long long seed)
{
    if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
    generator->seed = seed;
    generator->ready = false;
    generator->block_index = ~0ull;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset)
{
    if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
    generator->offset = offset;
    generator->next = offset;
    generator->start = (unsigned)(offset % kXorwowGenerators);
    for (unsigned t = 0; t < kXorwowGenerators; t++)
        generator->given[t] = offset > t ? (offset - t + kXorwowGenerators - 1) / kXorwowGenerators : 0;
    generator->ready = false;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order)
{
    if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
    if (order == CURAND_ORDERING_PSEUDO_BEST || order == CURAND_ORDERING_PSEUDO_DEFAULT ||
        order == CURAND_ORDERING_PSEUDO_LEGACY)
        return CURAND_STATUS_SUCCESS;
    if (order == CURAND_ORDERING_PSEUDO_SEEDED && generator->type == CURAND_RNG_PSEUDO_XORWOW)
        return refuse("curandSetGeneratorOrdering", CURAND_STATUS_OUT_OF_RANGE,
                      "CURAND_ORDERING_PSEUDO_SEEDED is not in the CUDA simulator's cuRAND "
                      "(it has the default ordering, which is also CURAND_ORDERING_PSEUDO_BEST "
                      "and _LEGACY)");
    return CURAND_STATUS_OUT_OF_RANGE;
}

curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int *outputPtr, size_t num)
{
    return generate("curandGenerate", generator, BITS, outputPtr, num, 0, 1);
}

curandStatus_t curandGenerateUniform(curandGenerator_t generator, float *outputPtr, size_t num)
{
    return generate("curandGenerateUniform", generator, UNIFORM, outputPtr, num, 0, 1);
}

curandStatus_t curandGenerateNormal(curandGenerator_t generator, float *outputPtr, size_t n,
                                    float mean, float stddev)
{
    return generate("curandGenerateNormal", generator, NORMAL, outputPtr, n, mean, stddev);
}

curandStatus_t curandGenerateLogNormal(curandGenerator_t generator, float *outputPtr, size_t n,
                                       float mean, float stddev)
{
    return generate("curandGenerateLogNormal", generator, LOG_NORMAL, outputPtr, n, mean, stddev);
}

} // extern "C"
