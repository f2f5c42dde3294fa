/* <cub/cub.cuh> on the CUDA simulator: all of the simulator's CUB; see detail/cudasim_cub.h. */
#pragma once
#include "detail/cudasim_cub_all.h"
