/*
 * Thrust for the CUDA simulator: what every public header of
 * lib/cudasim/include/thrust brings in. The simulator's own Thrust is the
 * part of Thrust 3 that a course uses, written for the simulator so that
 * device_vector's memory is cudaMalloc'd (and so checked) and device
 * algorithms are kernel launches (cudasim_algorithms.h); the translator
 * refuses the headers it does not have, by name.
 */
#ifndef CUDASIM_THRUST_H
#define CUDASIM_THRUST_H

#ifndef CUDASIM_KERNEL_H
#error "Thrust on the CUDA simulator is for .cu files built by make sim-run (kernel.h)"
#endif

#include "cudasim_algorithms.h"
#include "cudasim_iterators.h"
#include "cudasim_memory.h"
#include "../functional.h"

#endif /* CUDASIM_THRUST_H */
