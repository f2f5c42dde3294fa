/* check_sim_main.c: runs the simulator's suites and the kernels' suites on
 * the CUDA simulator (make test). */
#include <check.h>
#include <stdlib.h>

#include "tests/kernels/kernel_suites.h"
#include "tests/sim/sim_suites.h"

int main(void)
{
    SRunner *sr = srunner_create(sim_suite());
    srunner_add_suite(sr, kernels_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
