/* <cub/block/block_store.cuh> on the CUDA simulator: cub::BlockStore and the StoreDirect forms; see detail/cudasim_cub.h. */
#pragma once
#include "../detail/cudasim_cub_all.h"
