/*
 * mma.h for the CUDA simulator: the warp matrix functions (WMMA,
 * nvcuda::wmma): for the shapes 16x16x16, 32x8x16 and 8x32x16, __half or
 * __nv_bfloat16 multiplicands with float (or, for __half, __half)
 * accumulators, and signed or unsigned char ones with int accumulators; for
 * 16x16x8, tf32 multiplicands (held as float) with float accumulators; for
 * 8x8x4, double. fragment (num_elements, x[], element_type), fill_fragment,
 * load_matrix_sync, store_matrix_sync (mem_row_major, mem_col_major),
 * mma_sync (with satf for int) and __float_to_tf32.
 *
 * A fragment's elements are spread over the warp's 32 lanes, each holding
 * num_elements of them (the same counts as NVIDIA's, so a program's loops over
 * x[] are the same): lane L holds the L-th run of the tile's elements in the
 * fragment's memory order (for an accumulator, in row-major order) and, where
 * num_elements counts each element more than once (__half multiplicands),
 * the runs of lanes L + 32/copies, ... after it. CUDA leaves this mapping
 * unspecified; a program may scale or convert x[] element by element, never
 * rely on which element is where.
 *
 * load_matrix_sync, store_matrix_sync and mma_sync are collectives of the whole
 * warp (exec/warp_collective.cpp): a lane that does not reach the same call is
 * reported as a divergent warp operation is. Each lane loads or stores its own
 * run (16-byte pieces where the run is contiguous, one element at a time
 * otherwise), through the simulator's checked memory, at the program's line:
 * memcheck, initcheck and racecheck see every element, and the profiler
 * counts them as the lane's loads or stores, shared or global by the address.
 * CUDA documents the pointer as 256-bit aligned, yet NVIDIA's own
 * immaTensorCoreGemm loads char tiles that are only 16 bytes aligned, and
 * GPUs run it; so here the pointer must be 16-byte aligned (each row's
 * 16-byte pieces), ldm a multiple of 16 bytes (8 __half or __nv_bfloat16, 16
 * char, 4 float or int, 2 double), and a store's ldm at least
 * the tile's row (or column) length; a program that breaks one of them is
 * reported and its launch fails, with a misaligned address where that is what
 * a GPU would give. mma_sync computes D = A * B + C in the accumulator's type
 * (D's): each product a_ik * b_kj rounded to that type, added to the sum in k
 * order and rounded (in float the products of __half, __nv_bfloat16 or tf32
 * are exact, so only the additions round; in int all is exact, wrapping on
 * overflow, or clamped with satf). A tf32 element is taken as its tf32 part
 * (the float's top 19 bits), as tensor cores read it; __float_to_tf32 rounds
 * a float to tf32 (to nearest, ties away from zero, as cvt.rna.tf32.f32). A
 * GPU's tensor cores may add in another order or keep more bits inside the
 * sum.
 *
 * Not here (refused when compiled): the int4 and binary fragments
 * (experimental::precision) and their shapes.
 */
#ifndef CUDASIM_MMA_H
#define CUDASIM_MMA_H

#ifndef CUDASIM_KERNEL_H
#error "mma.h is CUDA C++: include it in a .cu file"
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda_bf16.h"
#include "cuda_fp16.h"

namespace nvcuda {
namespace wmma {

struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;
enum layout_t { mem_row_major, mem_col_major };
namespace precision {
struct tf32;
} // namespace precision
namespace experimental {
namespace precision {
struct u4;
struct s4;
struct b1;
} // namespace precision
} // namespace experimental

} // namespace wmma
} // namespace nvcuda

