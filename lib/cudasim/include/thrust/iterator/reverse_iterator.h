/* <thrust/iterator/reverse_iterator.h> on the CUDA simulator: see detail/cudasim_thrust.h. */
#pragma once
#include "../detail/cudasim_thrust.h"
