/*
 * sample_helpers.h: helpers in the manner of the CUDA samples' Common
 * headers (helper_cuda.h, helper_string.h), for the conformance suite's
 * samples_style.cu, which finds this folder through INCLUDE. As those
 * headers do, it gives its CUDA helpers only when the runtime's headers came
 * first, which it tells by the macros they define (__DRIVER_TYPES_H__,
 * __CUDA_RUNTIME_H__), and it asks the device's compute mode, capability,
 * SM count and clock through cudaDeviceGetAttribute, as CUDA 13 requires.
 */
#ifndef CONFORMANCE_SAMPLE_HELPERS_H
#define CONFORMANCE_SAMPLE_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EXIT_WAIVED
#define EXIT_WAIVED 2
#endif

/* -name=value on the command line: value, or fallback. */
inline int sampleArgInt(int argc, const char **argv, const char *name, int fallback)
{
    size_t len = strlen(name);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        while (*a == '-') a++;
        if (strncmp(a, name, len) == 0 && a[len] == '=') return atoi(a + len + 1);
    }
    return fallback;
}

#ifdef __DRIVER_TYPES_H__
template <typename T>
void sampleCheck(T result, const char *call, const char *file, int line)
{
    if (result) {
        fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, (int)result,
                cudaGetErrorName(result), call);
        exit(EXIT_FAILURE);
    }
}
#define checkCudaErrors(val) sampleCheck((val), #val, __FILE__, __LINE__)
#endif

#ifdef SAMPLE_DRIVER_API
/* The driver API's part, compiled only where the program defines SAMPLE_DRIVER_API
 * (helper_cuda.h's CUDA_DRIVER_API): nothing refuses it in a program that does not. */
static const char *sampleDriverError(CUresult error)
{
    const char *name = NULL;
    cuGetErrorName(error, &name);
    return name ? name : "<unknown>";
}
#endif

#ifdef __CUDA_RUNTIME_H__
/* The device given as -device=N, or the first one a process may use. */
inline int findCudaDevice(int argc, const char **argv)
{
    int count = 0;
    checkCudaErrors(cudaGetDeviceCount(&count));
    int want = sampleArgInt(argc, argv, "device", -1);
    for (int dev = want < 0 ? 0 : want; dev < count; dev++) {
        int mode = -1, major = 0, sms = 0, khz = 0;
        checkCudaErrors(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, dev));
        checkCudaErrors(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
        checkCudaErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        checkCudaErrors(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
        if (mode == cudaComputeModeProhibited || major < 1 || sms < 1 || khz < 1) {
            if (want >= 0) break;
            continue;
        }
        checkCudaErrors(cudaSetDevice(dev));
        printf("GPU Device %d: ready\n", dev);
        return dev;
    }
    fprintf(stderr, "findCudaDevice: no CUDA device this process may use\n");
    exit(EXIT_FAILURE);
}
#endif

#endif /* CONFORMANCE_SAMPLE_HELPERS_H */
