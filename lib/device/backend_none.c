/* backend_none.c: a build without CUDA (nvcc was not found) has no CUDA table;
 * the device layer says so where a CUDA device would be made (device.c). */
#include "lib/device/backend.h"

const BackendOps *backend_cuda(void) { return NULL; }
