/*
 * texture.h: what the texture files of runtime/ share: a texel's format, a
 * CUDA array, a texture or surface object.
 *
 *  api_texture_array.cpp  CUDA arrays (cudaMallocArray, cudaMalloc3DArray,
 *                         cudaFreeArray) and every copy to, from and between
 *                         them; channel descriptors
 *  api_texture.cpp        texture and surface objects: created from a
 *                         resource (linear memory, pitched 2D memory or an
 *                         array) and a texture descriptor, checked as CUDA
 *                         checks them, destroyed; found by their handle
 *  api_texture_fetch.cpp  what a kernel's tex2D<T>() or surf2Dwrite() does:
 *                         addressing, filtering with the GPU's 9-bit
 *                         weights, the texel formats, memcheck and initcheck
 *                         on the memory behind, the profiler's count
 *
 * A CUDA array's texels lie in device memory of the simulator's region
 * (memory.cpp's map_buffer), so its shadow says which were written, row
 * after row: x fastest, then y, then the layer, the face or z.
 */
#ifndef CUDASIM_RUNTIME_TEXTURE_H
#define CUDASIM_RUNTIME_TEXTURE_H

#include <string>

#include "../internal.h"

namespace cudasim {
namespace internal {

/* One element of a texture or array: channels of bits each, their kind. */
struct TexelFormat {
    enum Kind { SIGNED, UNSIGNED, FLOAT };
    int channels = 0;         /* 1, 2 or 4 */
    int bits = 0;             /* per channel: 8, 16 or 32 */
    Kind kind = FLOAT;
    bool normalized = false;  /* a cudaChannelFormatKind...Normalized... kind: read as floats */
    size_t bytes = 0;         /* of one element */
};
/* The format of a channel descriptor; false (with why, a sentence) where the
 * simulator has no such format or CUDA has none. */
bool texel_format(const cudaChannelFormatDesc &d, TexelFormat *f, std::string *why);
/* "float", "uchar4", "16-bit float x2": for reports. */
std::string format_text(const TexelFormat &f);

} // namespace internal
} // namespace cudasim

/* A CUDA array (cudaArray_t points to one). Kept after cudaFreeArray, marked
 * freed, so that a texture object still naming it is reported as such. */
struct cudaArray {
    cudaChannelFormatDesc desc;
    cudasim::internal::TexelFormat fmt;
    size_t width, height, depth; /* as given: height 0 in 1D, depth 0 in 1D and 2D */
    unsigned flags;              /* cudaArrayLayered, cudaArrayCubemap, ... */
    char *data;                  /* width * rows * slices elements, row after row */
    size_t bytes;
    const void *alloc_pc, *free_pc; /* where the program allocated and freed it */
    bool freed;
    bool reset; /* freed by cudaDeviceReset */
};

namespace cudasim {
namespace internal {

/* An array's rows per slice and slices (layers, faces, or z), at least 1. */
inline size_t array_rows(const cudaArray &a) { return a.height ? a.height : 1; }
inline size_t array_slices(const cudaArray &a) { return a.depth ? a.depth : 1; }
inline size_t array_row_bytes(const cudaArray &a) { return a.width * a.fmt.bytes; }
/* The array at handle a when the simulator made it (freed or not), else NULL. */
cudaArray *find_array(const void *a);
/* "a 512x512 cudaArray of float allocated at f.cu:30" (and "that cudaFreeArray at ... freed"). */
std::string array_text(const cudaArray &a);

/* What a texture or surface object reads. */
enum TexShape {
    SHAPE_LINEAR,          /* cudaResourceTypeLinear: tex1Dfetch */
    SHAPE_PITCH2D,         /* cudaResourceTypePitch2D: tex2D */
    SHAPE_1D,              /* arrays: */
    SHAPE_2D,
    SHAPE_3D,
    SHAPE_1D_LAYERED,
    SHAPE_2D_LAYERED,
    SHAPE_CUBEMAP,
    SHAPE_CUBEMAP_LAYERED
};
const char *shape_text(TexShape s); /* "a 2D cudaArray", "linear memory", ... */

struct TexObject {
    unsigned long long handle = 0;
    bool surface = false;
    bool destroyed = false;
    const void *create_pc = nullptr, *destroy_pc = nullptr;
    cudaResourceDesc res{};
    cudaTextureDesc tex{};
    cudaResourceViewDesc view{};
    bool has_view = false;
    /* resolved when created */
    TexShape shape = SHAPE_LINEAR;
    TexelFormat fmt;
    char *base = nullptr;       /* the first element */
    size_t width = 0, height = 1, depth = 1; /* elements, rows, slices (layers, faces or z) */
    size_t pitch = 0, slice = 0;             /* bytes from a row, a slice, to the next */
    cudaArray *array = nullptr; /* the array behind, or NULL (linear and pitched memory) */
    size_t buffer_bytes = 0;    /* linear, pitched: the bytes it reads from base */
    unsigned long long opened_launch = 0; /* the launch that last opened its buffer */
};
/* The object of a handle (destroyed or not), or NULL when it was never made. */
TexObject *find_texture_object(unsigned long long handle, bool surface);
/* "texture object 0x... (a 2D cudaArray of float, created at f.cu:40)" */
std::string object_text(const TexObject &t);

/* cudaDeviceReset: every array freed, every object destroyed (api_texture*.cpp). */
void arrays_reset();
void texture_objects_reset();

} // namespace internal
} // namespace cudasim

#endif /* CUDASIM_RUNTIME_TEXTURE_H */
