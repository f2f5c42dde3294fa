/* <cub/util_debug.cuh> on the CUDA simulator: CubDebug and CubDebugExit; see detail/cudasim_cub.h. */
#pragma once
#include "detail/cudasim_cub_all.h"
