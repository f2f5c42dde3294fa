/*
 * host_guard.cpp: keeping host code out of device memory. On a GPU the CPU
 * cannot dereference a device pointer. Here device memory is host memory, so
 * the data pages of every cudaMalloc buffer are shut to everything but the
 * simulator's device operations (kernels, copies, memsets, cuBLAS calls,
 * graph launches), and host code that touches them faults: the fault handler
 * (faults.cpp) says what happened and the program dies of the SIGSEGV, as it
 * would on a GPU machine. Two ways to shut them:
 *
 *  - memory protection keys (x86-64 with PKU, Linux 4.9 and later): the
 *    buffers' pages carry their own key, which this thread's PKRU register
 *    denies outside device operations and allows during them (a write of one
 *    register, tens of nanoseconds, whatever the number of buffers). PKRU is
 *    per thread: other threads (OpenBLAS's workers, in a cuBLAS call) still
 *    fault, and the handler then opens the buffer to every thread (key 0)
 *    until the operation ends, as below;
 *
 *  - otherwise mprotect: the pages are PROT_NONE, and a buffer is opened
 *    (PROT_READ | PROT_WRITE) when a device operation first touches it: the
 *    operation opens the buffers it knows (a copy's, a memset's, a cuBLAS
 *    call's operands), and a kernel faults on the others, whereupon the
 *    handler opens the buffer and lets the access go on. When the outermost
 *    operation ends, the buffers it opened are shut again.
 *
 * CUDASIM_PKEYS=0 chooses mprotect where protection keys exist.
 */
#include <algorithm>

#include "../cudasim.h"
#include "../internal.h"

namespace cudasim {
namespace internal {

int g_pkey = -1;            /* the protection key of device buffers, or -1 */
bool g_use_pkeys = false;   /* shut with g_pkey (else with mprotect) */
std::atomic<int> g_device_ops{0}; /* device operations running (they nest) */

namespace {
std::vector<uintptr_t> g_opened;  /* buffers opened since the outermost began */
std::atomic_flag g_open_lock = ATOMIC_FLAG_INIT; /* for the handler on other threads */
} // namespace

size_t data_bytes(const Alloc &a) { return a.map_bytes - g_page; }

/* Shut a buffer's data pages (and its canaries) to host code. */
void shut(Alloc &a)
{
#if CUDASIM_HAVE_PKEYS
    if (g_use_pkeys)
        pkey_mprotect(a.map, data_bytes(a), PROT_READ | PROT_WRITE, g_pkey);
    else
#endif
        mprotect(a.map, data_bytes(a), PROT_NONE);
    a.open = false;
}

/* A buffer's data pages readable and writable by every thread (key 0). */
void open_to_all(Alloc &a)
{
#if CUDASIM_HAVE_PKEYS
    if (g_use_pkeys)
        pkey_mprotect(a.map, data_bytes(a), PROT_READ | PROT_WRITE, 0);
    else
#endif
        mprotect(a.map, data_bytes(a), PROT_READ | PROT_WRITE);
}

/* Open a buffer to every thread until the outermost device operation ends:
 * called by the operations, and by the fault handler on any thread (hence
 * the lock, and g_opened's capacity reserved beforehand: no allocation). */
void open_buffer(uintptr_t start, Alloc &a)
{
    while (g_open_lock.test_and_set(std::memory_order_acquire)) {
    }
    if (!a.open) {
        open_to_all(a);
        a.open = true;
        g_opened.push_back(start);
    }
    g_open_lock.clear(std::memory_order_release);
}

/* A device operation is about to touch the device buffer holding p: open it
 * now rather than on a fault (with protection keys this thread may touch
 * them all already). */
void open_for_device(const void *p)
{
    if (g_use_pkeys || !p) return;
    uintptr_t start;
    auto it = g_allocs.upper_bound((uintptr_t)p);
    if (it == g_allocs.begin()) return;
    --it;
    start = it->first;
    Alloc &a = it->second;
    if (a.guarded && !a.open && (uintptr_t)p < start + (a.size ? a.size : 1)) open_buffer(start, a);
}

/* This thread may touch device buffers (during device operations) or not. */
void allow_device_memory(bool allow)
{
#if CUDASIM_HAVE_PKEYS
    if (g_use_pkeys) pkey_set(g_pkey, allow ? 0 : PKEY_DISABLE_ACCESS);
#else
    (void)allow;
#endif
}

namespace {

/* The buffers of the operation that ends, shut again (with mprotect, those
 * next to each other in one call: the guard pages between them are
 * PROT_NONE anyway). */
void shut_opened()
{
    if (g_opened.empty()) return;
    std::vector<Alloc *> open;
    for (uintptr_t start : g_opened) {
        auto it = g_allocs.find(start);
        if (it != g_allocs.end() && it->second.open) open.push_back(&it->second);
    }
    g_opened.clear();
    if (g_use_pkeys) {
        for (Alloc *a : open) shut(*a);
        return;
    }
    std::sort(open.begin(), open.end(), [](Alloc *x, Alloc *y) { return x->map < y->map; });
    for (size_t i = 0; i < open.size();) {
        size_t j = i;
        while (j + 1 < open.size() && open[j + 1]->map == open[j]->map + open[j]->map_bytes) j++;
        char *end = open[j]->map + data_bytes(*open[j]);
        mprotect(open[i]->map, (size_t)(end - open[i]->map), PROT_NONE);
        for (size_t k = i; k <= j; k++) open[k]->open = false;
        i = j + 1;
    }
}

} // namespace

DeviceOp::DeviceOp()
{
    if (g_device_ops.fetch_add(1) == 0) {
        g_opened.reserve(g_allocs.size()); /* the handler must not allocate */
        allow_device_memory(true);
    }
}

DeviceOp::~DeviceOp()
{
    if (g_device_ops.load() == 1) {
        shut_opened();
        allow_device_memory(false);
    }
    g_device_ops.fetch_sub(1);
}

} // namespace internal

/* For cublas.cpp: a cuBLAS call is about to touch the device buffer holding p. */
void device_operand(const void *p) { internal::open_for_device(p); }

} // namespace cudasim

using namespace cudasim::internal;

extern "C" const char *cudasim_memory_guard(void)
{
    install_fault_handler();
    return g_use_pkeys ? "protection keys" : "mprotect";
}

extern "C" int cudasim_set_memory_guard(int protection_keys)
{
    install_fault_handler();
    for (auto &kv : g_allocs)
        if (kv.second.guarded) return -1; /* shut the other way */
    g_use_pkeys = protection_keys && g_pkey >= 0;
    return g_use_pkeys;
}
