/*
 * surface_indirect_functions.h for the CUDA simulator: a kernel's reads and
 * writes of a CUDA array through a surface object, under CUDA's names:
 * surf1Dread<T>(surf, x, mode), surf2Dread, surf3Dread, the layered and
 * cubemap forms, each also as name(&v, surf, ...), and the writes
 * surf1Dwrite(v, surf, x, mode), ... x is in bytes, y and z in rows and
 * slices; the boundary mode (cudaBoundaryModeTrap unless given) says what an
 * access outside the array does: Trap stops the kernel with a report, Clamp
 * moves it to the nearest element, Zero reads zeros and drops the write.
 * The simulator does each access (runtime/api_texture_fetch.cpp), with the
 * checks of the memory behind. cuda_runtime.h includes this header in a
 * translated kernel's source.
 */
#ifndef __SURFACE_INDIRECT_FUNCTIONS_H__
#define __SURFACE_INDIRECT_FUNCTIONS_H__

#if defined(__cplusplus)

#include "cudasim_texel.h"

#define CUDASIM_SURF_FN static inline __attribute__((always_inline, unused))
#define CUDASIM_SURF_UNPAREN(...) __VA_ARGS__

/* nameread(T *ptr, surf, params, mode), T nameread<T>(surf, params, mode) and
 * namewrite(T v, surf, params, mode); the access is at (x, y, z). */
#define CUDASIM_SURF(name, op, params, args, x, y, z)                                              \
    template <class T>                                                                           \
    CUDASIM_SURF_FN typename cudasim::Surfel<T>::type name##read(                                \
        T *ptr, cudaSurfaceObject_t obj, CUDASIM_SURF_UNPAREN params,                             \
        cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)                                      \
    {                                                                                            \
        unsigned char data[sizeof(T)];                                                           \
        cudasim::surf_call(obj, op, x, y, z, mode, data, sizeof(T), 0, #name "read");             \
        T v;                                                                                     \
        std::memcpy(&v, data, sizeof v);                                                         \
        *ptr = v;                                                                                \
    }                                                                                            \
    template <class T>                                                                           \
    CUDASIM_SURF_FN T name##read(cudaSurfaceObject_t obj, CUDASIM_SURF_UNPAREN params,            \
                                 cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)             \
    {                                                                                            \
        T ret;                                                                                   \
        name##read(&ret, obj, CUDASIM_SURF_UNPAREN args, mode);                                  \
        return ret;                                                                              \
    }                                                                                            \
    template <class T>                                                                           \
    CUDASIM_SURF_FN typename cudasim::Surfel<T>::type name##write(                               \
        T val, cudaSurfaceObject_t obj, CUDASIM_SURF_UNPAREN params,                              \
        cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)                                      \
    {                                                                                            \
        unsigned char data[sizeof(T)];                                                           \
        std::memcpy(data, &val, sizeof(T));                                                      \
        cudasim::surf_call(obj, op, x, y, z, mode, data, sizeof(T), 1, #name "write");            \
    }

CUDASIM_SURF(surf1D, CUDASIM_SURF_1D, (int x), (x), x, 0, 0)
CUDASIM_SURF(surf2D, CUDASIM_SURF_2D, (int x, int y), (x, y), x, y, 0)
CUDASIM_SURF(surf3D, CUDASIM_SURF_3D, (int x, int y, int z), (x, y, z), x, y, z)
CUDASIM_SURF(surf1DLayered, CUDASIM_SURF_1D_LAYERED, (int x, int layer), (x, layer), x, 0, layer)
CUDASIM_SURF(surf2DLayered, CUDASIM_SURF_2D_LAYERED, (int x, int y, int layer), (x, y, layer), x, y,
             layer)
CUDASIM_SURF(surfCubemap, CUDASIM_SURF_CUBEMAP, (int x, int y, int face), (x, y, face), x, y, face)
CUDASIM_SURF(surfCubemapLayered, CUDASIM_SURF_CUBEMAP_LAYERED, (int x, int y, int layerface),
             (x, y, layerface), x, y, layerface)

#undef CUDASIM_SURF

#endif /* __cplusplus */
#endif /* __SURFACE_INDIRECT_FUNCTIONS_H__ */
