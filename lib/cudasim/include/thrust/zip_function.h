/* <thrust/zip_function.h> on the CUDA simulator: see detail/cudasim_thrust.h. */
#pragma once
#include "detail/cudasim_thrust.h"
