/* cuda_runtime.h for the CUDA simulator: the runtime API, plus (in C++) the
 * kernel-side language support when a translated .cu file is compiled. */
#ifndef CUDASIM_CUDA_RUNTIME_H
#define CUDASIM_CUDA_RUNTIME_H
#include "cuda_runtime_api.h"
#if defined(__cplusplus) && defined(CUDASIM_KERNEL_SOURCE)
#include "../kernel.h"
#endif
#endif
