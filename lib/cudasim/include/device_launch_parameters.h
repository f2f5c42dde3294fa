/* device_launch_parameters.h for the CUDA simulator: threadIdx and friends
 * come from cuda_runtime.h (lib/cudasim/exec/kernel.h). */
#ifndef __DEVICE_LAUNCH_PARAMETERS_H__
#define __DEVICE_LAUNCH_PARAMETERS_H__
#include "cuda_runtime.h"
#endif