namespace cudasim_wmma {

using namespace nvcuda::wmma;

/* What a fragment's x[] holds: a tf32 fragment's elements are floats. */
template <typename T>
struct stored {
    typedef T type;
};
template <>
struct stored<precision::tf32> {
    typedef float type;
};

/* What a fragment is: its tile's rows and columns, its elements per lane,
 * and whether the simulator has it. */
template <typename Use, int M, int N, int K, typename T, typename Layout>
struct traits {
    static constexpr bool acc = ::std::is_same<Use, accumulator>::value;
    static constexpr bool half = ::std::is_same<T, __half>::value;
    static constexpr bool bf16 = ::std::is_same<T, __nv_bfloat16>::value;
    static constexpr bool int8 = ::std::is_same<T, signed char>::value ||
                                 ::std::is_same<T, unsigned char>::value;
    static constexpr bool tf32 = ::std::is_same<T, precision::tf32>::value;
    static constexpr bool f64 = ::std::is_same<T, double>::value;
    static constexpr bool m16 = (M == 16 && N == 16 && K == 16) || (M == 32 && N == 8 && K == 16) ||
                                (M == 8 && N == 32 && K == 16);
    /* The shapes of each type: 16x16x8 for tf32 (and its float accumulator), 8x8x4 for double. */
    static constexpr bool shape = f64 ? (M == 8 && N == 8 && K == 4)
                                  : tf32 ? (M == 16 && N == 16 && K == 8)
                                  : (acc && ::std::is_same<T, float>::value)
                                      ? (m16 || (M == 16 && N == 16 && K == 8))
                                      : m16;
    static constexpr bool type = acc ? (::std::is_same<T, float>::value || half ||
                                        ::std::is_same<T, int>::value || f64)
                                     : (half || bf16 || int8 || tf32 || f64);
    static constexpr bool use = acc || ::std::is_same<Use, matrix_a>::value ||
                                ::std::is_same<Use, matrix_b>::value;
    static constexpr bool layout = acc ? ::std::is_void<Layout>::value
                                       : (::std::is_same<Layout, row_major>::value ||
                                          ::std::is_same<Layout, col_major>::value);
    static_assert(use, "a WMMA fragment's use is matrix_a, matrix_b or accumulator");
    static_assert(type,
                  "the CUDA simulator's WMMA has __half, __nv_bfloat16, signed char, unsigned "
                  "char, tf32 and double matrix_a and matrix_b fragments, and float, __half, int "
                  "and double accumulators (not the int4 or binary ones)");
    /* (the type first: a shape of a type the simulator lacks is that type's) */
    static_assert(shape, "the CUDA simulator's WMMA has the shapes 16x16x16, 32x8x16 and 8x32x16 "
                         "(__half, __nv_bfloat16, signed and unsigned char), 16x16x8 (tf32) and "
                         "8x8x4 (double)");
    static_assert(layout,
                  "a matrix_a or matrix_b fragment takes its layout (row_major or col_major), an "
                  "accumulator none (its load and store name theirs)");
    static constexpr int rows = ::std::is_same<Use, matrix_b>::value ? K : M;
    static constexpr int cols = ::std::is_same<Use, matrix_a>::value ? K : N;
    static constexpr int run = rows * cols / 32; /* a lane's own elements */
    static constexpr int elements = half && !acc ? 16 : run;
    static constexpr int copies = elements / run;
    static constexpr bool col_major_mem = ::std::is_same<Layout, col_major>::value;
};

/* A fragment's storage, as NVIDIA's __frag_base has it. */
template <typename T, int Size>
struct __attribute__((aligned(8))) frag_base {
    enum { num_elements = Size, num_storage_elements = Size };
    typedef typename stored<T>::type element_type;
    typedef typename stored<T>::type storage_element_type;
    typename stored<T>::type x[Size];
};

/* The simulator's own functions of a collective (not instrumented: they move
 * the lanes' registers). */
#define CUDASIM_WMMA_FN static inline __attribute__((always_inline, no_sanitize_thread))

/* The value of one element, exactly, as float: a __half by a table of all
 * 65536 (made once), a __nv_bfloat16 by its bits. */
static __attribute__((noinline)) const float *half_values()
{
    static float *table = nullptr;
    if (!table) {
        table = new float[65536];
        for (unsigned i = 0; i < 65536; i++) {
            __half_raw r;
            r.x = (unsigned short)i;
            table[i] = __half2float(__half(r));
        }
    }
    return table;
}
/* The value of an element in the type mma_sync computes in (Out): float for
 * __half, __nv_bfloat16, float and tf32 (its top 19 bits), int, double. */
CUDASIM_WMMA_FN float tf32_part(float v)
{
    uint32_t w;
    memcpy(&w, &v, sizeof w);
    w &= 0xffffe000u;
    memcpy(&v, &w, sizeof v);
    return v;
}
CUDASIM_WMMA_FN float to_float(float v) { return v; }
CUDASIM_WMMA_FN float to_float(__half v)
{
    static const float *table = half_values();
    unsigned short bits;
    memcpy(&bits, &v, sizeof bits);
    return table[bits];
}
CUDASIM_WMMA_FN float to_float(__nv_bfloat16 v)
{
    unsigned short bits;
    memcpy(&bits, &v, sizeof bits);
    const uint32_t w = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &w, sizeof f);
    return f;
}

