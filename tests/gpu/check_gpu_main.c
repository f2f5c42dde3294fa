/* check_gpu_main.c: the kernels and lib's GPU paths, on the CUDA simulator
 * (sim_tests, with the simulator's own tests) or on a real GPU (gpu_tests). */
#include <check.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "tests/gpu/gpu_suites.h"
#include "tests/kernels/kernel_suites.h"
#ifdef CUDASIM
#include "tests/sim/sim_suites.h"
#endif

int main(void)
{
    SRunner *sr = srunner_create(kernels_suite());
    srunner_add_suite(sr, fused_suite());
    srunner_add_suite(sr, half_kernels_suite());
    srunner_add_suite(sr, optim_kernels_suite());
    srunner_add_suite(sr, gpu_suite());
#ifdef CUDASIM
    srunner_add_suite(sr, sim_suite());
    srunner_add_suite(sr, profile_suite());
#endif
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
