/*
 * kernel_run.h: what the RUN halves of the kernel exercises share (02.4, 03.4):
 * a device to run on, with the simulator's reports kept quiet (the runner
 * records them instead), and the launches counted so far.
 */
#ifndef WB_GRADED_KERNEL_RUN_H
#define WB_GRADED_KERNEL_RUN_H

#include <check.h>

#include <cuda_runtime_api.h>
#ifdef CUDASIM
#include "lib/cudasim/cudasim.h"
#endif

/* A CUDA device (real or simulated) must be there; the simulator's reports go to
 * its last report only. */
static inline void quiet_device(void)
{
    int n = 0;
    ck_assert_msg(cudaGetDeviceCount(&n) == cudaSuccess && n > 0,
                  "no CUDA device (real or simulated) to run the kernel on");
#ifdef CUDASIM
    cudasim_set_report_stream(NULL);
#endif
}

/* Kernels launched so far on the simulator; -1 on a GPU, which does not count them
 * (the cases then check the values only). */
static inline long long launches(void)
{
#ifdef CUDASIM
    return (long long)cudasim_launch_count();
#else
    return -1;
#endif
}

#endif
