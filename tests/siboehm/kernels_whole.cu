// siboehm's SGEMM kernels, all twelve, through SGEMM_CUDA's own src/kernels.cuh (make
// sim-run INCLUDE=path/to/SGEMM_CUDA/src; tests/siboehm_sgemm.sh runs it).
#include "kernels.cuh"
#define SGEMM_LAST 12
#include "sgemm_check.h"
