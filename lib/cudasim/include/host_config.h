/* host_config.h for the CUDA simulator: its declarations are in
 * cuda_runtime_api.h. The toolkit keeps this header for its own use, and nvcc
 * warns when a program includes it; so does the simulator. */
#warning "host_config.h is internal to the CUDA toolkit (nvcc warns too): include cuda_runtime.h"
#include "cuda_runtime_api.h"
