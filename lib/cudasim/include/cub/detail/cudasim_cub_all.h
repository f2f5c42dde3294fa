/* CUB for the CUDA simulator: every public header of lib/cudasim/include/cub
 * brings in all of it (see cudasim_cub.h). */
#ifndef CUDASIM_CUB_ALL_H
#define CUDASIM_CUB_ALL_H
#include "cudasim_cub.h"
#include "cudasim_warp.h"
#include "cudasim_block.h"
#include "cudasim_block_io.h"
#include "cudasim_device.h"
#include "cudasim_radix_sort.h"
#include "cudasim_allocator.h"
#include "cudasim_cub_missing.h"
#endif /* CUDASIM_CUB_ALL_H */
