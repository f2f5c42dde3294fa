/* gpu_suites.h: lib on a CUDA device (tests/gpu/check_gpu.c). */
#ifndef WB_GPU_SUITES_H
#define WB_GPU_SUITES_H

#include <check.h>

Suite *gpu_suite(void);

#endif
