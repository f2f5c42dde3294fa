/*
 * thrust/functional.h for the CUDA simulator: Thrust's function objects
 * (plus, minus, multiplies, divides, modulus, negate, square, the
 * comparisons, the logical and bitwise operations, maximum, minimum,
 * project1st, project2nd), each T = void for the transparent form.
 */
#ifndef CUDASIM_THRUST_FUNCTIONAL_H
#define CUDASIM_THRUST_FUNCTIONAL_H

#include <utility>

namespace thrust {

#define CUDASIM_THRUST_BINARY(name, R, expr)                                                      \
    template <typename T = void>                                                                  \
    struct name {                                                                                 \
        typedef T first_argument_type, second_argument_type;                                      \
        typedef R result_type;                                                                    \
        R operator()(const T &a, const T &b) const { return expr; }                               \
    };                                                                                            \
    template <>                                                                                   \
    struct name<void> {                                                                           \
        typedef void is_transparent;                                                              \
        template <typename A, typename B>                                                         \
        auto operator()(A &&a, B &&b) const -> decltype(expr)                                     \
        {                                                                                         \
            return expr;                                                                          \
        }                                                                                         \
    };
#define CUDASIM_THRUST_UNARY(name, R, expr)                                                       \
    template <typename T = void>                                                                  \
    struct name {                                                                                 \
        typedef T argument_type;                                                                  \
        typedef R result_type;                                                                    \
        R operator()(const T &a) const { return expr; }                                           \
    };                                                                                            \
    template <>                                                                                   \
    struct name<void> {                                                                           \
        typedef void is_transparent;                                                              \
        template <typename A>                                                                     \
        auto operator()(A &&a) const -> decltype(expr)                                            \
        {                                                                                         \
            return expr;                                                                          \
        }                                                                                         \
    };

CUDASIM_THRUST_BINARY(plus, T, a + b)
CUDASIM_THRUST_BINARY(minus, T, a - b)
CUDASIM_THRUST_BINARY(multiplies, T, a * b)
CUDASIM_THRUST_BINARY(divides, T, a / b)
CUDASIM_THRUST_BINARY(modulus, T, a % b)
CUDASIM_THRUST_UNARY(negate, T, -a)
CUDASIM_THRUST_UNARY(square, T, a * a)
CUDASIM_THRUST_BINARY(equal_to, bool, a == b)
CUDASIM_THRUST_BINARY(not_equal_to, bool, a != b)
CUDASIM_THRUST_BINARY(greater, bool, a > b)
CUDASIM_THRUST_BINARY(less, bool, a < b)
CUDASIM_THRUST_BINARY(greater_equal, bool, a >= b)
CUDASIM_THRUST_BINARY(less_equal, bool, a <= b)
CUDASIM_THRUST_BINARY(logical_and, bool, a && b)
CUDASIM_THRUST_BINARY(logical_or, bool, a || b)
CUDASIM_THRUST_UNARY(logical_not, bool, !a)
CUDASIM_THRUST_BINARY(bit_and, T, a & b)
CUDASIM_THRUST_BINARY(bit_or, T, a | b)
CUDASIM_THRUST_BINARY(bit_xor, T, a ^ b)
CUDASIM_THRUST_BINARY(maximum, T, a < b ? b : a)
CUDASIM_THRUST_BINARY(minimum, T, b < a ? b : a)
#undef CUDASIM_THRUST_BINARY
#undef CUDASIM_THRUST_UNARY

template <typename T1 = void, typename T2 = void>
struct project1st {
    const T1 &operator()(const T1 &a, const T2 &) const { return a; }
};
template <typename T1 = void, typename T2 = void>
struct project2nd {
    const T2 &operator()(const T1 &, const T2 &b) const { return b; }
};

} // namespace thrust

#endif /* CUDASIM_THRUST_FUNCTIONAL_H */
