/*
 * Thrust for the CUDA simulator: what every public header of
 * lib/cudasim/include/thrust brings in. The simulator's own Thrust is the
 * part of Thrust 3 that a course uses, written for the simulator so that
 * device_vector's memory is cudaMalloc'd (and so checked) and device
 * algorithms are kernel launches (cudasim_algorithms.h and the files beside
 * it, by concept); the translator refuses the headers it does not have, by
 * name, and the compiler the algorithms of headers it has
 * (cudasim_thrust_missing.h).
 */
#ifndef CUDASIM_THRUST_H
#define CUDASIM_THRUST_H

#ifndef CUDASIM_KERNEL_H
#error "Thrust on the CUDA simulator is for .cu files built by make sim-run (kernel.h)"
#endif

/* (NVIDIA's Thrust brings these in through libcu++: programs use UINT_MAX
 * and uint32_t after including only Thrust) */
#include <climits>
#include <cstdint>

#include "cudasim_algorithms.h"
#include "cudasim_compact.h"
#include "cudasim_fancy_iterators.h"
#include "cudasim_iterators.h"
#include "cudasim_keyed.h"
#include "cudasim_memory.h"
#include "cudasim_permute.h"
#include "cudasim_search.h"
#include "cudasim_thrust_missing.h"
#include "cudasim_tuple.h"
#include "../functional.h"

#undef CUDASIM_THRUST_ALGORITHM

#endif /* CUDASIM_THRUST_H */
