/* <cub/util_type.cuh> on the CUDA simulator: KeyValuePair, DoubleBuffer, NullType; see detail/cudasim_cub.h. */
#pragma once
#include "detail/cudasim_cub_all.h"