template <typename Out, typename T>
CUDASIM_WMMA_FN Out value_as(T v)
{
    if constexpr (::std::is_same<Out, float>::value) return to_float(v);
    else return (Out)v;
}

/* What a lane gives the warp's collective. */
struct Ctx {
    const char *what; /* "load_matrix_sync", ... */
    const void *pc;
    int settled;
    void *frag;                  /* the lane's fragment (load, store: d) */
    const void *a, *b, *c;       /* mma_sync's operands */
};

/* The lane's index in its warp. */
CUDASIM_WMMA_FN unsigned lane_id()
{
    return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32;
}

/* The lanes are all at one call (the same function at the same line), or
 * the program is reported. */
static __attribute__((no_sanitize_thread)) void same_call(void *const *ctxs)
{
    const Ctx *mine = (const Ctx *)ctxs[lane_id()]; /* (the last lane to come) */
    for (int l = 0; l < 32; l++) {
        const Ctx *c = (const Ctx *)ctxs[l];
        if (c->pc != mine->pc || strcmp(c->what, mine->what) != 0) {
            char what[300];
            snprintf(what, sizeof what,
                     "this lane is at this %s, lane %d of its warp at %s %s: every lane of a "
                     "warp calls the same warp matrix function together (one in a branch that "
                     "lanes take differently is undefined)",
                     mine->what, l, strcmp(c->what, mine->what) ? "a" : "another", c->what);
            cudasim_device_fault(cudaErrorLaunchFailure, what, mine->pc);
        }
    }
}

/* After the collective: this lane's call was settled with the others'. */
static inline void settled_or_fault(const Ctx &ctx)
{
    if (!ctx.settled) {
        char what[300];
        snprintf(what, sizeof what,
                 "%s: not every lane of the warp reached it (a warp matrix function in a branch "
                 "that lanes take differently)",
                 ctx.what);
        cudasim_device_fault(cudaErrorLaunchFailure, what, ctx.pc);
    }
}

/* The offset, in elements from the tile's start, of element e of the
 * memory order (run r's element u is e = r * run + u) of a tile of rows x
 * cols stored with leading dimension ldm, row-major or column-major. */
template <typename Tr>
CUDASIM_WMMA_FN size_t offset_of(int e, bool col_major, unsigned ldm)
{
    if (col_major) return (size_t)(e / Tr::rows) * ldm + e % Tr::rows;
    return (size_t)(e / Tr::cols) * ldm + e % Tr::cols;
}

