/*
 * cudasim_std.h: libcu++'s cuda::std, for the headers of <cuda/std/...> that
 * C++17 has (type_traits, utility, functional, limits, array, tuple,
 * optional, complex, cmath and the rest in cuda/std/). On a GPU they are
 * libcu++'s own, usable in device code; here device code is host code, so
 * each is the C++ library's: cuda::std names what std names (a using-directive,
 * which qualified lookup follows). What cuda::std declares itself (atomic,
 * atomic_ref, the memory orders: <cuda/std/atomic>) stays its own. Not here:
 * what C++17 lacks (span, mdspan, bit_cast, concepts, expected, ranges), which
 * the translator refuses in one line.
 */
#ifndef CUDASIM_STD_H
#define CUDASIM_STD_H

namespace std {}
namespace cuda {
namespace std {
using namespace ::std;
} // namespace std
} // namespace cuda

#endif /* CUDASIM_STD_H */
