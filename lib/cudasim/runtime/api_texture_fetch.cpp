/*
 * api_texture_fetch.cpp: what a kernel's texture fetch (tex2D<T>() and its
 * kin) and surface access (surf2Dread, surf2Dwrite, ...) do, as the CUDA
 * Programming Guide's appendix "Texture Fetching" describes a GPU's texture
 * unit (texture.h says what the texture files share).
 *
 * A fetch: the object found by its handle; each coordinate addressed as its
 * descriptor says (normalized coordinates scaled by the size after wrap or
 * mirror; wrap and mirror are clamp without normalized coordinates, as CUDA
 * documents); then the texel at floor(x) (point filtering), or the 2, 4 or 8
 * texels around x - 0.5 weighted by its fractional part held, as on a GPU,
 * in fixed point with 8 bits of fraction (1.0 exact): the coordinate is
 * rounded to the nearest 1/256 of a texel. A texel index outside the
 * texture is wrapped, mirrored, clamped, or the border colour. The texels
 * are converted (8- and 16-bit integers to floats in [0, 1] or [-1, 1] when
 * read normalized, halves to floats, sRGB to linear where asked) and
 * blended: each weight times its texel is exact in double precision (a
 * weight has at most 27 significant bits, a float 24), their sum is rounded
 * once to a float. tex1Dfetch reads
 * linear memory by index, unfiltered, and an index outside it gives zeros.
 *
 * Every texel read is checked on the memory behind it: memory that was
 * freed (cudaFree, cudaFreeArray, cudaDeviceReset) stops the kernel, as an
 * illegal access (memcheck); a texel nothing wrote is reported once per line
 * (initcheck; a texel whose weight is 0 is not). A fetch out of range is
 * what the descriptor says, never a report. A fetch through a destroyed or
 * unknown object stops the kernel. A surface access outside its array does
 * what its boundary mode says: Trap stops the kernel with a report. With the
 * profiler on, each fetch and access is counted (profile_groups.cpp).
 */
#include <cmath>
#include <cstring>
#include <set>

#include "texture.h"
#include "../include/cudasim_texel.h"
#include "../profile/profile.h"

