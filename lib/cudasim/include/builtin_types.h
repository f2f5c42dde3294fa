/* builtin_types.h for the CUDA simulator: what the toolkit's builtin_types.h declares is in
 * cuda_runtime_api.h, which defines the macro programs test for it too. */
#include "cuda_runtime_api.h"
