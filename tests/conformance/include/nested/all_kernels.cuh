// The kernels of headers_nested.cu, by their headers: no CUDA of its own, as
// SGEMM_CUDA's src/kernels.cuh.
#pragma once
#include "kernels/scale.cuh"
#include "kernels/block_sum.cuh"
#include "kernels/pool.cuh"
#include "launch.h"
