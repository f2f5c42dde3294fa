/* <cub/version.cuh> on the CUDA simulator: CUB_VERSION; see detail/cudasim_cub.h. */
#pragma once
#include "detail/cudasim_cub_all.h"
