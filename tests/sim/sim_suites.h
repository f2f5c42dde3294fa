/* sim_suites.h: the Check suites of the simulator build (make test). */
#ifndef WB_SIM_SUITES_H
#define WB_SIM_SUITES_H

#include <check.h>

Suite *sim_suite(void);
Suite *profile_suite(void); /* check_profile.c: the profiler and the time model */

#endif
