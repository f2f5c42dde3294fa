/* <cub/warp/warp_reduce.cuh> on the CUDA simulator: cub::WarpReduce; see detail/cudasim_cub.h. */
#pragma once
#include "../detail/cudasim_cub_all.h"