/* WMMA's rules for the pointer and ldm, checked (the same in every lane). */
template <typename T, typename Tr>
static inline void check_rules(const char *call, const void *p, unsigned ldm, bool col_major,
                               bool store, const void *pc)
{
    char what[400];
    const unsigned multiple = 16 / sizeof(T);
    const char *tname = ::std::is_same<T, float>::value    ? "float"
                        : ::std::is_same<T, int>::value    ? "int"
                        : ::std::is_same<T, double>::value ? "double"
                        : Tr::int8                         ? "char"
                        : Tr::bf16                         ? "__nv_bfloat16"
                                                           : "__half";
    if ((uintptr_t)p % 16) {
        snprintf(what, sizeof what,
                 "%s: the pointer %p is not even 16-byte aligned (WMMA documents mptr as 256-bit "
                 "aligned: a multiple of 32 bytes) (CUDA: the behavior is undefined; on a GPU a "
                 "misaligned address)",
                 call, p);
        cudasim_device_fault(cudaErrorMisalignedAddress, what, pc);
    }
    if (ldm % multiple) {
        snprintf(what, sizeof what,
                 "%s: ldm %u is not a multiple of %u (%s elements: 16 bytes), as WMMA requires, "
                 "so the tile's %s do not start 16-byte aligned (CUDA: the behavior is "
                 "undefined; on a GPU a misaligned address)",
                 call, ldm, multiple, tname, col_major ? "columns" : "rows");
        cudasim_device_fault(cudaErrorMisalignedAddress, what, pc);
    }
    const unsigned extent = col_major ? Tr::rows : Tr::cols;
    if (store && ldm < extent) {
        snprintf(what, sizeof what,
                 "%s: ldm %u is less than the %u elements of the tile's %s, so they overlap in "
                 "memory (ldm is the distance between the starts of two %s, in elements)",
                 call, ldm, extent, col_major ? "columns" : "rows", col_major ? "columns" : "rows");
        cudasim_device_fault(cudaErrorLaunchFailure, what, pc);
    }
}

/* The lane's run, element u of which is at offset_of(run * lane + u): its
 * accesses (16-byte pieces where contiguous), then the copy. */
template <typename T, typename Tr>
CUDASIM_WMMA_FN void lane_run(T *base, unsigned ldm, bool col_major, T *x, bool store, const void *pc)
{
    const int first = (int)lane_id() * Tr::run;
    const size_t at = offset_of<Tr>(first, col_major, ldm);
    const bool contiguous = offset_of<Tr>(first + Tr::run - 1, col_major, ldm) == at + Tr::run - 1;
    const int kind = store ? 1 : 0;
    if (contiguous) {
        char *p = (char *)(base + at);
        const size_t bytes = Tr::run * sizeof(T);
        for (size_t k = 0; k < bytes; k += 16)
            cudasim_library_access(p + k, bytes - k < 16 ? bytes - k : 16, kind,
                                   CUDASIM_ACCESS_VECTOR, pc);
        if (store) memcpy(p, x, bytes);
        else memcpy(x, p, bytes);
        return;
    }
    for (int u = 0; u < Tr::run; u++) {
        T *e = base + offset_of<Tr>(first + u, col_major, ldm);
        cudasim_library_access(e, sizeof(T), kind, CUDASIM_ACCESS_VECTOR, pc);
        if (store) memcpy(e, &x[u], sizeof(T));
        else memcpy(&x[u], e, sizeof(T));
    }
}

/* A load's collective: each lane has its own run; the copies of the others'
 * that it holds too are filled in. */
template <typename Frag, typename Tr>
static __attribute__((no_sanitize_thread)) void settle_load(void *const *ctxs)
{
    same_call(ctxs);
    for (int l = 0; l < 32; l++) {
        Ctx *c = (Ctx *)ctxs[l];
        Frag *f = (Frag *)c->frag;
        for (int k = 1; k < Tr::copies; k++) {
            const Frag *o = (const Frag *)((Ctx *)ctxs[(l + k * 32 / Tr::copies) % 32])->frag;
            memcpy(&f->x[k * Tr::run], &o->x[0], Tr::run * sizeof(f->x[0]));
        }
    }
    for (int l = 0; l < 32; l++) ((Ctx *)ctxs[l])->settled = 1;
}

/* A store's collective: the lanes stored their runs before it. */
static __attribute__((no_sanitize_thread)) void settle_store(void *const *ctxs)
{
    same_call(ctxs);
    for (int l = 0; l < 32; l++) ((Ctx *)ctxs[l])->settled = 1;
}

/* A tile of a fragment, gathered from the 32 lanes' own runs: element (i, j)
 * at out[i * cols + j], as Out. */
