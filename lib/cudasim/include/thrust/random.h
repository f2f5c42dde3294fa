/*
 * <thrust/random.h> on the CUDA simulator: Thrust's linear congruential
 * engines and its two uniform distributions, giving the same sequences as
 * NVIDIA's Thrust. The engine is x <- a*x + c (mod m), seeded with s mod m
 * (1 where that and c mod m are both 0), and returns the new state.
 * uniform_real_distribution maps an engine value u to
 * (u - min) / (max - min + 1) * (b - a) + a, computed in RealType;
 * uniform_int_distribution draws from uniform_real_distribution<double> on
 * [a, b + 1) and truncates, as Thrust does.
 */
#pragma once
#include <cstdint>
#include <limits>
#include "detail/cudasim_thrust.h"

namespace thrust {
namespace random {

template <typename UIntType, UIntType a, UIntType c, UIntType m>
class linear_congruential_engine {
public:
    typedef UIntType result_type;
    static const result_type multiplier = a;
    static const result_type increment = c;
    static const result_type modulus = m;
    static const result_type min = c == 0u ? 1u : 0u;
    static const result_type max = m - 1u;
    static const result_type default_seed = 1u;

    __host__ __device__ explicit linear_congruential_engine(result_type s = default_seed) { seed(s); }
    __host__ __device__ void seed(result_type s = default_seed)
    {
        x_ = (c % m == 0 && s % m == 0) ? 1u % m : s % m;
    }
    __host__ __device__ result_type operator()()
    {
        x_ = (result_type)(((unsigned long long)a * x_ + c) % m);
        return x_;
    }
    __host__ __device__ void discard(unsigned long long z)
    {
        for (; z > 0; z--) (*this)();
    }
    __host__ __device__ bool operator==(const linear_congruential_engine &o) const { return x_ == o.x_; }
    __host__ __device__ bool operator!=(const linear_congruential_engine &o) const { return x_ != o.x_; }

private:
    result_type x_;
};

typedef linear_congruential_engine<std::uint32_t, 16807, 0, 2147483647> minstd_rand0;
typedef linear_congruential_engine<std::uint32_t, 48271, 0, 2147483647> minstd_rand;
typedef minstd_rand default_random_engine;

template <typename RealType = double>
class uniform_real_distribution {
public:
    typedef RealType result_type;
    __host__ __device__ explicit uniform_real_distribution(RealType a = 0, RealType b = 1) : a_(a), b_(b) {}
    __host__ __device__ void reset() {}
    __host__ __device__ RealType a() const { return a_; }
    __host__ __device__ RealType b() const { return b_; }
    __host__ __device__ RealType min() const { return a_; }
    __host__ __device__ RealType max() const { return b_; }
    template <typename G>
    __host__ __device__ RealType operator()(G &g)
    {
        RealType r = static_cast<RealType>(g() - G::min);
        r /= RealType(1) + static_cast<RealType>(G::max - G::min);
        return r * (b_ - a_) + a_;
    }

private:
    RealType a_, b_;
};

template <typename IntType = int>
class uniform_int_distribution {
public:
    typedef IntType result_type;
    __host__ __device__ explicit uniform_int_distribution(IntType a = 0, IntType b = std::numeric_limits<IntType>::max()) : a_(a), b_(b) {}
    __host__ __device__ void reset() {}
    __host__ __device__ IntType a() const { return a_; }
    __host__ __device__ IntType b() const { return b_; }
    __host__ __device__ IntType min() const { return a_; }
    __host__ __device__ IntType max() const { return b_; }
    template <typename G>
    __host__ __device__ IntType operator()(G &g)
    {
        uniform_real_distribution<double> real((double)a_, (double)b_ + 1.0);
        return static_cast<IntType>(real(g));
    }

private:
    IntType a_, b_;
};

} // namespace random

using random::default_random_engine;
using random::minstd_rand;
using random::minstd_rand0;
using random::uniform_int_distribution;
using random::uniform_real_distribution;

} // namespace thrust
