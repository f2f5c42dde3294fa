/* suites.h: one Check suite per lib module. */
#ifndef WB_TEST_SUITES_H
#define WB_TEST_SUITES_H

#include <check.h>

Suite *err_suite(void);
Suite *rng_suite(void);
Suite *tensor_suite(void);
Suite *data_suite(void);
Suite *layers_suite(void);
Suite *loss_suite(void);
Suite *optim_suite(void);
Suite *train_suite(void);
Suite *cpuinfo_suite(void);
Suite *blas_suite(void);
Suite *misc_suite(void);
Suite *callable_suite(void);
Suite *json_suite(void);
Suite *safetensors_suite(void);
Suite *half_suite(void);
Suite *sched_suite(void);
Suite *loader_suite(void);
Suite *trainer_suite(void);
Suite *hostile_suite(void);
Suite *fileio_suite(void);
Suite *dist_suite(void);

/* check_dist.c: this binary started by mpirun as one rank of a launch (--dist-worker). */
int dist_worker_main(int argc, char **argv);

#endif