template <typename Tr, typename T, typename Out>
CUDASIM_WMMA_FN void gather(void *const *ctxs, const void *Ctx::*which, Out *out)
{
    for (int l = 0; l < 32; l++) {
        const T *x = (const T *)(((const Ctx *)ctxs[l])->*which);
        for (int u = 0; u < Tr::run; u++) {
            const int e = l * Tr::run + u;
            int i, j;
            if (Tr::col_major_mem) {
                j = e / Tr::rows;
                i = e % Tr::rows;
            } else {
                i = e / Tr::cols;
                j = e % Tr::cols;
            }
            out[i * Tr::cols + j] = Tr::tf32 ? (Out)tf32_part((float)x[u]) : value_as<Out>(x[u]);
        }
    }
}

/* mma_sync's collective: D = A * B + C, once for the warp, in D's type (W: what the
 * elements are computed as; Satf: int sums clamped rather than wrapped). */
template <typename TrA, typename TA, typename TrB, typename TrC, typename TC, typename TrD,
          typename TD, bool Satf>
static __attribute__((no_sanitize_thread)) void settle_mma(void *const *ctxs)
{
    same_call(ctxs);
    constexpr int M = TrA::rows, K = TrA::cols, N = TrB::cols;
    typedef typename ::std::conditional<::std::is_same<TD, __half>::value, float, TD>::type W;
    W a[M * K], b[K * N], c[M * N];
    gather<TrA, typename stored<TA>::type, W>(ctxs, &Ctx::a, a);
    gather<TrB, typename stored<TA>::type, W>(ctxs, &Ctx::b, b);
    gather<TrC, TC, W>(ctxs, &Ctx::c, c);
    TD d[M * N];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            if constexpr (::std::is_same<TD, int>::value) {
                long long s = c[i * N + j]; /* exact; then wrapped, or clamped (satf) */
                for (int k = 0; k < K; k++) {
                    s += (long long)a[i * K + k] * b[k * N + j];
                    if (Satf) s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
                }
                const int v = (int)(uint32_t)(unsigned long long)s;
                memcpy(&d[i * N + j], &v, sizeof v);
            } else if constexpr (!::std::is_same<TD, __half>::value) { /* float, double */
                W s = c[i * N + j]; /* a __half C widens exactly */
                for (int k = 0; k < K; k++) s += a[i * K + k] * b[k * N + j];
                memcpy(&d[i * N + j], &s, sizeof s);
            } else { /* __half: each product and each sum rounded to __half */
                __half s = __float2half_rn(c[i * N + j]);
                for (int k = 0; k < K; k++)
                    s = __hadd(s, __hmul(__float2half_rn(a[i * K + k]), __float2half_rn(b[k * N + j])));
                memcpy(&d[i * N + j], &s, sizeof s);
            }
        }
    for (int l = 0; l < 32; l++) {
        Ctx *ctx = (Ctx *)ctxs[l];
        TD *x = (TD *)ctx->frag;
        memcpy(x, &d[l * TrD::run], TrD::run * sizeof(TD));
        ctx->settled = 1;
    }
}

} // namespace cudasim_wmma

