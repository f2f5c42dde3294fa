/* sim_test.h: what the simulator's tests (check_sim*.c) share. */
#ifndef WB_SIM_TEST_H
#define WB_SIM_TEST_H

#include <check.h>
#include <cuda_runtime_api.h>

/* A fresh device, and the simulator's reports kept instead of printed. */
void quiet(void);
/* A cudaMalloc buffer of this many bytes (the test fails without one). */
void *dev(size_t bytes);
/* The last report mentions what (the test fails otherwise). */
void report_has(const char *what);
/* n floats of non-uniform data (malloc'd): a missing barrier or a wrong index changes sums. */
float *ramp(int n);
/* A cudaMalloc copy of h's n floats; n floats of device memory d in a new malloc'd array. */
float *dev_copy(const float *h, int n);
float *host_copy(const float *d, int n);
/* Run a block-sum kernel on non-uniform data; returns how many of the blocks' sums are wrong. */
int wrong_block_sums(cudaError_t (*kernel)(const float *, float *, int), int blocks);

/* Each room's test case, and (_again) those of its tests that run again with mprotect. */
TCase *sim_kernels_tcase(void);
void sim_kernels_again(TCase *tc);
TCase *sim_bugs_tcase(void);
void sim_bugs_again(TCase *tc);
TCase *sim_graphs_tcase(void);
void sim_graphs_again(TCase *tc);
TCase *sim_memory_tcase(void);
TCase *sim_with_mprotect_tcase(void);

#endif
