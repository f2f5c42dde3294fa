/*
 * texture_indirect_functions.h for the CUDA simulator: a kernel's texture
 * fetches through texture objects, under CUDA's names and overloads:
 * tex1Dfetch<T>(tex, i), tex1D, tex2D, tex3D, their layered and cubemap
 * forms, the Lod and Grad forms (a texture here has one level, which they
 * read), each also as name(&v, tex, ...), and with the bool *isResident of
 * sparse arrays (always resident here). T is one of the types CUDA lists:
 * char, short, int and float, signed or not, alone or as a vector of 1, 2 or
 * 4. Each fetch is done by the simulator (runtime/api_texture_fetch.cpp):
 * addressing, filtering with a GPU's 9-bit weights, conversion to T, and
 * the checks of the memory behind. tex2Dgather is not there: a use says so.
 * cuda_runtime.h includes this header in a translated kernel's source.
 */
#ifndef __TEXTURE_INDIRECT_FUNCTIONS_H__
#define __TEXTURE_INDIRECT_FUNCTIONS_H__

#if defined(__cplusplus)

#include "cudasim_texel.h"

#define CUDASIM_TEX_FN static inline __attribute__((always_inline, unused))
#define CUDASIM_UNPAREN(...) __VA_ARGS__

namespace cudasim {
template <class... A>
static inline void tex_unused(const A &...) {}
} // namespace cudasim

/* name(T *ptr, tex, params...) and T name<T>(tex, params...); the fetch reads
 * coordinates x, y, z and the integer i (tex1Dfetch's index, or the layer). */