namespace nvcuda {
namespace wmma {

template <typename Use, int m, int n, int k, typename T, typename Layout = void>
class fragment
    : public cudasim_wmma::frag_base<T, cudasim_wmma::traits<Use, m, n, k, T, Layout>::elements> {
};

template <typename Use, int m, int n, int k, typename T, typename Layout>
inline void fill_fragment(fragment<Use, m, n, k, T, Layout> &f,
                          const typename cudasim_wmma::stored<T>::type &v)
{
    for (int i = 0; i < fragment<Use, m, n, k, T, Layout>::num_elements; i++) f.x[i] = v;
}

/* A matrix_a or matrix_b tile, in the fragment's layout. */
template <typename Use, int m, int n, int k, typename T, typename Layout>
__attribute__((noinline, no_sanitize_thread)) void
load_matrix_sync(fragment<Use, m, n, k, T, Layout> &f, const typename cudasim_wmma::stored<T>::type *p,
                 unsigned ldm, const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    typedef cudasim_wmma::traits<Use, m, n, k, T, Layout> Tr;
    typedef typename cudasim_wmma::stored<T>::type S;
    static_assert(!Tr::acc, "load_matrix_sync of an accumulator takes the layout of the memory: "
                            "load_matrix_sync(c, p, ldm, mem_row_major or mem_col_major)");
    const void *pc = __builtin_return_address(0);
    cudasim_wmma::check_rules<S, Tr>("load_matrix_sync", p, ldm, Tr::col_major_mem, false, pc);
    cudasim_wmma::lane_run<S, Tr>(const_cast<S *>(p), ldm, Tr::col_major_mem, f.x, false, pc);
    cudasim_wmma::Ctx ctx = {"load_matrix_sync", pc, 0, &f, nullptr, nullptr, nullptr};
    cudasim_warp_collective(&ctx, cudasim_wmma::settle_load<fragment<Use, m, n, k, T, Layout>, Tr>,
                            file, line);
    cudasim_wmma::settled_or_fault(ctx);
}

/* An accumulator tile, in the layout given. */
template <typename Use, int m, int n, int k, typename T, typename Layout>
__attribute__((noinline, no_sanitize_thread)) void
load_matrix_sync(fragment<Use, m, n, k, T, Layout> &f, const T *p, unsigned ldm, layout_t layout,
                 const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    typedef cudasim_wmma::traits<Use, m, n, k, T, Layout> Tr;
    static_assert(Tr::acc, "load_matrix_sync of a matrix_a or matrix_b fragment takes no layout: "
                           "the fragment's type has it");
    const void *pc = __builtin_return_address(0);
    if (layout != mem_row_major && layout != mem_col_major) {
        char what[200];
        snprintf(what, sizeof what,
                 "load_matrix_sync: layout %d is neither mem_row_major nor mem_col_major", (int)layout);
        cudasim_device_fault(cudaErrorLaunchFailure, what, pc);
    }
    cudasim_wmma::check_rules<T, Tr>("load_matrix_sync", p, ldm, layout == mem_col_major, false, pc);
    /* (an accumulator's runs are in row-major order, whatever the memory's) */
    typedef cudasim_wmma::traits<Use, m, n, k, T, Layout> RowTr;
    const int first = (int)cudasim_wmma::lane_id() * Tr::run;
    if (layout == mem_row_major) {
        cudasim_wmma::lane_run<T, RowTr>(const_cast<T *>(p), ldm, false, f.x, false, pc);
    } else {
        for (int u = 0; u < Tr::run; u++) {
            const int e = first + u, i = e / Tr::cols, j = e % Tr::cols;
            const T *at = p + (size_t)j * ldm + i;
            cudasim_library_access(at, sizeof(T), 0, CUDASIM_ACCESS_VECTOR, pc);
            memcpy(&f.x[u], at, sizeof(T));
        }
    }
    cudasim_wmma::Ctx ctx = {"load_matrix_sync", pc, 0, &f, nullptr, nullptr, nullptr};
    cudasim_warp_collective(&ctx, cudasim_wmma::settle_load<fragment<Use, m, n, k, T, Layout>, Tr>,
                            file, line);
    cudasim_wmma::settled_or_fault(ctx);
}

template <typename Use, int m, int n, int k, typename T, typename Layout>
__attribute__((noinline, no_sanitize_thread)) void
store_matrix_sync(T *p, const fragment<Use, m, n, k, T, Layout> &f, unsigned ldm, layout_t layout,
                  const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    typedef cudasim_wmma::traits<Use, m, n, k, T, Layout> Tr;
    static_assert(Tr::acc, "store_matrix_sync stores an accumulator");
    const void *pc = __builtin_return_address(0);
    if (layout != mem_row_major && layout != mem_col_major) {
        char what[200];
        snprintf(what, sizeof what,
                 "store_matrix_sync: layout %d is neither mem_row_major nor mem_col_major",
                 (int)layout);
        cudasim_device_fault(cudaErrorLaunchFailure, what, pc);
    }
    cudasim_wmma::check_rules<T, Tr>("store_matrix_sync", p, ldm, layout == mem_col_major, true, pc);
    T x[Tr::run];
    memcpy(x, f.x, sizeof x);
    if (layout == mem_row_major) {
        cudasim_wmma::lane_run<T, Tr>(p, ldm, false, x, true, pc);
    } else {
        const int first = (int)cudasim_wmma::lane_id() * Tr::run;
        for (int u = 0; u < Tr::run; u++) {
            const int e = first + u, i = e / Tr::cols, j = e % Tr::cols;
            T *at = p + (size_t)j * ldm + i;
            cudasim_library_access(at, sizeof(T), 1, CUDASIM_ACCESS_VECTOR, pc);
            memcpy(at, &x[u], sizeof(T));
        }
    }
    cudasim_wmma::Ctx ctx = {"store_matrix_sync", pc, 0, nullptr, nullptr, nullptr, nullptr};
    cudasim_warp_collective(&ctx, cudasim_wmma::settle_store, file, line);
    cudasim_wmma::settled_or_fault(ctx);
}

/* D = A * B + C, for the whole warp (satf: an int accumulator's sums clamped to int's range
 * rather than wrapped). */
template <int m, int n, int k, typename TD, typename TAB, typename LA, typename LB, typename TC>
__attribute__((noinline, no_sanitize_thread)) void
mma_sync(fragment<accumulator, m, n, k, TD> &d, const fragment<matrix_a, m, n, k, TAB, LA> &a,
         const fragment<matrix_b, m, n, k, TAB, LB> &b, const fragment<accumulator, m, n, k, TC> &c,
         bool satf = false, const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    typedef cudasim_wmma::traits<matrix_a, m, n, k, TAB, LA> TrA;
    typedef cudasim_wmma::traits<matrix_b, m, n, k, TAB, LB> TrB;
    typedef cudasim_wmma::traits<accumulator, m, n, k, TC, void> TrC;
    typedef cudasim_wmma::traits<accumulator, m, n, k, TD, void> TrD;
    static_assert(!TrA::bf16 || (::std::is_same<TD, float>::value && ::std::is_same<TC, float>::value),
                  "mma_sync of __nv_bfloat16 multiplicands accumulates in float");
    static_assert(TrA::int8 == (::std::is_same<TD, int>::value && ::std::is_same<TC, int>::value),
                  "mma_sync of signed or unsigned char multiplicands accumulates in int, and only "
                  "they do");
    static_assert(TrA::f64 == (::std::is_same<TD, double>::value && ::std::is_same<TC, double>::value),
                  "mma_sync of double multiplicands accumulates in double, and only they do");
    static_assert(!TrA::tf32 || (::std::is_same<TD, float>::value && ::std::is_same<TC, float>::value),
                  "mma_sync of tf32 multiplicands accumulates in float");
    const void *pc = __builtin_return_address(0);
    cudasim_wmma::Ctx ctx = {"mma_sync", pc, 0, d.x, a.x, b.x, c.x};
    if (satf)
        cudasim_warp_collective(&ctx, cudasim_wmma::settle_mma<TrA, TAB, TrB, TrC, TC, TrD, TD, true>,
                                file, line);
    else
        cudasim_warp_collective(&ctx, cudasim_wmma::settle_mma<TrA, TAB, TrB, TrC, TC, TrD, TD, false>,
                                file, line);
    cudasim_wmma::settled_or_fault(ctx);
}

/* A float rounded to tf32 (10 bits of mantissa), to nearest, ties away from zero, as
 * cvt.rna.tf32.f32 rounds it (NaN and infinities as they are). */
inline float __float_to_tf32(float in)
{
    uint32_t w;
    memcpy(&w, &in, sizeof w);
    if ((w & 0x7f800000u) != 0x7f800000u) w = (w + 0x1000u) & 0xffffe000u;
    memcpy(&in, &w, sizeof in);
    return in;
}

} // namespace wmma
} // namespace nvcuda

#endif /* CUDASIM_MMA_H */
