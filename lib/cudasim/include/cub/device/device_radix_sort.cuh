/* <cub/device/device_radix_sort.cuh> on the CUDA simulator: cub::DeviceRadixSort; see detail/cudasim_cub.h. */
#pragma once
#include "../detail/cudasim_cub_all.h"
