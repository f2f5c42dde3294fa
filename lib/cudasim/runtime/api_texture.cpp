/*
 * api_texture.cpp: texture and surface objects (texture.h says what the
 * texture files share). An object is the resource it reads (linear memory,
 * pitched 2D memory or a CUDA array) and, for a texture, how it reads it
 * (addressing, filtering, the read mode, normalized coordinates), checked
 * when it is created as CUDA documents it; a kernel is given its handle, a
 * number, and api_texture_fetch.cpp finds it again by that number. A
 * destroyed object is kept, marked so, and a handle is never given twice:
 * a kernel that fetches through a destroyed object is told which it was.
 */
#include <cstring>
#include <vector>

#include "texture.h"

namespace cudasim {
namespace internal {

namespace {
/* Handles: the object's index + 1, tagged by what it is, so that a texture's
 * handle given as a surface's (or a number from elsewhere) is seen. */
const unsigned long long kTextureTag = 0x7e570000ull << 32, kSurfaceTag = 0x5e2f0000ull << 32;
const unsigned long long kTagMask = 0xffffffffull << 32;
std::vector<TexObject *> g_objects;

/* Linear and pitched memory: aligned as cudaDeviceProp's textureAlignment and
 * texturePitchAlignment say (the simulator's buffers start aligned, as a
 * GPU's cudaMalloc gives them: the offset from the buffer's start counts). */
const size_t kTextureAlignment = 512, kTexturePitchAlignment = 32;
/* cudaDeviceProp::maxTexture1DLinear, maxTexture2DLinear of compute capability 8.0 and 9.0. */
const size_t kMaxLinear = (size_t)1 << 28, kMax2DLinear[3] = {131072, 65000, 2097120};

/* What the call returns: as CUDA documents it, or where CUDA does not say
 * which error (only that it is one), as the simulator chose. */
const char *kInvalid = "(CUDA reports: invalid argument)";
const char *kSimInvalid = "(the simulator reports: invalid argument)";

/* Which shape an array is. */
TexShape array_shape(const cudaArray &a)
{
    bool layered = a.flags & cudaArrayLayered;
    if (a.flags & cudaArrayCubemap) return layered ? SHAPE_CUBEMAP_LAYERED : SHAPE_CUBEMAP;
    if (layered) return a.height ? SHAPE_2D_LAYERED : SHAPE_1D_LAYERED;
    return a.depth ? SHAPE_3D : a.height ? SHAPE_2D : SHAPE_1D;
}

/* The memory behind linear or pitched texture memory: a device buffer, aligned. */
bool check_memory(const char *call, const char *what, const void *p, size_t bytes)
{
    if (!p) {
        report("%s: %s.devPtr is NULL %s", call, what, kInvalid);
        return false;
    }
    if (check_device_range(call, what, p, bytes)) return false;
    uintptr_t start = (uintptr_t)p;
    if (find_alloc(p, &start) && ((uintptr_t)p - start) % kTextureAlignment) {
        report("%s: %s.devPtr is %zu bytes into its buffer, which is not a multiple of "
               "cudaDeviceProp::textureAlignment (%zu): a texture starts at an aligned address "
               "(give the whole buffer and add the offset to the coordinates) %s",
               call, what, (size_t)((uintptr_t)p - start), kTextureAlignment, kInvalid);
        return false;
    }
    return true;
}

/* Resolve a resource description into o (reported if it is not one CUDA takes). */
bool resolve(const char *call, const cudaResourceDesc &r, TexObject *o)
{
    std::string why;
    switch (r.resType) {
    case cudaResourceTypeArray: {
        cudaArray *a = find_array(r.res.array.array);
        if (!a) {
            report("%s: res.array.array %p is not a cudaArray the program allocated %s", call,
                   (void *)r.res.array.array, kInvalid);
            return false;
        }
        if (a->freed) {
            std::string t = array_text(*a);
            report("%s: res.array.array is %s: a use after free %s", call, t.c_str(), kInvalid);
            return false;
        }
        o->array = a;
        o->shape = array_shape(*a);
        o->fmt = a->fmt;
        o->base = a->data;
        o->width = a->width;
        o->height = array_rows(*a);
        o->depth = array_slices(*a);
        o->pitch = array_row_bytes(*a);
        o->slice = o->pitch * o->height;
        return true;
    }
    case cudaResourceTypeLinear: {
        if (!texel_format(r.res.linear.desc, &o->fmt, &why)) {
            report("%s: res.linear.desc: %s %s", call, why.c_str(), kInvalid);
            return false;
        }
        size_t n = r.res.linear.sizeInBytes / o->fmt.bytes;
        if (n == 0 || n > kMaxLinear) {
            report("%s: res.linear.sizeInBytes %zu holds %zu elements of %zu bytes; a texture over "
                   "linear memory holds 1 to %zu %s",
                   call, r.res.linear.sizeInBytes, n, o->fmt.bytes, kMaxLinear, kInvalid);
            return false;
        }
        if (!check_memory(call, "res.linear", r.res.linear.devPtr, r.res.linear.sizeInBytes))
            return false;
        o->shape = SHAPE_LINEAR;
        o->base = (char *)r.res.linear.devPtr;
        o->width = n;
        o->pitch = o->slice = n * o->fmt.bytes;
        o->buffer_bytes = r.res.linear.sizeInBytes;
        return true;
    }
    case cudaResourceTypePitch2D: {
        const auto &p = r.res.pitch2D;
        if (!texel_format(p.desc, &o->fmt, &why)) {
            report("%s: res.pitch2D.desc: %s %s", call, why.c_str(), kInvalid);
            return false;
        }
        if (!p.width || !p.height || p.width > kMax2DLinear[0] || p.height > kMax2DLinear[1] ||
            p.pitchInBytes > kMax2DLinear[2]) {
            report("%s: res.pitch2D of %zux%zu elements, pitch %zu: a GPU takes 1 to %zu x 1 to "
                   "%zu, pitch up to %zu (cudaDeviceProp::maxTexture2DLinear) %s",
                   call, p.width, p.height, p.pitchInBytes, kMax2DLinear[0], kMax2DLinear[1],
                   kMax2DLinear[2], kInvalid);
            return false;
        }
        if (p.pitchInBytes % kTexturePitchAlignment || p.pitchInBytes < p.width * o->fmt.bytes) {
            report("%s: res.pitch2D.pitchInBytes %zu: it must hold a row (%zu elements of %zu "
                   "bytes) and be a multiple of cudaDeviceProp::texturePitchAlignment (%zu; "
                   "cudaMallocPitch's pitch is) %s",
                   call, p.pitchInBytes, p.width, o->fmt.bytes, kTexturePitchAlignment, kInvalid);
            return false;
        }
        size_t bytes = p.pitchInBytes * (p.height - 1) + p.width * o->fmt.bytes;
        if (!check_memory(call, "res.pitch2D", p.devPtr, bytes)) return false;
        o->shape = SHAPE_PITCH2D;
        o->base = (char *)p.devPtr;
        o->width = p.width;
        o->height = p.height;
        o->pitch = p.pitchInBytes;
        o->slice = p.pitchInBytes * p.height;
        o->buffer_bytes = bytes;
        return true;
    }
    case cudaResourceTypeMipmappedArray:
        report("%s: res.resType is cudaResourceTypeMipmappedArray: mipmapped arrays are not in the "
               "CUDA simulator (a texture over a cudaArray reads one level) %s", call, kInvalid);
        return false;
    }
    report("%s: res.resType %d is not a resource type %s", call, (int)r.resType, kInvalid);
    return false;
}

/* Whether a fetch through o returns floats (what linear filtering needs). */
bool returns_floats(const TexObject &o)
{
    return o.fmt.kind == TexelFormat::FLOAT || o.fmt.normalized ||
           (o.tex.readMode == cudaReadModeNormalizedFloat && o.fmt.bits < 32);
}

bool check_texture_desc(const char *call, TexObject *o)
{
    const cudaTextureDesc &t = o->tex;
    for (int i = 0; i < 3; i++)
        if ((unsigned)t.addressMode[i] > cudaAddressModeBorder) {
            report("%s: addressMode[%d] is %d, not an address mode %s", call, i,
                   (int)t.addressMode[i], kInvalid);
            return false;
        }
    if ((unsigned)t.filterMode > cudaFilterModeLinear || (unsigned)t.readMode > cudaReadModeNormalizedFloat) {
        report("%s: filterMode %d, readMode %d: not a filter mode and a read mode %s", call,
               (int)t.filterMode, (int)t.readMode, kInvalid);
        return false;
    }
    if (o->shape == SHAPE_LINEAR) return true; /* (filtering and addressing ignored, as documented) */
    if (t.filterMode == cudaFilterModeLinear && !returns_floats(*o)) {
        std::string f = format_text(o->fmt);
        report("%s: linear filtering of a texture of %s read as cudaReadModeElementType: linear "
               "filtering is done only for textures that return floats (set readMode = "
               "cudaReadModeNormalizedFloat for 8- and 16-bit integers, or filterMode = "
               "cudaFilterModePoint) %s",
               call, f.c_str(), kSimInvalid);
        return false;
    }
    bool cube = o->shape == SHAPE_CUBEMAP || o->shape == SHAPE_CUBEMAP_LAYERED;
    if (t.seamlessCubemap && !cube) {
        report("%s: seamlessCubemap is set for a texture that is not a cubemap %s", call, kInvalid);
        return false;
    }
    if (t.seamlessCubemap && t.filterMode == cudaFilterModeLinear) {
        report("%s: seamless cubemap filtering (seamlessCubemap with cudaFilterModeLinear) is not "
               "in the CUDA simulator (without seamlessCubemap, linear filtering stops at a face's "
               "edges) (the simulator reports: operation not supported)", call);
        o->tex.seamlessCubemap = -1; /* (marks the refusal for the caller) */
        return false;
    }
    return true;
}

TexObject *new_object(bool surface)
{
    TexObject *o = new TexObject;
    o->surface = surface;
    g_objects.push_back(o);
    o->handle = (surface ? kSurfaceTag : kTextureTag) | (unsigned long long)g_objects.size();
    return o;
}

/* The object of a handle for a host call (reported if none, or destroyed). */
TexObject *live_object(const char *call, unsigned long long h, bool surface)
{
    TexObject *o = find_texture_object(h, surface);
    const char *what = surface ? "surface" : "texture";
    if (!o) {
        TexObject *other = find_texture_object(h, !surface);
        if (other)
            report("%s: %#llx is a %s object, not a %s object %s", call, h,
                   surface ? "texture" : "surface", what, kSimInvalid);
        else
            report("%s: %#llx is not a %s object the program created %s", call, h, what, kSimInvalid);
        return nullptr;
    }
    if (o->destroyed) {
        std::string t = object_text(*o);
        report("%s: the %s is destroyed already %s", call, t.c_str(), kSimInvalid);
        return nullptr;
    }
    return o;
}

} // namespace

const char *shape_text(TexShape s)
{
    switch (s) {
    case SHAPE_LINEAR: return "linear memory";
    case SHAPE_PITCH2D: return "pitched 2D memory";
    case SHAPE_1D: return "a 1D cudaArray";
    case SHAPE_2D: return "a 2D cudaArray";
    case SHAPE_3D: return "a 3D cudaArray";
    case SHAPE_1D_LAYERED: return "a layered 1D cudaArray";
    case SHAPE_2D_LAYERED: return "a layered 2D cudaArray";
    case SHAPE_CUBEMAP: return "a cubemap cudaArray";
    case SHAPE_CUBEMAP_LAYERED: return "a layered cubemap cudaArray";
    }
    return "?";
}

TexObject *find_texture_object(unsigned long long h, bool surface)
{
    if ((h & kTagMask) != (surface ? kSurfaceTag : kTextureTag)) return nullptr;
    unsigned long long i = h & ~kTagMask;
    if (i == 0 || i > g_objects.size()) return nullptr;
    return g_objects[i - 1];
}

std::string object_text(const TexObject &t)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s object %#llx", t.surface ? "surface" : "texture", t.handle);
    std::string s = buf;
    std::string what;
    if (t.array) {
        what = array_text(*t.array);
    } else {
        snprintf(buf, sizeof buf, "%zu", t.width);
        what = shape_text(t.shape) + std::string(" of ") + format_text(t.fmt);
        if (t.shape == SHAPE_PITCH2D) {
            char dims[64];
            snprintf(dims, sizeof dims, " (%zux%zu, pitch %zu)", t.width, t.height, t.pitch);
            what += dims;
        } else {
            what += std::string(" (") + buf + " elements)";
        }
        what += " at " + address_text((uintptr_t)t.base);
    }
    std::string at = t.create_pc ? source_line(t.create_pc) : "";
    s += " (" + (at.empty() ? std::string() : "created at " + at + ", ");
    if (t.destroyed) {
        std::string dl = t.destroy_pc ? source_line(t.destroy_pc) : "";
        s += dl.empty() ? "destroyed, " : "destroyed at " + dl + ", ";
    }
    return s + "over " + what + ")";
}

void texture_objects_reset()
{
    for (TexObject *o : g_objects) o->destroyed = true;
}

void textures_reset()
{
    arrays_reset();
    texture_objects_reset();
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" {

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                    const struct cudaResourceDesc *pResDesc,
                                    const struct cudaTextureDesc *pTexDesc,
                                    const struct cudaResourceViewDesc *pResViewDesc)
{
    API_ENTER();
    const char *call = "cudaCreateTextureObject";
    if (!pTexObject || !pResDesc || !pTexDesc) {
        report("%s: a NULL %s %s", call,
               !pTexObject ? "pTexObject" : !pResDesc ? "pResDesc" : "pTexDesc", kInvalid);
        return fail(cudaErrorInvalidValue);
    }
    if (pResDesc->flags) {
        report("%s: pResDesc->flags is %#x; it must be 0 %s", call, pResDesc->flags, kInvalid);
        return fail(cudaErrorInvalidValue);
    }
    TexObject o;
    o.res = *pResDesc;
    o.tex = *pTexDesc;
    if (!resolve(call, o.res, &o)) return fail(cudaErrorInvalidValue);
    if (!check_texture_desc(call, &o))
        return fail(o.tex.seamlessCubemap == -1 ? cudaErrorNotSupported : cudaErrorInvalidValue);
    if (pResViewDesc) {
        const cudaResourceViewDesc &v = *pResViewDesc;
        bool plain = v.firstMipmapLevel == 0 && v.lastMipmapLevel == 0 && v.firstLayer == 0 &&
                     (v.lastLayer == 0 || v.lastLayer + 1 == o.depth) &&
                     (v.width == 0 || v.width == o.width) &&
                     (v.height == 0 || v.height == o.height || (o.height == 1 && v.height == 0)) &&
                     (v.depth == 0 || v.depth == o.depth) && v.format == cudaResViewFormatNone;
        if (!plain) {
            report("%s: a resource view (pResViewDesc) that changes the format, the size or the "
                   "layers is not in the CUDA simulator (pass NULL, or a view of the whole "
                   "resource with format cudaResViewFormatNone) (the simulator reports: operation "
                   "not supported)", call);
            return fail(cudaErrorNotSupported);
        }
        o.view = v;
        o.has_view = true;
    }
    TexObject *t = new_object(false);
    unsigned long long h = t->handle;
    *t = o;
    t->handle = h;
    t->create_pc = __builtin_return_address(0);
    *pTexObject = h;
    return cudaSuccess;
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    API_ENTER();
    if (!texObject) return cudaSuccess;
    TexObject *o = live_object("cudaDestroyTextureObject", texObject, false);
    if (!o) return fail(cudaErrorInvalidValue);
    o->destroyed = true;
    o->destroy_pc = __builtin_return_address(0);
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                             cudaTextureObject_t texObject)
{
    API_ENTER();
    TexObject *o = live_object("cudaGetTextureObjectResourceDesc", texObject, false);
    if (!o || !pResDesc) return fail(cudaErrorInvalidValue);
    *pResDesc = o->res;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
                                            cudaTextureObject_t texObject)
{
    API_ENTER();
    TexObject *o = live_object("cudaGetTextureObjectTextureDesc", texObject, false);
    if (!o || !pTexDesc) return fail(cudaErrorInvalidValue);
    *pTexDesc = o->tex;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceViewDesc(struct cudaResourceViewDesc *pResViewDesc,
                                                 cudaTextureObject_t texObject)
{
    API_ENTER();
    TexObject *o = live_object("cudaGetTextureObjectResourceViewDesc", texObject, false);
    if (!o || !pResViewDesc) return fail(cudaErrorInvalidValue);
    if (!o->has_view) {
        report("cudaGetTextureObjectResourceViewDesc: the texture was created without a resource "
               "view %s", kInvalid);
        return fail(cudaErrorInvalidValue);
    }
    *pResViewDesc = o->view;
    return cudaSuccess;
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                    const struct cudaResourceDesc *pResDesc)
{
    API_ENTER();
    const char *call = "cudaCreateSurfaceObject";
    if (!pSurfObject || !pResDesc) {
        report("%s: a NULL %s %s", call, !pSurfObject ? "pSurfObject" : "pResDesc", kInvalid);
        return fail(cudaErrorInvalidValue);
    }
    if (pResDesc->resType != cudaResourceTypeArray) {
        report("%s: pResDesc->resType is %d: a surface is made of a cudaArray "
               "(cudaResourceTypeArray) %s", call, (int)pResDesc->resType, kInvalid);
        return fail(cudaErrorInvalidValue);
    }
    TexObject o;
    o.surface = true;
    o.res = *pResDesc;
    if (!resolve(call, o.res, &o)) return fail(cudaErrorInvalidValue);
    if (!(o.array->flags & cudaArraySurfaceLoadStore)) {
        std::string t = array_text(*o.array);
        report("%s: the array is %s, allocated without cudaArraySurfaceLoadStore: a surface needs "
               "that flag (cudaMallocArray(&a, &desc, w, h, cudaArraySurfaceLoadStore)) %s",
               call, t.c_str(), kSimInvalid);
        return fail(cudaErrorInvalidValue);
    }
    TexObject *t = new_object(true);
    unsigned long long h = t->handle;
    *t = o;
    t->handle = h;
    t->create_pc = __builtin_return_address(0);
    *pSurfObject = h;
    return cudaSuccess;
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
    API_ENTER();
    if (!surfObject) return cudaSuccess;
    TexObject *o = live_object("cudaDestroySurfaceObject", surfObject, true);
    if (!o) return fail(cudaErrorInvalidValue);
    o->destroyed = true;
    o->destroy_pc = __builtin_return_address(0);
    return cudaSuccess;
}

cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                             cudaSurfaceObject_t surfObject)
{
    API_ENTER();
    TexObject *o = live_object("cudaGetSurfaceObjectResourceDesc", surfObject, true);
    if (!o || !pResDesc) return fail(cudaErrorInvalidValue);
    *pResDesc = o->res;
    return cudaSuccess;
}

} // extern "C"
