/* <cub/device/device_reduce.cuh> on the CUDA simulator: cub::DeviceReduce; see detail/cudasim_cub.h. */
#pragma once
#include "../detail/cudasim_cub_all.h"
