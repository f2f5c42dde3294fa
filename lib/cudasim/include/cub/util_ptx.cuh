/* <cub/util_ptx.cuh> on the CUDA simulator: LaneId, WarpId; see detail/cudasim_cub.h. */
#pragma once
#include "detail/cudasim_cub_all.h"
