/* vector_functions.h for the CUDA simulator: what the toolkit's vector_functions.h declares is in
 * cuda_runtime.h, and in a .cu file in kernel.h (the device side of CUDA). */
#include "cuda_runtime.h"
