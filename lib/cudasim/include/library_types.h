/*
 * library_types.h for the CUDA simulator: the data types CUDA's libraries
 * (cuBLAS's cublasGemmEx) take, with the real names and values.
 */
#ifndef CUDASIM_LIBRARY_TYPES_H
#define CUDASIM_LIBRARY_TYPES_H
#define __LIBRARY_TYPES_H__

typedef enum cudaDataType_t {
    CUDA_R_16F = 2,   /* real as a half */
    CUDA_R_16BF = 14, /* real as a nv_bfloat16 */
    CUDA_R_32F = 0,   /* real as a float */
    CUDA_R_64F = 1,   /* real as a double */
    CUDA_R_8I = 3,    /* real as a signed 8-bit int */
    CUDA_R_32I = 10   /* real as a signed 32-bit int */
} cudaDataType;

#endif /* CUDASIM_LIBRARY_TYPES_H */
