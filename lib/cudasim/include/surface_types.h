/* surface_types.h for the CUDA simulator: surface objects' types are in
 * cudasim_texture.h, which cuda_runtime_api.h includes (and which defines the
 * macro programs test for this header). */
#include "cuda_runtime_api.h"
