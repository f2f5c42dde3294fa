/* <cub/block/block_load.cuh> on the CUDA simulator: cub::BlockLoad and the LoadDirect forms; see detail/cudasim_cub.h. */
#pragma once
#include "../detail/cudasim_cub_all.h"
