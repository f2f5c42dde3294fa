/* <cub/device/device_scan.cuh> on the CUDA simulator: cub::DeviceScan; see detail/cudasim_cub.h. */
#pragma once
#include "../detail/cudasim_cub_all.h"