#define CUDASIM_TEX(name, op, params, args, x, y, z, i)                                           \
    template <class T>                                                                           \
    CUDASIM_TEX_FN typename cudasim::Texel<T>::type name(T *ptr, cudaTextureObject_t obj,         \
                                                         CUDASIM_UNPAREN params)                 \
    {                                                                                            \
        cudasim::tex_unused(CUDASIM_UNPAREN args);                                               \
        cudasim::tex_into(ptr, obj, op, x, y, z, i, #name);                                      \
    }                                                                                            \
    template <class T>                                                                           \
    CUDASIM_TEX_FN T name(cudaTextureObject_t obj, CUDASIM_UNPAREN params)                       \
    {                                                                                            \
        T ret;                                                                                   \
        name(&ret, obj, CUDASIM_UNPAREN args);                                                   \
        return ret;                                                                              \
    }
/* The same with bool *isResident last (a sparse array's tile: resident here). */
#define CUDASIM_TEX_RESIDENT(name, params, args)                                                  \
    template <class T>                                                                           \
    CUDASIM_TEX_FN typename cudasim::Texel<T>::type name(T *ptr, cudaTextureObject_t obj,         \
                                                         CUDASIM_UNPAREN params, bool *isResident) \
    {                                                                                            \
        name(ptr, obj, CUDASIM_UNPAREN args);                                                    \
        *isResident = true;                                                                      \
    }                                                                                            \
    template <class T>                                                                           \
    CUDASIM_TEX_FN T name(cudaTextureObject_t obj, CUDASIM_UNPAREN params, bool *isResident)     \
    {                                                                                            \
        T ret;                                                                                   \
        name(&ret, obj, CUDASIM_UNPAREN args, isResident);                                       \
        return ret;                                                                              \
    }

CUDASIM_TEX(tex1Dfetch, CUDASIM_TEX_1DFETCH, (int x), (x), 0, 0, 0, x)
CUDASIM_TEX(tex1D, CUDASIM_TEX_1D, (float x), (x), x, 0, 0, 0)
CUDASIM_TEX(tex2D, CUDASIM_TEX_2D, (float x, float y), (x, y), x, y, 0, 0)
CUDASIM_TEX(tex3D, CUDASIM_TEX_3D, (float x, float y, float z), (x, y, z), x, y, z, 0)
CUDASIM_TEX(tex1DLayered, CUDASIM_TEX_1D_LAYERED, (float x, int layer), (x, layer), x, 0, 0, layer)
CUDASIM_TEX(tex2DLayered, CUDASIM_TEX_2D_LAYERED, (float x, float y, int layer), (x, y, layer), x,
            y, 0, layer)
CUDASIM_TEX(texCubemap, CUDASIM_TEX_CUBEMAP, (float x, float y, float z), (x, y, z), x, y, z, 0)
CUDASIM_TEX(texCubemapLayered, CUDASIM_TEX_CUBEMAP_LAYERED, (float x, float y, float z, int layer),
            (x, y, z, layer), x, y, z, layer)
/* A texture here has one level: the level and the gradients choose nothing. */
CUDASIM_TEX(tex1DLod, CUDASIM_TEX_1D, (float x, float level), (x, level), x, 0, 0, 0)
CUDASIM_TEX(tex2DLod, CUDASIM_TEX_2D, (float x, float y, float level), (x, y, level), x, y, 0, 0)
CUDASIM_TEX(tex3DLod, CUDASIM_TEX_3D, (float x, float y, float z, float level), (x, y, z, level), x,
            y, z, 0)
CUDASIM_TEX(tex1DLayeredLod, CUDASIM_TEX_1D_LAYERED, (float x, int layer, float level),
            (x, layer, level), x, 0, 0, layer)
CUDASIM_TEX(tex2DLayeredLod, CUDASIM_TEX_2D_LAYERED, (float x, float y, int layer, float level),
            (x, y, layer, level), x, y, 0, layer)
CUDASIM_TEX(texCubemapLod, CUDASIM_TEX_CUBEMAP, (float x, float y, float z, float level),
            (x, y, z, level), x, y, z, 0)
CUDASIM_TEX(texCubemapLayeredLod, CUDASIM_TEX_CUBEMAP_LAYERED,
            (float x, float y, float z, int layer, float level), (x, y, z, layer, level), x, y, z,
            layer)
CUDASIM_TEX(tex1DGrad, CUDASIM_TEX_1D, (float x, float dPdx, float dPdy), (x, dPdx, dPdy), x, 0, 0,
            0)
CUDASIM_TEX(tex2DGrad, CUDASIM_TEX_2D, (float x, float y, float2 dPdx, float2 dPdy),
            (x, y, dPdx, dPdy), x, y, 0, 0)
CUDASIM_TEX(tex3DGrad, CUDASIM_TEX_3D, (float x, float y, float z, float4 dPdx, float4 dPdy),
            (x, y, z, dPdx, dPdy), x, y, z, 0)
CUDASIM_TEX(tex1DLayeredGrad, CUDASIM_TEX_1D_LAYERED, (float x, int layer, float dPdx, float dPdy),
            (x, layer, dPdx, dPdy), x, 0, 0, layer)
CUDASIM_TEX(tex2DLayeredGrad, CUDASIM_TEX_2D_LAYERED,
            (float x, float y, int layer, float2 dPdx, float2 dPdy), (x, y, layer, dPdx, dPdy), x,
            y, 0, layer)
CUDASIM_TEX(texCubemapGrad, CUDASIM_TEX_CUBEMAP, (float x, float y, float z, float4 dPdx, float4 dPdy),
            (x, y, z, dPdx, dPdy), x, y, z, 0)
CUDASIM_TEX(texCubemapLayeredGrad, CUDASIM_TEX_CUBEMAP_LAYERED,
            (float x, float y, float z, int layer, float4 dPdx, float4 dPdy),
            (x, y, z, layer, dPdx, dPdy), x, y, z, layer)

CUDASIM_TEX_RESIDENT(tex2D, (float x, float y), (x, y))
CUDASIM_TEX_RESIDENT(tex3D, (float x, float y, float z), (x, y, z))
CUDASIM_TEX_RESIDENT(tex2DLayered, (float x, float y, int layer), (x, y, layer))
CUDASIM_TEX_RESIDENT(tex2DLod, (float x, float y, float level), (x, y, level))
CUDASIM_TEX_RESIDENT(tex3DLod, (float x, float y, float z, float level), (x, y, z, level))
CUDASIM_TEX_RESIDENT(tex2DLayeredLod, (float x, float y, int layer, float level),
                     (x, y, layer, level))
CUDASIM_TEX_RESIDENT(tex2DGrad, (float x, float y, float2 dPdx, float2 dPdy), (x, y, dPdx, dPdy))
CUDASIM_TEX_RESIDENT(tex3DGrad, (float x, float y, float z, float4 dPdx, float4 dPdy),
                     (x, y, z, dPdx, dPdy))
CUDASIM_TEX_RESIDENT(tex2DLayeredGrad, (float x, float y, int layer, float2 dPdx, float2 dPdy),
                     (x, y, layer, dPdx, dPdy))

/* tex2Dgather: not in the simulator (its texels' order is not modelled). */
template <class... A>
constexpr bool cudasim_no_gather = false;
template <class T = void, class... A>
static inline T tex2Dgather(A...)
{
    static_assert(cudasim_no_gather<T, A...>,
                  "the simulator does not have tex2Dgather: fetch the four texels with tex2D "
                  "and cudaFilterModePoint");
    return T();
}

#undef CUDASIM_TEX
#undef CUDASIM_TEX_RESIDENT

#endif /* __cplusplus */
#endif /* __TEXTURE_INDIRECT_FUNCTIONS_H__ */
