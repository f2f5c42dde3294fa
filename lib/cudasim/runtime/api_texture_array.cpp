/*
 * api_texture_array.cpp: CUDA arrays and their copies (texture.h says what
 * the texture files share).
 *
 * An array is device memory of the simulator's region (map_buffer), so it is
 * shut to host code, its shadow says which texels were written (a texture
 * fetch of one never written is initcheck's), and cudaFreeArray gives its
 * pages back as cudaFree does. The texels lie row after row; a GPU lays them
 * out in tiles of its own, which no program can see but through a profiler's
 * sector counts (docs/simulator.md says so). Every copy to, from or between
 * arrays is a box: a number of rows of bytes on each side, in as many slices,
 * checked against both sides before a byte moves.
 */
#include <cstring>

#include "texture.h"
#include "../profile/profile.h"

namespace cudasim {
namespace internal {

namespace {
std::map<const void *, cudaArray *> g_arrays; /* every array made, freed or not */

/* The largest array a GPU of compute capability 8.0 or 9.0 takes
 * (cudaDeviceProp::maxTexture1D, maxTexture2D, maxTexture3D, maxTexture2DLayered,
 * maxTextureCubemap...). */
const size_t kMax1D = 131072, kMax2D[2] = {131072, 65536}, kMax3D = 16384;
const size_t kMaxLayeredWidth = 32768, kMaxLayers = 2048, kMaxCubemap = 32768;
} // namespace

bool texel_format(const cudaChannelFormatDesc &d, TexelFormat *f, std::string *why)
{
    TexelFormat t;
    char buf[200];
    switch (d.f) {
    case cudaChannelFormatKindSigned: t.kind = TexelFormat::SIGNED; break;
    case cudaChannelFormatKindUnsigned: t.kind = TexelFormat::UNSIGNED; break;
    case cudaChannelFormatKindFloat: t.kind = TexelFormat::FLOAT; break;
    case cudaChannelFormatKindUnsignedNormalized8X1:
    case cudaChannelFormatKindUnsignedNormalized8X2:
    case cudaChannelFormatKindUnsignedNormalized8X4:
    case cudaChannelFormatKindUnsignedNormalized16X1:
    case cudaChannelFormatKindUnsignedNormalized16X2:
    case cudaChannelFormatKindUnsignedNormalized16X4:
        t.kind = TexelFormat::UNSIGNED, t.normalized = true;
        break;
    case cudaChannelFormatKindSignedNormalized8X1:
    case cudaChannelFormatKindSignedNormalized8X2:
    case cudaChannelFormatKindSignedNormalized8X4:
    case cudaChannelFormatKindSignedNormalized16X1:
    case cudaChannelFormatKindSignedNormalized16X2:
    case cudaChannelFormatKindSignedNormalized16X4:
        t.kind = TexelFormat::SIGNED, t.normalized = true;
        break;
    case cudaChannelFormatKindNone:
        *why = "its kind is cudaChannelFormatKindNone (cudaCreateChannelDesc<T>() of a type it "
               "has no channel format for?)";
        return false;
    default:
        snprintf(buf, sizeof buf,
                 "its kind %d (NV12, block-compressed or 10-10-10-2) is not in the CUDA simulator: "
                 "use 8-, 16- or 32-bit channels",
                 (int)d.f);
        *why = buf;
        return false;
    }
    int bits[4] = {d.x, d.y, d.z, d.w};
    int n = 0;
    while (n < 4 && bits[n] > 0) n++;
    for (int i = n; i < 4; i++)
        if (bits[i] != 0) n = -1;
    bool same = n > 0;
    for (int i = 1; same && i < n; i++) same = bits[i] == bits[0];
    int b = n > 0 ? bits[0] : 0;
    bool sizes = b == 8 || b == 16 || b == 32;
    bool ok = same && sizes && n != 3 && !(t.kind == TexelFormat::FLOAT && b == 8) &&
              !(t.normalized && b == 32);
    if (!ok) {
        snprintf(buf, sizeof buf,
                 "channels of {%d, %d, %d, %d} bits: a format has 1, 2 or 4 channels (x, then y, "
                 "z, w), all of 8, 16 or 32 bits (floats of 16 or 32)",
                 d.x, d.y, d.z, d.w);
        *why = buf;
        return false;
    }
    if (t.normalized) {
        static const int want[] = {1, 2, 4, 1, 2, 4, 1, 2, 4, 1, 2, 4};
        int k = d.f >= cudaChannelFormatKindSignedNormalized8X1
                    ? d.f - cudaChannelFormatKindSignedNormalized8X1 + 6
                    : d.f - cudaChannelFormatKindUnsignedNormalized8X1;
        int want_bits = (k % 6) < 3 ? 8 : 16;
        if (want[k] != n || want_bits != b) {
            snprintf(buf, sizeof buf, "channels of {%d, %d, %d, %d} bits for a kind of %d %d-bit "
                     "channels", d.x, d.y, d.z, d.w, want[k], want_bits);
            *why = buf;
            return false;
        }
    }
    t.channels = n;
    t.bits = b;
    t.bytes = (size_t)n * (size_t)b / 8;
    *f = t;
    return true;
}

std::string format_text(const TexelFormat &f)
{
    const char *base;
    if (f.kind == TexelFormat::FLOAT) base = f.bits == 16 ? "half" : "float";
    else if (f.bits == 8) base = f.kind == TexelFormat::SIGNED ? "char" : "uchar";
    else if (f.bits == 16) base = f.kind == TexelFormat::SIGNED ? "short" : "ushort";
    else base = f.kind == TexelFormat::SIGNED ? "int" : "uint";
    std::string s = base;
    if (f.channels > 1) s += std::to_string(f.channels);
    if (f.normalized) s += " (normalized)";
    return s;
}

cudaArray *find_array(const void *a)
{
    auto it = g_arrays.find(a);
    return it == g_arrays.end() ? nullptr : it->second;
}

std::string array_text(const cudaArray &a)
{
    char dims[96];
    bool cube = a.flags & cudaArrayCubemap, layered = a.flags & cudaArrayLayered;
    if (cube && layered)
        snprintf(dims, sizeof dims, "%zux%zu, %zu layers of 6 faces", a.width, a.height, a.depth / 6);
    else if (cube)
        snprintf(dims, sizeof dims, "%zux%zu, 6 faces", a.width, a.height);
    else if (layered && a.height)
        snprintf(dims, sizeof dims, "%zux%zu, %zu layers", a.width, a.height, a.depth);
    else if (layered)
        snprintf(dims, sizeof dims, "%zu elements, %zu layers", a.width, a.depth);
    else if (a.depth)
        snprintf(dims, sizeof dims, "%zux%zux%zu", a.width, a.height, a.depth);
    else if (a.height)
        snprintf(dims, sizeof dims, "%zux%zu", a.width, a.height);
    else
        snprintf(dims, sizeof dims, "%zu elements", a.width);
    std::string kind = cube ? (layered ? "a layered cubemap" : "a cubemap") : layered ? "a layered" : "a";
    std::string s = kind + " cudaArray (" + dims + ", " + format_text(a.fmt) + ")";
    std::string at = a.alloc_pc ? source_line(a.alloc_pc) : "";
    if (!at.empty()) s += " allocated at " + at;
    if (a.reset) s += ", which cudaDeviceReset freed";
    else if (a.freed) {
        std::string fl = a.free_pc ? source_line(a.free_pc) : "";
        s += fl.empty() ? ", which cudaFreeArray freed" : ", which the cudaFreeArray at " + fl + " freed";
    }
    return s;
}

void arrays_reset()
{
    for (auto &kv : g_arrays)
        if (!kv.second->freed) kv.second->freed = kv.second->reset = true;
}

namespace {

/* (d - 1) * slice + (h - 1) * pitch + w: the bytes a box spans from its
 * first, or SIZE_MAX when that overflows (no buffer holds it). */
size_t box_span(size_t w, size_t h, size_t d, size_t pitch, size_t slice)
{
    size_t a, b, sum;
    if (!w || !h || !d) return 0;
    if (__builtin_mul_overflow(d - 1, slice, &a) || __builtin_mul_overflow(h - 1, pitch, &b) ||
        __builtin_add_overflow(a, b, &sum) || __builtin_add_overflow(sum, w, &sum))
        return SIZE_MAX;
    return sum;
}

/* A live array for a call, or NULL (reported). */
cudaArray *live_array(const char *call, const char *which, const void *a)
{
    cudaArray *arr = find_array(a);
    if (!a) report("%s: the %s array is NULL (CUDA reports: invalid argument)", call, which);
    else if (!arr) report("%s: the %s array %p is not a cudaArray the program allocated (CUDA "
                          "reports: invalid argument)", call, which, a);
    else if (arr->freed) {
        std::string t = array_text(*arr);
        report("%s: the %s array is %s: a use after free (CUDA reports: invalid argument)", call,
               which, t.c_str());
        return nullptr;
    }
    return arr;
}

cudaError_t make_array(const char *call, cudaArray_t *out, const cudaChannelFormatDesc *desc,
                       size_t w, size_t h, size_t d, unsigned flags, const void *pc)
{
    API_ENTER();
    if (!out || !desc) {
        report("%s: a NULL %s (CUDA reports: invalid argument)", call, !out ? "array pointer" : "channel descriptor");
        return fail(cudaErrorInvalidValue);
    }
    if (cudaError_t e = check_unsafe(call)) return e;
    TexelFormat fmt;
    std::string why;
    if (!texel_format(*desc, &fmt, &why)) {
        report("%s: the channel descriptor is not a texel format: %s (the simulator reports: "
               "invalid argument)", call, why.c_str());
        return fail(cudaErrorInvalidValue);
    }
    const unsigned known = cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap |
                           cudaArrayTextureGather;
    char problem[256] = "";
    bool layered = flags & cudaArrayLayered, cube = flags & cudaArrayCubemap;
    if (flags & ~known)
        snprintf(problem, sizeof problem, "flags %#x: the simulator has cudaArrayLayered, "
                 "cudaArrayCubemap, cudaArraySurfaceLoadStore and cudaArrayTextureGather only", flags);
    else if (w == 0)
        snprintf(problem, sizeof problem, "a width of 0");
    else if ((layered || cube) && strcmp(call, "cudaMallocArray") == 0)
        snprintf(problem, sizeof problem, "layered and cubemap arrays are made by cudaMalloc3DArray");
    else if (cube && (h != w || (layered ? d == 0 || d % 6 : d != 6)))
        snprintf(problem, sizeof problem, "a cubemap of %zux%zux%zu: its faces are square (width "
                 "= height) and its depth is 6 (a layered one: 6 per layer)", w, h, d);
    else if (layered && d == 0)
        snprintf(problem, sizeof problem, "a layered array of depth 0: its depth is its number of layers");
    else if (!layered && !cube && h == 0 && d != 0)
        snprintf(problem, sizeof problem, "a depth of %zu with a height of 0", d);
    else if (cube ? w > kMaxCubemap || (layered && d / 6 > kMaxLayers)
             : layered ? w > kMaxLayeredWidth || h > kMaxLayeredWidth || d > kMaxLayers
             : d ? w > kMax3D || h > kMax3D || d > kMax3D
             : h ? w > kMax2D[0] || h > kMax2D[1]
                 : w > kMax1D)
        snprintf(problem, sizeof problem, "%zux%zux%zu is more than a GPU's arrays hold "
                 "(cudaDeviceProp's maxTexture1D, maxTexture2D, maxTexture3D, "
                 "maxTexture2DLayered, maxTextureCubemap)", w, h, d);
    if (*problem) {
        report("%s: %s (CUDA reports: invalid argument)", call, problem);
        return fail(cudaErrorInvalidValue);
    }
    size_t bytes = w * (h ? h : 1) * (d ? d : 1) * fmt.bytes;
    if (bytes > kTotalMemory - g_in_use) {
        report("%s: %zu bytes, but only %zu of the simulated %zu bytes are free (CUDA reports: out "
               "of memory)", call, bytes, kTotalMemory - g_in_use, kTotalMemory);
        return fail(cudaErrorMemoryAllocation);
    }
    char *data = (char *)map_buffer(bytes, true, true, false, pc);
    if (!data) {
        report("%s: no room for %zu bytes in the simulator's device address space (CUDA reports: "
               "out of memory)", call, bytes);
        return fail(cudaErrorMemoryAllocation);
    }
    cudaArray *a = new cudaArray{*desc, fmt, w, h, d, flags, data, bytes, pc, nullptr, false, false};
    g_arrays[a] = a;
    *out = a;
    return cudaSuccess;
}

/* What p points to: 'd' device memory (or a variable), 'm' managed, 'f' a
 * freed buffer, 'h' host memory. */
char memory_kind(const void *p)
{
    const Alloc *a = find_alloc(p);
    uintptr_t s;
    if (a && a->device) return a->managed ? 'm' : 'd';
    if (find_symbol(p, &s)) return 'd';
    if (find_freed((uintptr_t)p)) return 'f';
    return 'h';
}

/* One side of a copy: an array, or pitched memory (host or device). Offsets
 * and widths in bytes; rows and slices in rows. */
struct Side {
    cudaArray *array = nullptr;
    char *ptr = nullptr;
    size_t pitch = 0, slice = 0; /* bytes from a row, a slice, to the next */
    size_t x = 0, y = 0, z = 0;  /* where the box starts: bytes, rows, slices */
    bool device = false;         /* device memory (arrays are) */
    char *at(size_t row, size_t sl) const { return ptr + (z + sl) * slice + (y + row) * pitch + x; }
};

Side array_side(cudaArray *a, size_t x_bytes, size_t y, size_t z)
{
    Side s;
    s.array = a;
    s.ptr = a->data;
    s.pitch = array_row_bytes(*a);
    s.slice = s.pitch * array_rows(*a);
    s.x = x_bytes, s.y = y, s.z = z;
    s.device = true;
    return s;
}

/* The box [x, x + w) x [y, y + h) x [z, z + d) inside the array (reported if not). */
bool box_in_array(const char *call, const char *which, const Side &s, size_t w, size_t h, size_t d)
{
    const cudaArray &a = *s.array;
    size_t rb = array_row_bytes(a), rows = array_rows(a), slices = array_slices(a);
    if (s.x <= rb && w <= rb - s.x && s.y <= rows && h <= rows - s.y && s.z <= slices &&
        d <= slices - s.z)
        return true;
    std::string t = array_text(a);
    char box[160], has[96];
    if (slices > 1 || d > 1 || s.z) {
        snprintf(box, sizeof box, "%zu bytes x %zu rows x %zu slices from byte %zu of row %zu of "
                 "slice %zu", w, h, d, s.x, s.y, s.z);
        snprintf(has, sizeof has, "%zu rows and %zu slices", rows, slices);
    } else {
        snprintf(box, sizeof box, "%zu bytes x %zu rows from byte %zu of row %zu", w, h, s.x, s.y);
        snprintf(has, sizeof has, "%zu rows", rows);
    }
    report("%s: %s do not fit in the %s array, whose rows hold %zu bytes (it has %s): %s (CUDA "
           "reports: invalid argument)",
           call, box, which, rb, has, t.c_str());
    return false;
}

/* Pitched memory for a copy of kind: host or device as the kind says, and
 * the box inside a device buffer (reported if not). */
bool pointer_side(const char *call, const char *which, Side *s, cudaMemcpyKind kind, bool is_dst,
                  size_t w, size_t h, size_t d)
{
    if (!s->ptr) {
        report("%s: the %s pointer is NULL (CUDA reports: invalid argument)", call, which);
        return false;
    }
    if (w > s->pitch) {
        report("%s: rows of %zu bytes, wider than the %s's pitch of %zu bytes (CUDA reports: "
               "invalid argument)", call, w, which, s->pitch);
        return false;
    }
    char k = memory_kind(s->ptr);
    if (k == 'f') {
        uintptr_t start;
        const Freed *f = find_freed((uintptr_t)s->ptr, &start);
        std::string t = f ? freed_text(*f) : "a freed buffer";
        report("%s: the %s pointer %p is in %s: a use after free (CUDA reports: invalid argument)",
               call, which, (void *)s->ptr, t.c_str());
        return false;
    }
    bool want_device;
    switch (kind) {
    case cudaMemcpyHostToDevice: want_device = is_dst; break;
    case cudaMemcpyDeviceToHost: want_device = !is_dst; break;
    case cudaMemcpyDeviceToDevice: want_device = true; break;
    case cudaMemcpyHostToHost: want_device = false; break;
    case cudaMemcpyDefault: want_device = k != 'h'; break;
    default:
        report("%s: copy kind %d does not exist (CUDA reports: invalid copy direction for memcpy)",
               call, (int)kind);
        return false;
    }
    if (k == 'm') k = want_device ? 'd' : 'h';
    if ((k == 'd') != want_device) {
        report("%s: the %s pointer %p is %s memory, but the kind of the copy says %s memory "
               "(swapped arguments, or the wrong kind?) (CUDA reports: invalid argument)",
               call, which, (void *)s->ptr, k == 'd' ? "device" : "host", want_device ? "device" : "host");
        return false;
    }
    s->device = want_device;
    if (want_device && w && h && d) {
        size_t span = box_span(w, h, d, s->pitch, s->slice);
        if (check_device_range(call, which, s->at(0, 0), span)) return false;
    }
    return true;
}

/* An array's kind is device: a copy from or to one must say so (or Default). */
bool array_kind_ok(const char *call, cudaMemcpyKind kind, bool dst_array, bool src_array)
{
    bool ok;
    switch (kind) {
    case cudaMemcpyHostToDevice: ok = !src_array; break;
    case cudaMemcpyDeviceToHost: ok = !dst_array; break;
    case cudaMemcpyDeviceToDevice:
    case cudaMemcpyDefault: ok = true; break;
    case cudaMemcpyHostToHost: ok = false; break;
    default:
        report("%s: copy kind %d does not exist (CUDA reports: invalid copy direction for memcpy)",
               call, (int)kind);
        return false;
    }
    if (!ok)
        report("%s: a cudaArray is device memory, but the kind of the copy says host memory for "
               "the %s (CUDA reports: invalid argument)", call, dst_array ? "destination" : "source");
    return ok;
}

/* The copy itself: d slices of h rows of w bytes. */
cudaError_t run_box(const Side &dst, const Side &src, size_t w, size_t h, size_t d,
                    cudaMemcpyKind kind, bool async)
{
    DeviceOp op;
    open_for_device(dst.ptr);
    open_for_device(src.ptr);
    for (size_t sl = 0; sl < d; sl++)
        for (size_t r = 0; r < h; r++) {
            memmove(dst.at(r, sl), src.at(r, sl), w);
            if (dst.device) mark_written(dst.at(r, sl), w);
        }
    model_copy(dst.ptr, src.ptr, w * h * d, kind, async);
    return cudaSuccess;
}

/* A box copy, checked, then run now or issued to a stream. */
cudaError_t box_copy(const char *call, Side dst, Side src, size_t w, size_t h, size_t d,
                     cudaMemcpyKind kind, bool async, cudaStream_t stream)
{
    API_ENTER();
    bool ok = array_kind_ok(call, kind, dst.array != nullptr, src.array != nullptr);
    if (ok && dst.array) ok = box_in_array(call, "destination", dst, w, h, d);
    if (ok && src.array) ok = box_in_array(call, "source", src, w, h, d);
    if (ok && !dst.array)
        ok = pointer_side(call, "destination", &dst, kind, true, w, h, d);
    if (ok && !src.array) ok = pointer_side(call, "source", &src, kind, false, w, h, d);
    if (!ok) return async ? refuse(stream, cudaErrorInvalidValue) : fail(cudaErrorInvalidValue);
    if (!w || !h || !d) return cudaSuccess;
    bool host = !dst.device || !src.device;
    auto work = [=] { return run_box(dst, src, w, h, d, kind, async); };
    if (async) return issue(call, stream, work);
    if (cudaError_t e = check_legacy(call)) return e;
    if (host) managed_stream_waited(nullptr); /* a copy with the host waits for the device */
    return work();
}

Side pointer(const void *p, size_t pitch, size_t slice = 0)
{
    Side s;
    s.ptr = (char *)p;
    s.pitch = pitch;
    s.slice = slice;
    return s;
}

/* cudaMemcpyToArray's count bytes from (wOffset, hOffset) on: the rest of
 * that row, then whole rows, as an array's rows lie one after another. */
cudaError_t linear_copy(const char *call, const cudaArray *da, size_t dw, size_t dh,
                        const cudaArray *sa, size_t sw, size_t sh, void *dp, const void *sp,
                        size_t count, cudaMemcpyKind kind, bool async, cudaStream_t stream)
{
    auto flat = [&](const cudaArray *a, size_t x, size_t y, const char *which, char **out) {
        size_t rb = array_row_bytes(*a), total = a->bytes, rows = total / rb;
        size_t off = y < rows ? y * rb + x : total;
        if (x >= rb || off >= total || count > total - off) {
            std::string t = array_text(*a);
            report("%s: %zu bytes from byte %zu of row %zu of the %s array, whose rows hold %zu "
                   "bytes and which holds %zu bytes from there: %s (CUDA reports: invalid "
                   "argument)",
                   call, count, x, y, which, rb, off < total ? total - off : 0, t.c_str());
            return false;
        }
        *out = a->data + off;
        return true;
    };
    char *d = (char *)dp, *s = (char *)sp;
    bool ok = array_kind_ok(call, kind, da != nullptr, sa != nullptr);
    if (ok && da) ok = flat(da, dw, dh, "destination", &d);
    if (ok && sa) ok = flat(sa, sw, sh, "source", &s);
    if (!ok) return async ? refuse(stream, cudaErrorInvalidValue) : fail(cudaErrorInvalidValue);
    return box_copy(call, pointer(d, count), pointer(s, count), count, 1, 1, kind, async, stream);
}

} // namespace

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" {

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   enum cudaChannelFormatKind f)
{
    cudaChannelFormatDesc d;
    d.x = x;
    d.y = y;
    d.z = z;
    d.w = w;
    d.f = f;
    return d;
}

cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                            size_t width, size_t height, unsigned int flags)
{
    return make_array("cudaMallocArray", array, desc, width, height, 0, flags,
                      __builtin_return_address(0));
}

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                              struct cudaExtent extent, unsigned int flags)
{
    return make_array("cudaMalloc3DArray", array, desc, extent.width, extent.height, extent.depth,
                      flags, __builtin_return_address(0));
}

