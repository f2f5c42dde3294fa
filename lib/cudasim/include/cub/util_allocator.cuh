/* <cub/util_allocator.cuh> on the CUDA simulator: cub::CachingDeviceAllocator; see detail/cudasim_cub.h. */
#pragma once
#include "detail/cudasim_cub_all.h"
