/* <thrust/detail/type_traits.h> on the CUDA simulator: Thrust's own type
 * traits are the standard ones here; see detail/cudasim_thrust.h. */
#pragma once
#include <type_traits>
#include "cudasim_thrust.h"
