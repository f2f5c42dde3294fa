/* kernel_suites.h: the Check suite of the CUDA kernels in kernels/.
 *
 * The suite needs a CUDA device, real or simulated (lib/cudasim); without one
 * its tests fail (they never pass silently), so only run it where one exists. */
#ifndef WB_KERNEL_SUITES_H
#define WB_KERNEL_SUITES_H

#include <check.h>

/** @brief Every kernel of kernels/ against a CPU reference written in the test. */
Suite *kernels_suite(void);

/** @brief k_mlp_train_fused against lib's CPU training and a double-precision one. */
Suite *fused_suite(void);

/** @brief kernels/half.cu and cublasGemmEx against lib/core/half.c, bit for bit. */
Suite *half_kernels_suite(void);

/** @brief kernels/optim.cu, and lib's optimizers and clipping on a device against the CPU. */
Suite *optim_kernels_suite(void);

#endif