cudaError_t cudaFreeArray(cudaArray_t array)
{
    API_ENTER();
    if (!array) return cudaSuccess;
    if (cudaError_t e = check_unsafe("cudaFreeArray")) return e;
    cudaArray *a = find_array(array);
    if (!a || a->freed) {
        if (a) {
            std::string t = array_text(*a);
            report("cudaFreeArray: freed twice: the array is %s (the simulator reports: invalid "
                   "argument)", t.c_str());
        } else {
            report("cudaFreeArray(%p): not a cudaArray the program allocated (the simulator "
                   "reports: invalid argument)", (void *)array);
        }
        return fail(cudaErrorInvalidValue);
    }
    auto it = g_allocs.find((uintptr_t)a->data);
    if (it != g_allocs.end()) {
        g_in_use -= it->second.size;
        unmap_buffer(it->first, it->second, __builtin_return_address(0));
        g_allocs.erase(it);
    }
    a->freed = true;
    a->free_pc = __builtin_return_address(0);
    managed_device_waited(); /* as cudaFree, it waits for the device */
    return cudaSuccess;
}

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                             unsigned int *flags, cudaArray_t array)
{
    API_ENTER();
    cudaArray *a = live_array("cudaArrayGetInfo", "given", array);
    if (!a) return fail(cudaErrorInvalidValue);
    if (desc) *desc = a->desc;
    if (extent) *extent = make_cudaExtent(a->width, a->height, a->depth);
    if (flags) *flags = a->flags;
    return cudaSuccess;
}

cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
    API_ENTER();
    cudaArray *a = live_array("cudaGetChannelDesc", "given", array);
    if (!a || !desc) return fail(cudaErrorInvalidValue);
    *desc = a->desc;
    return cudaSuccess;
}

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    API_ENTER();
    if (!pitchedDevPtr) return fail(cudaErrorInvalidValue);
    size_t pitch = (extent.width + 511) & ~(size_t)511; /* rows 512-byte aligned, as cudaMallocPitch */
    size_t bytes;
    *pitchedDevPtr = make_cudaPitchedPtr(nullptr, pitch, extent.width, extent.height);
    if (pitch < extent.width || __builtin_mul_overflow(pitch, extent.height, &bytes) ||
        __builtin_mul_overflow(bytes, extent.depth, &bytes))
        bytes = SIZE_MAX;
    if (!bytes) return cudaSuccess;
    if (bytes > kTotalMemory - g_in_use) {
        report("cudaMalloc3D(%zu bytes): only %zu of the simulated %zu bytes are free (CUDA "
               "reports: out of memory)", bytes, kTotalMemory - g_in_use, kTotalMemory);
        return fail(cudaErrorMemoryAllocation);
    }
    void *p = map_buffer(bytes, true, true, false, __builtin_return_address(0));
    if (!p) return fail(cudaErrorMemoryAllocation);
    pitchedDevPtr->ptr = p;
    return cudaSuccess;
}

