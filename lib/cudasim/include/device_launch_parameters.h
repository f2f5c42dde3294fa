/* device_launch_parameters.h for the CUDA simulator: threadIdx and friends
 * come from cuda_runtime.h (lib/cudasim/kernel.h). */
#include "cuda_runtime.h"
