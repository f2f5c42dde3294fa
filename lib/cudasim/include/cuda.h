/*
 * cuda.h for the CUDA simulator: the driver API's version and the types a
 * runtime program meets (a CUstream is a cudaStream_t). The driver API's
 * calls themselves (cuInit, cuModuleLoad, cuLaunchKernel, ...) are not part
 * of the simulator: cu2sim.pl refuses a program that calls one.
 */
#ifndef __cuda_cuda_h__
#define __cuda_cuda_h__

/* The driver API version (CUDA 13.0's numbering, as CUDART_VERSION). */
#define CUDA_VERSION 13000

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUgraphNode_st *CUgraphNode;

/* The driver API's result codes share the runtime's numbers. */
typedef enum cudaError_enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_UNKNOWN = 999
} CUresult;

#endif /* __cuda_cuda_h__ */
