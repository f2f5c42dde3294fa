/* check_main.c: runs every unit-test suite of lib (make test). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"

int main(int argc, char **argv)
{
    /* Lesson 06's tests start this binary as the ranks of a launch. */
    if (argc > 1 && strcmp(argv[1], "--dist-worker") == 0)
        return dist_worker_main(argc - 2, argv + 2);
    SRunner *sr = srunner_create(err_suite());
    srunner_add_suite(sr, rng_suite());
    srunner_add_suite(sr, tensor_suite());
    srunner_add_suite(sr, data_suite());
    srunner_add_suite(sr, layers_suite());
    srunner_add_suite(sr, loss_suite());
    srunner_add_suite(sr, optim_suite());
    srunner_add_suite(sr, train_suite());
    srunner_add_suite(sr, cpuinfo_suite());
    srunner_add_suite(sr, blas_suite());
    srunner_add_suite(sr, misc_suite());
    srunner_add_suite(sr, callable_suite());
    srunner_add_suite(sr, json_suite());
    srunner_add_suite(sr, safetensors_suite());
    srunner_add_suite(sr, half_suite());
    srunner_add_suite(sr, sched_suite());
    srunner_add_suite(sr, loader_suite());
    srunner_add_suite(sr, trainer_suite());
    srunner_add_suite(sr, hostile_suite());
    srunner_add_suite(sr, fileio_suite());
    srunner_add_suite(sr, dist_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
