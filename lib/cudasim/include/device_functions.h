/* device_functions.h for the CUDA simulator: its declarations are in
 * cuda_runtime.h. The toolkit keeps this header for its own use, and nvcc
 * warns when a program includes it; so does the simulator. */
#warning "device_functions.h is internal to the CUDA toolkit (nvcc warns too): include cuda_runtime.h"
#include "cuda_runtime.h"