namespace cudasim {
namespace internal {

namespace {

/* A float from a 16-bit IEEE half. */
float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023, bits;
    if (e == 31) bits = sign | 0x7f800000u | (m << 13);
    else if (e) bits = sign | ((e + 112) << 23) | (m << 13);
    else if (!m) bits = sign;
    else { /* subnormal: normalize */
        int shift = 0;
        while (!(m & 1024)) m <<= 1, shift++;
        bits = sign | ((uint32_t)(113 - shift) << 23) | ((m & 1023) << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* sRGB's curve to linear (IEC 61966-2-1). */
float srgb_to_linear(float c)
{
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

/* A channel's raw value at p (bits of the format): sign- or zero-extended. */
int32_t channel_int(const unsigned char *p, const TexelFormat &f)
{
    if (f.bits == 8) return f.kind == TexelFormat::SIGNED ? (int32_t)(int8_t)p[0] : (int32_t)p[0];
    if (f.bits == 16) {
        uint16_t v;
        memcpy(&v, p, 2);
        return f.kind == TexelFormat::SIGNED ? (int32_t)(int16_t)v : (int32_t)v;
    }
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* What a fetch through t returns. */
struct Returns {
    bool floats;    /* floats (else 32-bit integers, as stored) */
    bool normalize; /* integers to floats in [0, 1] or [-1, 1] */
    bool srgb;
};
Returns returns_of(const TexObject &t)
{
    Returns r;
    bool int_norm = t.fmt.kind != TexelFormat::FLOAT && t.fmt.bits < 32 &&
                    (t.fmt.normalized || t.tex.readMode == cudaReadModeNormalizedFloat);
    r.floats = t.fmt.kind == TexelFormat::FLOAT || int_norm;
    r.normalize = int_norm;
    r.srgb = int_norm && t.tex.sRGB && t.fmt.kind == TexelFormat::UNSIGNED && t.fmt.bits == 8;
    return r;
}

/* A texel's channels as floats. */
void texel_floats(const unsigned char *p, const TexelFormat &f, const Returns &r, float out[4])
{
    size_t cb = (size_t)f.bits / 8;
    for (int c = 0; c < f.channels; c++) {
        const unsigned char *q = p + c * cb;
        if (f.kind == TexelFormat::FLOAT) {
            if (f.bits == 16) {
                uint16_t h;
                memcpy(&h, q, 2);
                out[c] = half_to_float(h);
            } else {
                memcpy(&out[c], q, 4);
            }
            continue;
        }
        int32_t v = channel_int(q, f);
        if (f.kind == TexelFormat::UNSIGNED) {
            out[c] = (float)v / (float)((1u << f.bits) - 1);
            if (r.srgb && c < 3) out[c] = srgb_to_linear(out[c]);
        } else {
            float x = (float)v / (float)((1u << (f.bits - 1)) - 1);
            out[c] = x < -1.0f ? -1.0f : x;
        }
    }
    for (int c = f.channels; c < 4; c++) out[c] = 0.0f;
}

void texel_ints(const unsigned char *p, const TexelFormat &f, int32_t out[4])
{
    size_t cb = (size_t)f.bits / 8;
    for (int c = 0; c < 4; c++) out[c] = c < f.channels ? channel_int(p + c * cb, f) : 0;
}

/* The name of T from its code (cudasim_texel.h): "float", "uchar4". */
std::string type_name(int code)
{
    int n = code & 15, kind = (code >> 4) & 15, bytes = code >> 8;
    std::string s = kind == 0 ? "float" : bytes == 1 ? "char" : bytes == 2 ? "short" : "int";
    if (kind == 2) s = "u" + s;
    if (kind == 1 && bytes == 1) s = "signed char";
    return n > 1 ? s + std::to_string(n) : s;
}

/* Reports of misuse (a fetch that does not fit its texture, a result of the
 * wrong type): once per code address, and the kernel goes on. */
std::set<std::pair<const void *, int>> g_misuse_said;
bool first_misuse(const void *pc, int what) { return g_misuse_said.insert({pc, what}).second; }

/* The thread and line, for a report from a kernel. */
std::string where(const void *pc)
{
    char who[256];
    describe_thread(who, sizeof who);
    return std::string(who) + at_line(pc);
}

/* The object of a fetch or access: stops the kernel when there is none. */
TexObject *object_for(unsigned long long h, bool surface, const char *name, const void *pc)
{
    TexObject *t = find_texture_object(h, surface);
    if (t && !t->destroyed) return t;
    {
        std::string w = where(pc), why;
        const char *what = surface ? "surface" : "texture";
        char buf[160];
        if (t) {
            why = object_text(*t) + " was destroyed before the kernel used it";
        } else if (find_texture_object(h, !surface)) {
            snprintf(buf, sizeof buf, "%#llx is a %s object, not a %s object", h,
                     surface ? "texture" : "surface", what);
            why = buf;
        } else {
            snprintf(buf, sizeof buf, "%#llx is not a %s object the program created (a handle "
                     "never set, or one from cudaCreate%sObject that failed?)", h, what,
                     surface ? "Surface" : "Texture");
            why = buf;
        }
        report("%s in %s: %s (the simulator stops the kernel, with CUDA's error for a launch "
               "that failed: what a GPU does with it is not defined)",
               name, w.c_str(), why.c_str());
    }
    if (g_launch.in_kernel) abort_launch(cudaErrorLaunchFailure);
    return nullptr;
}

/* Opens the object's buffer to this device operation (once per launch). */
inline void open_object(TexObject &t)
{
    if (t.opened_launch == g_launches) return;
    t.opened_launch = g_launches;
    open_for_device(t.base);
}

/* n bytes at a, in the object's memory: freed memory stops the kernel;
 * memory never written is reported (when check says so). */
inline bool texel_written(const TexObject &t, uintptr_t a, size_t n, const char *name,
                          const void *pc, bool write);

[[noreturn]] __attribute__((noinline, cold)) void report_freed(const TexObject &t, uintptr_t a,
                                                                size_t n, const char *name,
                                                                const void *pc, bool write)
{
    {
        std::string w = where(pc), o = object_text(t);
        std::string what = t.array ? std::string() : ": " + missed_global(a, n);
        report("%s in %s: %s through %s %ss address %s in freed memory%s (a use after free) "
               "(CUDA reports: an illegal memory access was encountered)",
               invalid_access("__global__", write ? STORE : LOAD, n).c_str(), w.c_str(), name,
               o.c_str(), write ? "write" : "read", address_text(a).c_str(), what.c_str());
    }
    abort_launch(cudaErrorIllegalAddress);
}

/* "texel (3, 7)", "texel (3, 7) of layer 2", "element 5" */
std::string texel_where(const TexObject &t, uintptr_t a)
{
    size_t off = a - (uintptr_t)t.base, elem = t.fmt.bytes;
    char buf[128];
    if (t.shape == SHAPE_LINEAR) {
        snprintf(buf, sizeof buf, "element %zu", off / elem);
        return buf;
    }
    size_t s = off / t.slice, y = off % t.slice / t.pitch, x = off % t.pitch / elem;
    switch (t.shape) {
    case SHAPE_1D: snprintf(buf, sizeof buf, "texel %zu", x); break;
    case SHAPE_1D_LAYERED: snprintf(buf, sizeof buf, "texel %zu of layer %zu", x, s); break;
    case SHAPE_3D: snprintf(buf, sizeof buf, "texel (%zu, %zu, %zu)", x, y, s); break;
    case SHAPE_2D_LAYERED:
        snprintf(buf, sizeof buf, "texel (%zu, %zu) of layer %zu", x, y, s);
        break;
    case SHAPE_CUBEMAP: snprintf(buf, sizeof buf, "texel (%zu, %zu) of face %zu", x, y, s); break;
    case SHAPE_CUBEMAP_LAYERED:
        snprintf(buf, sizeof buf, "texel (%zu, %zu) of face %zu of layer %zu", x, y, s % 6, s / 6);
        break;
    default: snprintf(buf, sizeof buf, "texel (%zu, %zu)", x, y); break;
    }
    return buf;
}

__attribute__((noinline, cold)) void report_texel_uninit(const TexObject &t, uintptr_t a,
                                                         const char *name, const void *pc)
{
    if (hazard_reported(1, pc_id(pc), 0)) return;
    if (!first_report(1, (uint64_t)pc_id(pc), 0, source_line(pc))) return;
    std::string w = where(pc), o = object_text(t), tw = texel_where(t, a);
    report("uninitialized read in %s: %s reads %s of %s, which nothing has written (%s)", w.c_str(),
           name, tw.c_str(), o.c_str(),
           t.array ? "copy data into the array, or write it through a surface, before the "
                     "kernel reads it"
                   : "cudaMalloc does not clear memory: cudaMemset it, or copy data into it, "
                     "first");
}

inline bool texel_written(const TexObject &t, uintptr_t a, size_t n, const char *name,
                          const void *pc, bool write)
{
    bool uninit = false;
    for (uintptr_t g = a & ~(uintptr_t)3; g < a + n; g += 4) {
        if (!in_region(g)) report_freed(t, a, n, name, pc, write);
        uint8_t v = *shadow_of(g);
        if (!(v & SH_ADDR)) report_freed(t, a, n, name, pc, write);
        if (!(v & SH_INIT)) uninit = true;
    }
    return !uninit;
}

/* The texel index k of an axis of n texels under address mode m; -1: the border. */
inline long long address(long long k, long long n, int m)
{
    if (k >= 0 && k < n) return k;
    switch (m) {
    case cudaAddressModeWrap: return ((k % n) + n) % n;
    case cudaAddressModeMirror: {
        long long p = ((k % (2 * n)) + 2 * n) % (2 * n);
        return p < n ? p : 2 * n - 1 - p;
    }
    case cudaAddressModeBorder: return -1;
    default: return k < 0 ? 0 : n - 1;
    }
}

/* One axis of a fetch: the first texel, the weight of the second, and the mode. */
struct Axis {
    long long k0;
    float w; /* of texel k0 + 1 (linear filtering); 0 for a point */
    int mode;
    long long n;
};

Axis axis(float c, long long n, int mode, bool normalized, bool linear)
{
    if (c != c) c = 0.0f; /* NaN */
    if (normalized) {
        if (mode == cudaAddressModeWrap) c = c - floorf(c);
        else if (mode == cudaAddressModeMirror) {
            float fl = floorf(c), fr = c - fl;
            c = fmodf(fl, 2.0f) != 0.0f ? 1.0f - fr : fr;
        }
        c = c * (float)n;
        if (c != c) c = 0.0f; /* an infinite coordinate, wrapped */
    } else if (mode == cudaAddressModeWrap || mode == cudaAddressModeMirror) {
        mode = cudaAddressModeClamp; /* as CUDA documents for unnormalized coordinates */
    }
    /* Far outside the texture every mode gives the same texels: keep the numbers small. */
    float lim = 4.0f * (float)n + 16.0f;
    c = c < -lim ? -lim : c > lim ? lim : c;
    Axis a;
    a.mode = mode;
    a.n = n;
    if (!linear) {
        a.k0 = (long long)floorf(c);
        a.w = 0.0f;
        return a;
    }
    /* x - 0.5 in fixed point with 8 bits of fraction, rounded to the nearest. */
    float xb = c - 0.5f;
    long long q = (long long)floor((double)xb * 256.0 + 0.5);
    a.k0 = q >= 0 ? q / 256 : -((-q + 255) / 256);
    a.w = (float)(q - a.k0 * 256) / 256.0f;
    return a;
}

/* A cubemap's face and its (s, t) in [0, 1] for the direction (x, y, z), by
 * the Programming Guide's table "Cubemap Fetch". */
int cube_face(float x, float y, float z, float *s, float *t)
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, sc, tc;
    int face;
    if (ax >= ay && ax >= az) {
        face = x >= 0 ? 0 : 1, m = ax, sc = x >= 0 ? -z : z, tc = -y;
    } else if (ay >= az) {
        face = y >= 0 ? 2 : 3, m = ay, sc = x, tc = y >= 0 ? z : -z;
    } else {
        face = z >= 0 ? 4 : 5, m = az, sc = z >= 0 ? x : -x, tc = -y;
    }
    if (m == 0) m = 1;
    *s = (sc / m + 1.0f) * 0.5f;
    *t = (tc / m + 1.0f) * 0.5f;
    return face;
}

/* Whether op reads shape (tex*). */
bool op_fits(int op, TexShape s)
{
    switch (op) {
    case CUDASIM_TEX_1DFETCH: return s == SHAPE_LINEAR;
    case CUDASIM_TEX_1D: return s == SHAPE_1D;
    case CUDASIM_TEX_2D: return s == SHAPE_2D || s == SHAPE_PITCH2D;
    case CUDASIM_TEX_3D: return s == SHAPE_3D;
    case CUDASIM_TEX_1D_LAYERED: return s == SHAPE_1D_LAYERED;
    case CUDASIM_TEX_2D_LAYERED: return s == SHAPE_2D_LAYERED;
    case CUDASIM_TEX_CUBEMAP: return s == SHAPE_CUBEMAP;
    case CUDASIM_TEX_CUBEMAP_LAYERED: return s == SHAPE_CUBEMAP_LAYERED;
    }
    return false;
}

const char *fits_text(int op)
{
    switch (op) {
    case CUDASIM_TEX_1DFETCH: return "tex1Dfetch reads linear memory (cudaResourceTypeLinear)";
    case CUDASIM_TEX_1D: return "tex1D reads a 1D cudaArray";
    case CUDASIM_TEX_2D: return "tex2D reads a 2D cudaArray or pitched 2D memory";
    case CUDASIM_TEX_3D: return "tex3D reads a 3D cudaArray";
    case CUDASIM_TEX_1D_LAYERED: return "tex1DLayered reads a layered 1D cudaArray";
    case CUDASIM_TEX_2D_LAYERED: return "tex2DLayered reads a layered 2D cudaArray";
    case CUDASIM_TEX_CUBEMAP: return "texCubemap reads a cubemap cudaArray";
    default: return "texCubemapLayered reads a layered cubemap cudaArray";
    }
}

/* Convert the result to T (its code) into out. */
void store_result(int code, bool floats, const float f[4], const int32_t iv[4], void *out)
{
    int n = code & 15, kind = (code >> 4) & 15, bytes = code >> 8;
    unsigned char *o = (unsigned char *)out;
    for (int c = 0; c < n; c++, o += bytes) {
        if (kind == 0) {
            float v = floats ? f[c] : (float)iv[c];
            memcpy(o, &v, 4);
            continue;
        }
        float x = f[c] != f[c] ? 0.0f : f[c]; /* (a float asked for as an integer: converted) */
        int32_t v = !floats ? iv[c] : x >= 2147483647.0f ? INT32_MAX : x <= -2147483648.0f ? INT32_MIN
                                                                                           : (int32_t)x;
        memcpy(o, &v, (size_t)bytes); /* the low bytes (little-endian) */
    }
}

} // namespace

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" void cudasim_tex_fetch(unsigned long long h, int op, float x, float y, float z, int i,
                                  int type, const char *name, void *out, const void *pc)
{
    memset(out, 0, 16);
    TexObject *tp = object_for(h, false, name, pc);
    if (!tp) return;
    TexObject &t = *tp;
    if (!op_fits(op, t.shape)) {
        if (first_misuse(pc, 1)) {
            std::string w = where(pc), o = object_text(t);
            report("%s in %s: %s is the wrong kind of texture: %s (the simulator returns zeros; "
                   "what a GPU returns is not defined)",
                   name, w.c_str(), o.c_str(), fits_text(op));
        }
        return;
    }
    open_object(t);
    Returns r = returns_of(t);
    int kind = (type >> 4) & 15;
    if ((kind == 0) != r.floats && first_misuse(pc, 2)) {
        std::string w = where(pc), o = object_text(t), tn = type_name(type);
        report("%s<%s> in %s: %s returns %s (the simulator converts the value; what a GPU "
               "returns is not defined): %s",
               name, tn.c_str(), w.c_str(), o.c_str(), r.floats ? "floats" : "integers",
               r.floats ? "ask for float, float2 or float4"
                        : "ask for the texture's element type, or create the texture with "
                          "readMode = cudaReadModeNormalizedFloat to read 8- and 16-bit "
                          "integers as floats");
    }
    const TexelFormat &f = t.fmt;
    float res[4] = {0, 0, 0, 0};
    double sum[4] = {0, 0, 0, 0};
    int32_t ires[4] = {0, 0, 0, 0};
    uintptr_t texels[8];
    unsigned nt = 0;
    bool check = g_check_level != 0;

    if (op == CUDASIM_TEX_1DFETCH) {
        if (i >= 0 && (size_t)i < t.width) {
            uintptr_t a = (uintptr_t)t.base + (size_t)i * f.bytes;
            if (!texel_written(t, a, f.bytes, name, pc, false) && check)
                report_texel_uninit(t, a, name, pc);
            if (r.floats) texel_floats((const unsigned char *)a, f, r, res);
            else texel_ints((const unsigned char *)a, f, ires);
            texels[nt++] = a;
        }
    } else {
        float c[3] = {x, y, z};
        int dims = op == CUDASIM_TEX_1D || op == CUDASIM_TEX_1D_LAYERED ? 1
                   : op == CUDASIM_TEX_3D                                 ? 3
                                                                          : 2;
        size_t slice0 = 0;
        bool cube = op == CUDASIM_TEX_CUBEMAP || op == CUDASIM_TEX_CUBEMAP_LAYERED;
        if (cube) {
            int face = cube_face(x, y, z, &c[0], &c[1]);
            long long layers = (long long)(t.depth / 6), layer = i < 0 ? 0 : i;
            if (layer >= layers) layer = layers - 1;
            slice0 = (size_t)(op == CUDASIM_TEX_CUBEMAP_LAYERED ? layer * 6 + face : face);
        } else if (op == CUDASIM_TEX_1D_LAYERED || op == CUDASIM_TEX_2D_LAYERED) {
            long long layer = i < 0 ? 0 : (long long)i;
            slice0 = (size_t)(layer >= (long long)t.depth ? (long long)t.depth - 1 : layer);
        }
        bool linear = t.tex.filterMode == cudaFilterModeLinear;
        long long sizes[3] = {(long long)t.width, (long long)t.height, (long long)t.depth};
        Axis ax[3];
        for (int d = 0; d < dims; d++)
            ax[d] = axis(c[d], sizes[d], cube ? (int)cudaAddressModeClamp : (int)t.tex.addressMode[d],
                         cube || t.tex.normalizedCoords, linear);
        int corners = linear ? 1 << dims : 1;
        for (int k = 0; k < corners; k++) {
            double w = 1.0; /* exact: at most 3 factors of 9 bits */
            long long idx[3] = {0, 0, 0};
            bool border = false;
            for (int d = 0; d < dims; d++) {
                int hi = (k >> d) & 1;
                w *= hi ? (double)ax[d].w : 1.0 - (double)ax[d].w;
                idx[d] = address(ax[d].k0 + hi, ax[d].n, ax[d].mode);
                if (idx[d] < 0) border = true;
            }
            float tf[4];
            int32_t ti[4];
            if (border) {
                for (int ch = 0; ch < 4; ch++) {
                    tf[ch] = t.tex.borderColor[ch];
                    memcpy(&ti[ch], &t.tex.borderColor[ch], 4); /* integers: the bits, as CUDA says */
                }
            } else {
                size_t s = dims == 3 ? (size_t)idx[2] : slice0;
                uintptr_t a = (uintptr_t)t.base + s * t.slice + (size_t)idx[1] * t.pitch +
                              (size_t)idx[0] * f.bytes;
                texels[nt++] = a;
                if (!texel_written(t, a, f.bytes, name, pc, false) && check && (w != 0.0 || !linear))
                    report_texel_uninit(t, a, name, pc);
                if (r.floats) texel_floats((const unsigned char *)a, f, r, tf);
                else texel_ints((const unsigned char *)a, f, ti);
            }
            if (!linear) {
                memcpy(res, tf, sizeof res);
                memcpy(ires, ti, sizeof ires);
            } else {
                for (int ch = 0; ch < 4; ch++) sum[ch] += w * (double)tf[ch];
            }
        }
        if (linear)
            for (int ch = 0; ch < 4; ch++) res[ch] = (float)sum[ch];
    }
    store_result(type, r.floats, res, ires, out);
    if (g_launch.profiling && nt) profile_texture(texels, nt, (unsigned)f.bytes, TEX_FETCH, pc);
}

extern "C" void cudasim_surf_access(unsigned long long h, int op, int x, int y, int z, int mode,
                                    void *data, unsigned size, int write, const char *name,
                                    const void *pc)
{
    if (!write) memset(data, 0, size);
    TexObject *tp = object_for(h, true, name, pc);
    if (!tp) return;
    TexObject &t = *tp;
    static const TexShape shape_of_op[] = {SHAPE_LINEAR,  SHAPE_1D,         SHAPE_2D,
                                           SHAPE_3D,      SHAPE_1D_LAYERED, SHAPE_2D_LAYERED,
                                           SHAPE_CUBEMAP, SHAPE_CUBEMAP_LAYERED};
    if (op < CUDASIM_SURF_1D || op > CUDASIM_SURF_CUBEMAP_LAYERED || shape_of_op[op] != t.shape) {
        if (first_misuse(pc, 3)) {
            std::string w = where(pc), o = object_text(t);
            report("%s in %s: %s is the wrong kind of surface for %s (the simulator %s; what a "
                   "GPU does is not defined)",
                   name, w.c_str(), o.c_str(), name, write ? "drops the write" : "returns zeros");
        }
        return;
    }
    open_object(t);
    long long row = (long long)(t.width * t.fmt.bytes), rows = (long long)t.height,
              slices = (long long)t.depth;
    long long X = x, Y = y, Z = z;
    bool inside = X >= 0 && X + (long long)size <= row && Y >= 0 && Y < rows && Z >= 0 && Z < slices;
    if (!inside) {
        if (mode == cudaBoundaryModeZero) return; /* zeros read, the write dropped */
        if (mode == cudaBoundaryModeClamp) {
            long long last = row - (long long)t.fmt.bytes;
            X = X < 0 ? 0 : X > last ? last : X;
            if (X + (long long)size > row) X = row - (long long)size < 0 ? 0 : row - (long long)size;
            Y = Y < 0 ? 0 : Y >= rows ? rows - 1 : Y;
            Z = Z < 0 ? 0 : Z >= slices ? slices - 1 : Z;
        } else {
            {
                std::string w = where(pc), o = object_text(t);
                char at[160], extent[96] = "";
                if (t.shape == SHAPE_1D)
                    snprintf(at, sizeof at, "byte %d", x);
                else if (t.shape == SHAPE_2D)
                    snprintf(at, sizeof at, "byte %d of row %d", x, y);
                else
                    snprintf(at, sizeof at, "byte %d of row %d of %s %d", x, y,
                             t.shape == SHAPE_3D ? "slice" : t.shape == SHAPE_CUBEMAP ? "face" : "layer", z);
                if (slices > 1)
                    snprintf(extent, sizeof extent, ", and which has %lld rows and %lld slices",
                             rows, slices);
                else if (rows > 1)
                    snprintf(extent, sizeof extent, ", and which has %lld rows", rows);
                report("Invalid surface %s of size %u bytes in %s: %s at %s is outside the array "
                       "of %s, whose rows hold %lld bytes (%zu elements of %zu bytes)%s; with "
                       "cudaBoundaryModeTrap an access outside the array traps (the simulator "
                       "stops the kernel, with CUDA's error for an illegal memory access; "
                       "cudaBoundaryModeClamp or cudaBoundaryModeZero would not)",
                       write ? "write" : "read", size, w.c_str(), name, at, o.c_str(), row,
                       t.width, t.fmt.bytes, extent);
            }
            if (g_launch.in_kernel) abort_launch(cudaErrorIllegalAddress);
            return;
        }
    }
    uintptr_t a = (uintptr_t)t.base + (size_t)Z * t.slice + (size_t)Y * t.pitch + (size_t)X;
    bool written = texel_written(t, a, size, name, pc, write != 0);
    if (write) {
        memcpy((void *)a, data, size);
        mark_written((const void *)a, size);
    } else {
        if (!written && g_check_level != 0) report_texel_uninit(t, a, name, pc);
        memcpy(data, (const void *)a, size);
    }
    if (g_launch.profiling) profile_texture(&a, 1, size, write ? SURF_STORE : SURF_LOAD, pc);
}
