/*
 * suite.c: the graded suite of Lesson 02 (lessons/02_device_transfer/
 * exercises.c and exercises.cu).
 *
 * 02.1 to 02.3 are plain C and are checked against cases worked out from
 * CUDA's and PyTorch's documented behaviour (the expected messages are the
 * ones lib/device/device.h and lib/device/tensor.h promise). 02.4 is a kernel: it runs on
 * the GPU when there is one, else on the CUDA simulator, which also reports a
 * write past the end of a buffer with the block and the thread, and kills
 * host code that touches device memory, as a GPU would; it is checked against
 * ReLU worked out here on sizes that need a partial last block and many
 * blocks, in place, on a stream that is being captured into a CUDA graph (so
 * the work must be a launch on the stream it is given), and with bad
 * arguments. The whole-lesson check trains Iris on the device from inputs drawn
 * for the grading run and compares with the judge's own training of the same
 * network in double (drawn_whole.h, oracle_mlp.h).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h. The
 * inputs are in tables and formulas both halves share; what they should give
 * is only in the JUDGE halves.
 *
 * This file is the suite's table, in the order make grade shows the cases. Each
 * exercise's cases are in a file of their own (ex02_1_device_parse.c,
 * ex02_2_copy_kind.c, ex02_3_same_device.c, ex02_4_relu_kernel.c), the whole lesson's
 * in whole_lesson.c; what the files share is in suite.h.
 */
#include "suite.h"

#define CU_FILE "lessons/02_device_transfer/exercises.cu"

/* name, exercise, function, what it checks, points, timeout (s), reference?, file */
#define CASES(X)                                                                                   \
    X(parse_strings, "02.1", "device_parse", "\"cpu\", \"cuda\", \"cuda:N\"", 4, 5, 0, NULL)      \
    X(parse_visible_devices, "02.1", "device_parse",                                               \
      "physical GPUs through CUDA_VISIBLE_DEVICES", 4, 5, 0, NULL)                                 \
    X(parse_visible_entries, "02.1", "device_parse",                                               \
      "CUDA_VISIBLE_DEVICES entries of several digits, and not numbers (-1)", 3, 5, 0, NULL)       \
    X(parse_errors, "02.1", "device_parse", "malformed and missing devices, exact messages", 5, 5, \
      0, NULL)                                                                                     \
    X(parse_edges, "02.1", "device_parse",                                                         \
      "\"\", \"cuda:+1\", spaces; 1 device or none: exact messages", 3, 5, 0, NULL)                \
    X(copy_kinds, "02.2", "copy_kind", "all five directions", 5, 5, 0, NULL)                       \
    X(same_device_rule, "02.3", "tensor_same_device", "same devices pass, PyTorch's message", 6,   \
      5, 0, NULL)                                                                                  \
    X(relu_kernel_small, "02.4", "k_relu_forward", "1 and 100 values against ReLU", 4, 10, 0,      \
      CU_FILE)                                                                                     \
    X(relu_kernel_blocks, "02.4", "k_relu_forward",                                                \
      "257 and 70001 values: a partial last block, many blocks", 5, 20, 0, CU_FILE)                \
    X(relu_kernel_in_place, "02.4", "k_relu_forward", "in place (y == x)", 2, 10, 0, CU_FILE)     \
    X(relu_kernel_stream, "02.4", "k_relu_forward",                                                \
      "launches on the stream it is given (captured into a CUDA graph)", 3, 10, 0, CU_FILE)        \
    X(relu_kernel_launch_error, "02.4", "k_relu_forward",                                          \
      "a launch that fails is reported (cudaGetLastError); a good call after it", 2, 10, 0,        \
      CU_FILE)                                                                                     \
    X(relu_kernel_arguments, "02.4", "k_relu_forward",                                             \
      "n = 0 and bad arguments change nothing; then a good call", 3, 10, 0, CU_FILE)              \
    X(iris_on_device, "02", "all of Lesson 02",                                                    \
      "Iris trains on the device to the judge's own losses (drawn split and weights)", 10, 60, 0,  \
      NULL)

GRADED_SUITE("02", "Moving work to the GPU", "lessons/02_device_transfer/exercises.c", CASES)
