/* <cub/warp/warp_scan.cuh> on the CUDA simulator: cub::WarpScan; see detail/cudasim_cub.h. */
#pragma once
#include "../detail/cudasim_cub_all.h"
