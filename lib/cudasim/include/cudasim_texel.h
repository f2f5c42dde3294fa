/*
 * cudasim_texel.h: what a kernel's texture fetches and surface accesses
 * (texture_indirect_functions.h, surface_indirect_functions.h) share: the
 * types a fetch may return, and the simulator's entry points that do the
 * work (runtime/api_texture_fetch.cpp). Each fetch is one call, made from
 * a function that is never inlined, so that the call's return address is
 * the kernel's line: that is where a report points.
 */
#ifndef CUDASIM_TEXEL_H
#define CUDASIM_TEXEL_H

#include <cstring>

#include "cuda_runtime_api.h"

/* What a fetch reads (op). */
enum {
    CUDASIM_TEX_1DFETCH, /* tex1Dfetch: an integer index into linear memory */
    CUDASIM_TEX_1D,
    CUDASIM_TEX_2D,
    CUDASIM_TEX_3D,
    CUDASIM_TEX_1D_LAYERED,
    CUDASIM_TEX_2D_LAYERED,
    CUDASIM_TEX_CUBEMAP,
    CUDASIM_TEX_CUBEMAP_LAYERED
};
/* What a surface access reads or writes (op). */
enum {
    CUDASIM_SURF_1D = 1,
    CUDASIM_SURF_2D,
    CUDASIM_SURF_3D,
    CUDASIM_SURF_1D_LAYERED,
    CUDASIM_SURF_2D_LAYERED,
    CUDASIM_SURF_CUBEMAP,
    CUDASIM_SURF_CUBEMAP_LAYERED
};

extern "C" {
/* A texture fetch of the kernel's code at pc: op's coordinates (x, y, z:
 * floats; i: tex1Dfetch's index, or the layer), the result as the type T
 * whose code (cudasim::Texel<T>::code) is given, written to out (16 bytes);
 * name is the function the program called, for reports. */
void cudasim_tex_fetch(unsigned long long tex, int op, float x, float y, float z, int i, int type,
                       const char *name, void *out, const void *pc);
/* A surface read or write of size bytes at (x bytes, y, z: the layer, face
 * or z), with boundary mode `mode`, from or to data. */
void cudasim_surf_access(unsigned long long surf, int op, int x, int y, int z, int mode,
                         void *data, unsigned size, int write, const char *name, const void *pc);
}

namespace cudasim {

/* The types a texture fetch returns: scalars and vectors of 1, 2 or 4 of
 * char, short, int (signed or not) and float, as CUDA's headers list them.
 * code: the number of components | their kind << 4 (0 float, 1 signed, 2
 * unsigned) | their bytes << 8. */
template <class T>
struct Texel {};
#define CUDASIM_TEXEL(T, N, KIND, C)                                                             \
    template <>                                                                                  \
    struct Texel<T> {                                                                            \
        typedef void type;                                                                       \
        static const int code = N | KIND << 4 | (int)sizeof(C) << 8;                             \
    };
#define CUDASIM_TEXELS(S, V, KIND)                                                               \
    CUDASIM_TEXEL(S, 1, KIND, S)                                                                 \
    CUDASIM_TEXEL(V##1, 1, KIND, S) CUDASIM_TEXEL(V##2, 2, KIND, S) CUDASIM_TEXEL(V##4, 4, KIND, S)
CUDASIM_TEXEL(char, 1, 1, char)
CUDASIM_TEXELS(signed char, char, 1)
CUDASIM_TEXELS(unsigned char, uchar, 2)
CUDASIM_TEXELS(short, short, 1)
CUDASIM_TEXELS(unsigned short, ushort, 2)
CUDASIM_TEXELS(int, int, 1)
CUDASIM_TEXELS(unsigned int, uint, 2)
CUDASIM_TEXELS(float, float, 0)
#undef CUDASIM_TEXELS
#undef CUDASIM_TEXEL

/* The call itself, never inlined: its return address is in the kernel. */
static __attribute__((noinline, unused)) void tex_call(unsigned long long tex, int op, float x,
                                                       float y, float z, int i, int type,
                                                       const char *name, void *out)
{
    cudasim_tex_fetch(tex, op, x, y, z, i, type, name, out, __builtin_return_address(0));
}

/* A fetch into *ptr (the store is the kernel's: checked as any). */
template <class T>
static inline __attribute__((always_inline)) void tex_into(T *ptr, unsigned long long tex, int op,
                                                           float x, float y, float z, int i,
                                                           const char *name)
{
    unsigned char out[16];
    tex_call(tex, op, x, y, z, i, Texel<T>::code, name, out);
    T v;
    std::memcpy(&v, out, sizeof v);
    *ptr = v;
}

static __attribute__((noinline, unused)) void surf_call(unsigned long long surf, int op, int x,
                                                        int y, int z, int mode, void *data,
                                                        unsigned size, int write,
                                                        const char *name)
{
    cudasim_surf_access(surf, op, x, y, z, mode, data, size, write, name,
                        __builtin_return_address(0));
}

/* The types a surface moves: any of 1, 2, 4, 8 or 16 bytes (CUDA's headers
 * list the scalars and vectors of those sizes). */
template <class T, bool = (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 ||
                           sizeof(T) == 8 || sizeof(T) == 16)>
struct Surfel {};
template <class T>
struct Surfel<T, true> {
    typedef void type;
};

} // namespace cudasim

#endif /* CUDASIM_TEXEL_H */
