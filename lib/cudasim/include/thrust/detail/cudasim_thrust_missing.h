/*
 * Thrust for the CUDA simulator: the algorithms of Thrust 3 that the
 * simulator does not have, in headers it has: a program that calls one
 * fails to compile with one error naming it (a static_assert in a function
 * of that name, which fires only when it is called). A header the simulator does not have is refused
 * by the translator instead (translate/cu2sim.pl).
 */
#ifndef CUDASIM_THRUST_MISSING_H
#define CUDASIM_THRUST_MISSING_H

#define CUDASIM_THRUST_MISSING(name)                                                              \
    template <typename... A>                                                                      \
    void name(A &&...)                                                                            \
    {                                                                                             \
        static_assert(cudasim_detail::never<A...>::value,                                         \
                      "thrust::" #name " is not in the CUDA simulator's Thrust (docs/simulator.md, " \
                      "Thrust, lists what is)");                                                  \
    }

namespace thrust {
namespace cudasim_detail {
/* false, but only once the arguments are known: the assertion fires at a call */
template <typename... A>
struct never {
    static const bool value = false;
};
} // namespace cudasim_detail
CUDASIM_THRUST_MISSING(set_union_by_key)
CUDASIM_THRUST_MISSING(set_intersection_by_key)
CUDASIM_THRUST_MISSING(set_difference_by_key)
CUDASIM_THRUST_MISSING(set_symmetric_difference_by_key)
CUDASIM_THRUST_MISSING(shuffle)
CUDASIM_THRUST_MISSING(shuffle_copy)
} // namespace thrust

#undef CUDASIM_THRUST_MISSING

#endif /* CUDASIM_THRUST_MISSING_H */
