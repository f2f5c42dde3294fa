/*
 * api_copy.cpp: the runtime API of copies and memsets: cudaMemcpy of every
 * kind (synchronous, async, pitched, to and from __device__ and __constant__
 * variables) and cudaMemset, each checked as CUDA checks it (the kind against
 * where the pointers point, the sizes against the buffers) before it runs.
 */
#include <cstring>

#include "../internal.h"
#include "../profile/profile.h"

namespace cudasim {
namespace internal {

namespace {

/* What p points to: 'd' device memory, 'm' managed memory (host and device
 * both), 'f' a freed device buffer, 'h' host memory. */
char kind_of(const void *p)
{
    const Alloc *a = find_alloc(p);
    uintptr_t s;
    if (a && a->device) return a->managed ? 'm' : 'd';
    if (find_symbol(p, &s)) return 'd';
    if (find_freed((uintptr_t)p)) return 'f';
    return 'h';
}

/* A report that pointer p (the copy's `which`) was freed. */
cudaError_t report_freed_pointer(const char *call, const char *which, const void *p)
{
    uintptr_t start;
    const Freed *f = find_freed((uintptr_t)p, &start);
    std::string what = f ? freed_text(*f) : std::string("a freed buffer");
    report("%s: the %s pointer %p is in %s: a use after free (CUDA reports: invalid argument)",
           call, which, p, what.c_str());
    return cudaErrorInvalidValue;
}

} // namespace

cudaError_t check_device_range(const char *call, const char *which, const void *p, size_t n)
{
    uintptr_t start;
    const Alloc *a = find_alloc(p, &start);
    size_t size;
    if (a && a->device) {
        size = a->size;
    } else if (const size_t *sym = find_symbol(p, &start)) {
        size = *sym;
    } else if (find_freed((uintptr_t)p)) {
        return report_freed_pointer(call, which, p);
    } else {
        report("%s: the %s pointer %p is not device memory (a host pointer; did you swap dst and "
               "src?) (CUDA reports: invalid argument)",
               call, which, p);
        return cudaErrorInvalidValue;
    }
    size_t left = start + size - (uintptr_t)p;
    if (n > left) {
        report("%s: %zu bytes from the %s pointer, but the device buffer has only %zu bytes "
               "from there (it holds %zu) (CUDA reports: invalid argument)",
               call, n, which, left, size);
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

namespace {

const char *kind_name(cudaMemcpyKind k)
{
    switch (k) {
    case cudaMemcpyHostToHost: return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice: return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost: return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice: return "cudaMemcpyDeviceToDevice";
    case cudaMemcpyDefault: return "cudaMemcpyDefault";
    }
    return "an unknown kind";
}

/* The checks of a copy (reported; the caller fails). */
cudaError_t check_copy(const char *call, void *dst, const void *src, size_t n, cudaMemcpyKind kind)
{
    if (n == 0) return cudaSuccess;
    if (!dst || !src) {
        report("%s: a NULL pointer (CUDA reports: invalid argument)", call);
        return cudaErrorInvalidValue;
    }
    char want_dst, want_src;
    switch (kind) {
    case cudaMemcpyHostToHost: want_dst = 'h', want_src = 'h'; break;
    case cudaMemcpyHostToDevice: want_dst = 'd', want_src = 'h'; break;
    case cudaMemcpyDeviceToHost: want_dst = 'h', want_src = 'd'; break;
    case cudaMemcpyDeviceToDevice: want_dst = 'd', want_src = 'd'; break;
    case cudaMemcpyDefault: want_dst = kind_of(dst), want_src = kind_of(src); break;
    default:
        report("%s: copy kind %d does not exist (CUDA reports: invalid copy direction for "
               "memcpy)",
               call, (int)kind);
        return cudaErrorInvalidMemcpyDirection;
    }
    char got_dst = kind_of(dst), got_src = kind_of(src);
    if (got_dst == 'f') return report_freed_pointer(call, "destination", dst);
    if (got_src == 'f') return report_freed_pointer(call, "source", src);
    /* Managed memory is both. */
    if (got_dst == 'm') got_dst = want_dst;
    if (got_src == 'm') got_src = want_src;
    if (want_dst == 'm') want_dst = 'd';
    if (want_src == 'm') want_src = 'd';
    if (got_dst != want_dst || got_src != want_src) {
        report("%s with %s: the destination is %s memory and the source is %s memory, but "
               "this kind copies %s to %s (swapped arguments, or the wrong kind?) (CUDA "
               "reports: invalid argument)",
               call, kind_name(kind), got_dst == 'd' ? "device" : "host",
               got_src == 'd' ? "device" : "host", want_src == 'd' ? "device" : "host",
               want_dst == 'd' ? "device" : "host");
        return cudaErrorInvalidValue;
    }
    if (want_dst == 'd') {
        cudaError_t e = check_device_range(call, "destination", dst, n);
        if (e) return e;
    }
    if (want_src == 'd') return check_device_range(call, "source", src, n);
    return cudaSuccess;
}

cudaError_t do_memcpy(const char *call, void *dst, const void *src, size_t n, cudaMemcpyKind kind)
{
    cudaError_t e = check_copy(call, dst, src, n, kind);
    if (e) return fail(e);
    if (n) {
        DeviceOp op;
        open_for_device(dst);
        open_for_device(src);
        memmove(dst, src, n);
        mark_written(dst, n);
        model_copy(dst, src, n, kind, strstr(call, "Async") != nullptr);
    }
    return cudaSuccess;
}

/* A synchronous copy between host and device waits for the legacy stream
 * (one from device to device does not wait). */
bool waits_for_device(const void *dst, const void *src, cudaMemcpyKind kind)
{
    if (kind == cudaMemcpyDeviceToDevice) return false;
    return kind != cudaMemcpyDefault || kind_of(dst) == 'h' || kind_of(src) == 'h';
}

cudaError_t check_set(const char *call, void *p, size_t n)
{
    return n ? check_device_range(call, "destination", p, n) : cudaSuccess;
}

cudaError_t do_memset(const char *call, void *p, int value, size_t n)
{
    cudaError_t e = check_set(call, p, n);
    if (e) return fail(e);
    if (n) {
        DeviceOp op;
        open_for_device(p);
        memset(p, value, n);
        mark_written(p, n);
        model_memset(n, strstr(call, "Async") != nullptr);
    }
    return cudaSuccess;
}

} // namespace

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" {

/* Rows of a pitched copy: each row is a copy of its own, checked as one. */
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind)
{
    API_ENTER();
    if (cudaError_t e = check_legacy("cudaMemcpy2D")) return e;
    if (width > dpitch || width > spitch) {
        report("cudaMemcpy2D: rows of %zu bytes, wider than the pitch (dpitch %zu, spitch %zu) "
               "(CUDA reports: invalid pitch argument)",
               width, dpitch, spitch);
        return fail(cudaErrorInvalidPitchValue);
    }
    if (!height || !width) return cudaSuccess;
    size_t dspan = dpitch * (height - 1) + width, sspan = spitch * (height - 1) + width;
    if (cudaError_t e = check_copy("cudaMemcpy2D", dst, src, 1, kind)) return fail(e);
    if (kind_of(dst) != 'h' && check_device_range("cudaMemcpy2D", "destination", dst, dspan))
        return fail(cudaErrorInvalidValue);
    if (kind_of(src) != 'h' && check_device_range("cudaMemcpy2D", "source", src, sspan))
        return fail(cudaErrorInvalidValue);
    if (waits_for_device(dst, src, kind)) managed_stream_waited(nullptr);
    DeviceOp op;
    open_for_device(dst);
    open_for_device(src);
    for (size_t r = 0; r < height; r++) {
        memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
        mark_written((char *)dst + r * dpitch, width);
    }
    return cudaSuccess;
}

cudaError_t cudaMemset2D(void *ptr, size_t pitch, int value, size_t width, size_t height)
{
    API_ENTER();
    if (width > pitch) return fail(cudaErrorInvalidPitchValue);
    if (!height || !width) return cudaSuccess;
    if (cudaError_t e = check_device_range("cudaMemset2D", "destination", ptr,
                                           pitch * (height - 1) + width))
        return fail(e);
    DeviceOp op;
    open_for_device(ptr);
    for (size_t r = 0; r < height; r++) {
        memset((char *)ptr + r * pitch, value, width);
        mark_written((char *)ptr + r * pitch, width);
    }
    return cudaSuccess;
}

} // extern "C"

namespace {
/* A copy to or from a __device__ or __constant__ variable: `size` bytes at
 * `symbol` (SIZE_MAX when the C API does not say). */
cudaError_t symbol_copy(const char *call, const void *symbol, size_t size, void *host, size_t count,
                        size_t offset, cudaMemcpyKind kind, bool to_symbol, cudaStream_t stream,
                        bool async)
{
    API_ENTER();
    if (!symbol) {
        report("%s: a NULL symbol (CUDA reports: invalid device symbol)", call);
        return fail(cudaErrorInvalidSymbol);
    }
    if (size != SIZE_MAX && (offset > size || count > size - offset)) {
        report("%s: %zu bytes at offset %zu, but the variable has %zu bytes (CUDA reports: invalid "
               "argument)",
               call, count, offset, size);
        return fail(cudaErrorInvalidValue);
    }
    bool ok_kind = to_symbol ? (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
                                kind == cudaMemcpyDefault)
                             : (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
                                kind == cudaMemcpyDefault);
    if (!ok_kind) {
        report("%s with %s: a copy %s a variable of the device goes %s (CUDA reports: invalid copy "
               "direction for memcpy)",
               call, kind_name(kind), to_symbol ? "to" : "from",
               to_symbol ? "host to device, or device to device" : "device to host, or device to device");
        return fail(cudaErrorInvalidMemcpyDirection);
    }
    if (!count) return cudaSuccess;
    if (!host) {
        report("%s: a NULL pointer (CUDA reports: invalid argument)", call);
        return fail(cudaErrorInvalidValue);
    }
    char k = kind_of(host);
    if (k == 'f') return fail(report_freed_pointer(call, to_symbol ? "source" : "destination", host));
    bool want_device = kind == cudaMemcpyDeviceToDevice;
    if (kind != cudaMemcpyDefault && k != 'm' && (k == 'd') != want_device) {
        report("%s with %s: the %s is %s memory (CUDA reports: invalid argument)", call,
               kind_name(kind), to_symbol ? "source" : "destination", k == 'd' ? "device" : "host");
        return fail(cudaErrorInvalidValue);
    }
    if (k == 'd' &&
        check_device_range(call, to_symbol ? "source" : "destination", host, count))
        return fail(cudaErrorInvalidValue);
    char *var = (char *)symbol + offset;
    auto work = [=] {
        DeviceOp op;
        open_for_device(host);
        if (to_symbol) memmove(var, host, count);
        else {
            memmove(host, var, count);
            mark_written(host, count);
        }
        return cudaSuccess;
    };
    if (async) return issue(call, stream, work);
    if (cudaError_t e = check_legacy(call)) return e;
    if (k != 'd') managed_stream_waited(nullptr); /* to or from the host: it waits */
    return work();
}
} // namespace

extern "C" {

cudaError_t cudasim_symbol_copy(const void *symbol, size_t size, void *host, size_t count,
                                size_t offset, cudaMemcpyKind kind, int to_symbol,
                                cudaStream_t stream, int async)
{
    const char *call = to_symbol ? (async ? "cudaMemcpyToSymbolAsync" : "cudaMemcpyToSymbol")
                                 : (async ? "cudaMemcpyFromSymbolAsync" : "cudaMemcpyFromSymbol");
    return symbol_copy(call, symbol, size, host, count, offset, kind, to_symbol, stream, async);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               cudaMemcpyKind kind)
{
    return symbol_copy("cudaMemcpyToSymbol", symbol, SIZE_MAX, const_cast<void *>(src), count,
                       offset, kind, true, 0, false);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 cudaMemcpyKind kind)
{
    return symbol_copy("cudaMemcpyFromSymbol", symbol, SIZE_MAX, dst, count, offset, kind, false, 0,
                       false);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                    size_t offset, cudaMemcpyKind kind, cudaStream_t stream)
{
    return symbol_copy("cudaMemcpyToSymbolAsync", symbol, SIZE_MAX, const_cast<void *>(src), count,
                       offset, kind, true, stream, true);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream)
{
    return symbol_copy("cudaMemcpyFromSymbolAsync", symbol, SIZE_MAX, dst, count, offset, kind,
                       false, stream, true);
}

cudaError_t cudasim_symbol_address(void **devPtr, const void *symbol, size_t size)
{
    API_ENTER();
    if (!devPtr || !symbol) return fail(cudaErrorInvalidSymbol);
    g_symbols[(uintptr_t)symbol] = size;
    *devPtr = const_cast<void *>(symbol);
    return cudaSuccess;
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    API_ENTER();
    if (!devPtr || !symbol) return fail(cudaErrorInvalidSymbol);
    *devPtr = const_cast<void *>(symbol);
    return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    API_ENTER();
    (void)symbol;
    (void)size;
    report("cudaGetSymbolSize: the simulator knows a variable's size only from C++ (pass the "
           "variable itself, not its address) (the simulator reports: invalid device symbol)");
    return fail(cudaErrorInvalidSymbol);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind)
{
    API_ENTER();
    if (cudaError_t e = check_legacy("cudaMemcpy")) return e;
    cudaError_t e = do_memcpy("cudaMemcpy", dst, src, count, kind);
    if (!e && waits_for_device(dst, src, kind)) managed_stream_waited(nullptr);
    return e;
}

/* Copies and memsets issued to a stream are checked then, captured or not (CUDA
 * checks what it records), and a recorded one again when its graph runs: its
 * buffers may have been freed since. A recorded copy keeps its pointers, not
 * the data: it copies what host memory holds when the graph runs. */
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    API_ENTER();
    if (cudaError_t e = check_copy("cudaMemcpyAsync", dst, src, count, kind))
        return refuse(stream, e);
    return issue("cudaMemcpyAsync", stream,
                 [=] { return do_memcpy("cudaMemcpyAsync", dst, src, count, kind); });
}

cudaError_t cudaMemset(void *ptr, int value, size_t count)
{
    API_ENTER();
    if (cudaError_t e = check_legacy("cudaMemset")) return e;
    return do_memset("cudaMemset", ptr, value, count);
}

cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream)
{
    API_ENTER();
    if (cudaError_t e = check_set("cudaMemsetAsync", ptr, count)) return refuse(stream, e);
    return issue("cudaMemsetAsync", stream,
                 [=] { return do_memset("cudaMemsetAsync", ptr, value, count); });
}

} // extern "C"
