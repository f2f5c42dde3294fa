/*
 * Thrust for the CUDA simulator: thrust::pair and thrust::tuple, which in
 * Thrust 3 are libcu++'s cuda::std::pair and cuda::std::tuple; here the
 * standard library's, with make_pair, make_tuple, tie, get, tuple_size and
 * tuple_element.
 */
#ifndef CUDASIM_THRUST_TUPLE_H
#define CUDASIM_THRUST_TUPLE_H

#include <tuple>
#include <utility>

namespace thrust {
using std::get;
using std::make_pair;
using std::make_tuple;
using std::pair;
using std::tie;
using std::tuple;
using std::tuple_element;
using std::tuple_size;
} // namespace thrust

#endif /* CUDASIM_THRUST_TUPLE_H */
