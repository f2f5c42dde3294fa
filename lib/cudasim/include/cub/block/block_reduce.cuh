/* <cub/block/block_reduce.cuh> on the CUDA simulator: cub::BlockReduce; see detail/cudasim_cub.h. */
#pragma once
#include "../detail/cudasim_cub_all.h"
