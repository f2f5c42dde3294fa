/* <cub/block/block_exchange.cuh> on the CUDA simulator: cub::BlockExchange; see detail/cudasim_cub.h. */
#pragma once
#include "../detail/cudasim_cub_all.h"
