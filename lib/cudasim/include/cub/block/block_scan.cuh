/* <cub/block/block_scan.cuh> on the CUDA simulator: cub::BlockScan; see detail/cudasim_cub.h. */
#pragma once
#include "../detail/cudasim_cub_all.h"