cudaError_t cudaMemset3D(struct cudaPitchedPtr p, int value, struct cudaExtent extent)
{
    API_ENTER();
    if (cudaError_t e = check_legacy("cudaMemset3D")) return e;
    if (!extent.width || !extent.height || !extent.depth) return cudaSuccess;
    if (extent.width > p.pitch) return fail(cudaErrorInvalidPitchValue);
    size_t slice;
    if (__builtin_mul_overflow(p.pitch, p.ysize, &slice)) slice = SIZE_MAX;
    if (extent.depth > 1 && p.ysize < extent.height) {
        report("cudaMemset3D: %zu rows per slice, but the pitched pointer's ysize is %zu (CUDA "
               "reports: invalid argument)", extent.height, p.ysize);
        return fail(cudaErrorInvalidValue);
    }
    size_t span = box_span(extent.width, extent.height, extent.depth, p.pitch, slice);
    if (check_device_range("cudaMemset3D", "destination", p.ptr, span))
        return fail(cudaErrorInvalidValue);
    DeviceOp op;
    open_for_device(p.ptr);
    for (size_t z = 0; z < extent.depth; z++)
        for (size_t y = 0; y < extent.height; y++) {
            char *row = (char *)p.ptr + z * slice + y * p.pitch;
            memset(row, value, extent.width);
            mark_written(row, extent.width);
        }
    model_memset(extent.width * extent.height * extent.depth, false);
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                size_t spitch, size_t width, size_t height,
                                enum cudaMemcpyKind kind)
{
    cudaArray *a = live_array("cudaMemcpy2DToArray", "destination", dst);
    if (!a) return fail(cudaErrorInvalidValue);
    return box_copy("cudaMemcpy2DToArray", array_side(a, wOffset, hOffset, 0), pointer(src, spitch),
                    width, height, 1, kind, false, 0);
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t spitch, size_t width, size_t height,
                                     enum cudaMemcpyKind kind, cudaStream_t stream)
{
    cudaArray *a = live_array("cudaMemcpy2DToArrayAsync", "destination", dst);
    if (!a) return refuse(stream, cudaErrorInvalidValue);
    return box_copy("cudaMemcpy2DToArrayAsync", array_side(a, wOffset, hOffset, 0),
                    pointer(src, spitch), width, height, 1, kind, true, stream);
}

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                  size_t hOffset, size_t width, size_t height,
                                  enum cudaMemcpyKind kind)
{
    cudaArray *a = live_array("cudaMemcpy2DFromArray", "source", src);
    if (!a) return fail(cudaErrorInvalidValue);
    return box_copy("cudaMemcpy2DFromArray", pointer(dst, dpitch), array_side(a, wOffset, hOffset, 0),
                    width, height, 1, kind, false, 0);
}

cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
                                       size_t wOffset, size_t hOffset, size_t width, size_t height,
                                       enum cudaMemcpyKind kind, cudaStream_t stream)
{
    cudaArray *a = live_array("cudaMemcpy2DFromArrayAsync", "source", src);
    if (!a) return refuse(stream, cudaErrorInvalidValue);
    return box_copy("cudaMemcpy2DFromArrayAsync", pointer(dst, dpitch),
                    array_side(a, wOffset, hOffset, 0), width, height, 1, kind, true, stream);
}

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                     cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                     size_t width, size_t height, enum cudaMemcpyKind kind)
{
    cudaArray *d = live_array("cudaMemcpy2DArrayToArray", "destination", dst);
    cudaArray *s = d ? live_array("cudaMemcpy2DArrayToArray", "source", src) : nullptr;
    if (!d || !s) return fail(cudaErrorInvalidValue);
    return box_copy("cudaMemcpy2DArrayToArray", array_side(d, wOffsetDst, hOffsetDst, 0),
                    array_side(s, wOffsetSrc, hOffsetSrc, 0), width, height, 1, kind, false, 0);
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                              size_t count, enum cudaMemcpyKind kind)
{
    cudaArray *a = live_array("cudaMemcpyToArray", "destination", dst);
    if (!a) return fail(cudaErrorInvalidValue);
    return linear_copy("cudaMemcpyToArray", a, wOffset, hOffset, nullptr, 0, 0, nullptr, src,
                       count, kind, false, 0);
}

cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                   const void *src, size_t count, enum cudaMemcpyKind kind,
                                   cudaStream_t stream)
{
    cudaArray *a = live_array("cudaMemcpyToArrayAsync", "destination", dst);
    if (!a) return refuse(stream, cudaErrorInvalidValue);
    return linear_copy("cudaMemcpyToArrayAsync", a, wOffset, hOffset, nullptr, 0, 0, nullptr, src,
                       count, kind, true, stream);
}

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                size_t count, enum cudaMemcpyKind kind)
{
    cudaArray *a = live_array("cudaMemcpyFromArray", "source", src);
    if (!a) return fail(cudaErrorInvalidValue);
    return linear_copy("cudaMemcpyFromArray", nullptr, 0, 0, a, wOffset, hOffset, dst, nullptr,
                       count, kind, false, 0);
}

cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
                                     size_t hOffset, size_t count, enum cudaMemcpyKind kind,
                                     cudaStream_t stream)
{
    cudaArray *a = live_array("cudaMemcpyFromArrayAsync", "source", src);
    if (!a) return refuse(stream, cudaErrorInvalidValue);
    return linear_copy("cudaMemcpyFromArrayAsync", nullptr, 0, 0, a, wOffset, hOffset, dst,
                       nullptr, count, kind, true, stream);
}

cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                   cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                   size_t count, enum cudaMemcpyKind kind)
{
    cudaArray *d = live_array("cudaMemcpyArrayToArray", "destination", dst);
    cudaArray *s = d ? live_array("cudaMemcpyArrayToArray", "source", src) : nullptr;
    if (!d || !s) return fail(cudaErrorInvalidValue);
    return linear_copy("cudaMemcpyArrayToArray", d, wOffsetDst, hOffsetDst, s, wOffsetSrc,
                       hOffsetSrc, nullptr, nullptr, count, kind, false, 0);
}

} // extern "C"

namespace {
/* cudaMemcpy3D: an array or a pitched pointer on each side; positions and
 * the extent in elements of an array where either side is one (bytes
 * otherwise, a pointer's element being a byte). */
cudaError_t memcpy3d(const char *call, const cudaMemcpy3DParms *p, bool async, cudaStream_t stream)
{
    API_ENTER();
    auto bad = [&](cudaError_t e) { return async ? refuse(stream, e) : fail(e); };
    if (!p) {
        report("%s: NULL parameters (CUDA reports: invalid argument)", call);
        return bad(cudaErrorInvalidValue);
    }
    if ((p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr) ||
        (!p->srcArray && !p->srcPtr.ptr) || (!p->dstArray && !p->dstPtr.ptr)) {
        report("%s: each side is either an array or a pitched pointer, never both nor neither "
               "(srcArray %p, srcPtr.ptr %p, dstArray %p, dstPtr.ptr %p) (CUDA reports: invalid "
               "argument)", call, (void *)p->srcArray, p->srcPtr.ptr, (void *)p->dstArray,
               p->dstPtr.ptr);
        return bad(cudaErrorInvalidValue);
    }
    cudaArray *sa = nullptr, *da = nullptr;
    if (p->srcArray && !(sa = live_array(call, "source", p->srcArray))) return bad(cudaErrorInvalidValue);
    if (p->dstArray && !(da = live_array(call, "destination", p->dstArray))) return bad(cudaErrorInvalidValue);
    if (sa && da && sa->fmt.bytes != da->fmt.bytes) {
        report("%s: the arrays' elements are of %zu and %zu bytes (CUDA reports: invalid argument)",
               call, sa->fmt.bytes, da->fmt.bytes);
        return bad(cudaErrorInvalidValue);
    }
    size_t elem = sa ? sa->fmt.bytes : da ? da->fmt.bytes : 1;
    size_t w, h = p->extent.height, d = p->extent.depth, sx, dx;
    if (__builtin_mul_overflow(p->extent.width, elem, &w) ||
        __builtin_mul_overflow(p->srcPos.x, elem, &sx) ||
        __builtin_mul_overflow(p->dstPos.x, elem, &dx)) {
        report("%s: an extent or a position of more bytes than there are (CUDA reports: invalid "
               "argument)", call);
        return bad(cudaErrorInvalidValue);
    }
    auto side = [&](cudaArray *a, const cudaPitchedPtr &pp, const cudaPos &pos, size_t x) {
        if (a) return array_side(a, x, pos.y, pos.z);
        size_t slice;
        if (__builtin_mul_overflow(pp.pitch, pp.ysize, &slice)) slice = SIZE_MAX;
        Side s = pointer(pp.ptr, pp.pitch, slice);
        s.x = x, s.y = pos.y, s.z = pos.z;
        return s;
    };
    Side dst = side(da, p->dstPtr, p->dstPos, dx), src = side(sa, p->srcPtr, p->srcPos, sx);
    for (const Side *s : {&dst, &src})
        if (!s->array && d > 1 && s->slice / (s->pitch ? s->pitch : 1) < h) {
            report("%s: %zu rows per slice, but the %s's pitched pointer has ysize %zu (CUDA "
                   "reports: invalid argument)", call, h, s == &dst ? "destination" : "source",
                   s->slice / (s->pitch ? s->pitch : 1));
            return bad(cudaErrorInvalidValue);
        }
    return box_copy(call, dst, src, w, h, d, p->kind, async, stream);
}
} // namespace

extern "C" {

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    return memcpy3d("cudaMemcpy3D", p, false, 0);
}

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    return memcpy3d("cudaMemcpy3DAsync", p, true, stream);
}

} // extern "C"
