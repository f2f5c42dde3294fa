/* <cub/config.cuh> on the CUDA simulator: CUB's configuration; see detail/cudasim_cub.h. */
#pragma once
#include "detail/cudasim_cub_all.h"
