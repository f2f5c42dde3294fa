/* sm_20_atomic_functions.h for the CUDA simulator: what the toolkit's sm_20_atomic_functions.h declares is in
 * cuda_runtime.h, and in a .cu file in kernel.h (the device side of CUDA). */
#include "cuda_runtime.h"
