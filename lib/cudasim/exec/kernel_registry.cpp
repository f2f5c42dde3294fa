/*
 * kernel_registry.cpp: the kernels by their address. The translator has every
 * kernel register itself, once for each of its instantiations (cu2sim.pl puts
 * the registration at the top of the kernel's body: a template's is
 * instantiated with it), with its name, its __launch_bounds__, its static
 * __shared__ variables and those of the __device__ functions it calls, and a
 * function that launches it from cudaLaunchKernel's array of pointers to the
 * arguments. So a kernel cast to `void *` can be launched
 * (cudaLaunchKernel), and cudaFuncGetAttributes and the occupancy calls know
 * what a GPU's compiler would have recorded of it.
 */
#include <cstring>
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "../internal.h"

namespace cudasim {
namespace internal {
namespace {

struct StaticShared {
    size_t size, align;
};
/* __shared__ declarations by their id (the translator's: the same in every
 * file that includes them). */
using SharedDecls = std::map<unsigned, StaticShared>;

struct Entry {
    std::string name;
    int max_threads = 0;     /* __launch_bounds__'s first value; 0 without */
    size_t shared_align = 1; /* what its static shared memory is rounded up to */
    cudaError_t (*launch)(const cudasim::LaunchConfig *, void **) = nullptr;
    SharedDecls shared;
};

/* (Filled by static initializers of translated files: function-local statics.) */
std::map<const void *, Entry> &entries()
{
    static auto &table = *new std::map<const void *, Entry>; /* (never destroyed) */
    return table;
}
/* The __shared__ variables of __device__ functions, by the function's name (the
 * largest of a template's instantiations), and the functions each kernel calls. */
std::map<std::string, SharedDecls> &named_shared()
{
    static auto &table = *new std::map<std::string, SharedDecls>;
    return table;
}
std::map<std::string, std::vector<std::string>> &kernel_calls()
{
    static auto &table = *new std::map<std::string, std::vector<std::string>>;
    return table;
}

void add_decl(SharedDecls &decls, unsigned id, size_t size, size_t align)
{
    StaticShared &d = decls[id];
    d.size = std::max(d.size, size);
    d.align = std::max(d.align, align);
}

const Entry *find_entry(const void *fn)
{
    auto it = entries().find(fn);
    return it == entries().end() ? nullptr : &it->second;
}

} // namespace

int kernel_max_threads(const void *fn)
{
    const Entry *e = fn ? find_entry(fn) : nullptr;
    return e ? e->max_threads : 0;
}

size_t kernel_static_shared(const void *fn)
{
    const Entry *e = fn ? find_entry(fn) : nullptr;
    if (!e) return 0;
    /* Its own declarations and those of the functions it calls, each once, laid
     * out in the order of their ids, each at its alignment. */
    SharedDecls all = e->shared;
    auto calls = kernel_calls().find(e->name);
    if (calls != kernel_calls().end())
        for (const std::string &f : calls->second) {
            auto named = named_shared().find(f);
            if (named == named_shared().end()) continue;
            for (const auto &d : named->second) add_decl(all, d.first, d.second.size, d.second.align);
        }
    size_t at = 0;
    for (const auto &d : all) {
        size_t align = d.second.align ? d.second.align : 1;
        at = (at + align - 1) / align * align + d.second.size;
    }
    return (at + e->shared_align - 1) / e->shared_align * e->shared_align;
}

namespace {
std::map<const void *, int> g_carveout;
}

void kernel_set_carveout(const void *fn, int carveout) { g_carveout[fn] = carveout; }

void kernel_carveouts_reset() { g_carveout.clear(); }

int kernel_carveout(const void *fn)
{
    auto it = g_carveout.find(fn);
    return it == g_carveout.end() ? -1 : it->second;
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" {

int cudasim_register_kernel_entry(const void *fn, const char *name, int max_threads,
                                  size_t shared_align,
                                  cudaError_t (*launch)(const cudasim::LaunchConfig *, void **))
{
    Entry &e = entries()[fn];
    e.name = name;
    e.max_threads = max_threads;
    e.shared_align = shared_align ? shared_align : 1;
    e.launch = launch;
    return 0;
}

int cudasim_register_static_shared(const void *fn, const char *fn_name, unsigned id, size_t size,
                                   size_t align)
{
    add_decl(fn ? entries()[fn].shared : named_shared()[fn_name], id, size, align);
    return 0;
}

int cudasim_register_kernel_calls(const char *kernel, const char *callees)
{
    std::vector<std::string> &list = kernel_calls()[kernel];
    std::string word;
    for (const char *p = callees;; p++) {
        if (*p && *p != ' ') {
            word += *p;
            continue;
        }
        if (!word.empty() && std::find(list.begin(), list.end(), word) == list.end())
            list.push_back(word);
        word.clear();
        if (!*p) break;
    }
    return 0;
}

const char *cudasim_kernel_name(const void *fn)
{
    const Entry *e = fn ? find_entry(fn) : nullptr;
    return e ? e->name.c_str() : nullptr;
}

/* The first thing a kernel with __launch_bounds__ does (a launch whose kernel
 * the runtime knew by address was refused before it ran: launch.cpp). */
void cudasim_launch_bound(long long max_threads)
{
    const dim3 &b = cudasim_block_dim;
    unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
    if (!g_launch.in_kernel || max_threads <= 0 || threads <= (unsigned long long)max_threads) return;
    report("kernel %s: launched with blocks of %llu threads, but its __launch_bounds__ allow at "
           "most %lld (CUDA reports: too many resources requested for launch)",
           g_launch.cfg->name, threads, max_threads);
    abort_launch(cudaErrorLaunchOutOfResources);
}

} // extern "C"

namespace {

/* A launch by the kernel's address (call: the API that was called), plain or cooperative:
 * a cooperative one's grid must fit on the device at once, and its threads may sync the
 * grid (cooperative.cpp). */
cudaError_t launch_by_address(const char *call, const void *func, dim3 gridDim, dim3 blockDim,
                              void **args, size_t sharedMem, cudaStream_t stream, bool cooperative)
{
    install_fault_handler();
    const Entry *e = func ? find_entry(func) : nullptr;
    if (!e || !e->launch) {
        report("%s: %p is not a kernel of this program (pass the kernel itself, or (void *)kernel) "
               "(CUDA reports: invalid device function)",
               call, func);
        return fail(cudaErrorInvalidDeviceFunction);
    }
    cudasim::LaunchConfig cfg = {e->name.c_str(), func, gridDim, blockDim, sharedMem, stream};
    if (cooperative) {
        cfg.cooperative = 1;
        if (g_sticky) return fail(g_sticky);
        if (cudaError_t bad = cooperative_check(&cfg)) return bad;
    }
    return e->launch(&cfg, args);
}

} // namespace

extern "C" {

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream)
{
    return launch_by_address("cudaLaunchKernel", func, gridDim, blockDim, args, sharedMem, stream,
                             false);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                        void **args, size_t sharedMem, cudaStream_t stream)
{
    return launch_by_address("cudaLaunchCooperativeKernel", func, gridDim, blockDim, args,
                             sharedMem, stream, true);
}

/* CUDA 12's extensible launch: cudaLaunchKernel's, with attributes. A cooperative
 * one is cudaLaunchCooperativeKernel's; the hints that change only where or when a
 * GPU runs the work (a stream priority, an L2 access window, programmatic
 * serialization and events, memory sync domains, cluster scheduling preferences) are
 * checked and change nothing here; a cluster of more than one block is refused (the
 * simulated device, of compute capability 8.0, has none). Everything is checked
 * before anything runs. */
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    install_fault_handler();
    if (!config || (config->numAttrs && !config->attrs)) {
        report("cudaLaunchKernelEx: %s (CUDA reports: invalid argument)",
               !config ? "no configuration (config is NULL)"
                       : "config->numAttrs is not 0 but config->attrs is NULL");
        return fail(cudaErrorInvalidValue);
    }
    bool cooperative = false;
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute &a = config->attrs[i];
        static_assert(sizeof(cudaLaunchAttributeID) == sizeof(int), "an enum of int's size");
        int id; /* (read as an int: a C program may put any value in the enum) */
        memcpy(&id, &a.id, sizeof id);
        switch (id) {
        case cudaLaunchAttributeIgnore:
        case cudaLaunchAttributeAccessPolicyWindow:
        case cudaLaunchAttributeClusterSchedulingPolicyPreference:
        case cudaLaunchAttributeProgrammaticStreamSerialization:
        case cudaLaunchAttributeProgrammaticEvent:
        case cudaLaunchAttributePriority:
        case cudaLaunchAttributeMemSyncDomainMap:
        case cudaLaunchAttributeMemSyncDomain: break;
        case cudaLaunchAttributeCooperative: cooperative = a.val.cooperative != 0; break;
        case cudaLaunchAttributeClusterDimension:
        case cudaLaunchAttributePreferredClusterDimension: {
            unsigned x = a.val.clusterDim.x, y = a.val.clusterDim.y, z = a.val.clusterDim.z;
            if (id == cudaLaunchAttributePreferredClusterDimension)
                x = a.val.preferredClusterDim.x, y = a.val.preferredClusterDim.y,
                z = a.val.preferredClusterDim.z;
            if ((unsigned long long)x * y * z <= 1) break;
            report("cudaLaunchKernelEx: attrs[%u] asks for clusters of %ux%ux%u blocks, but the "
                   "simulated device (compute capability 8.0) has no thread block clusters "
                   "(compute capability 9.0 and later): launch without the attribute, or run "
                   "it on such a GPU (CUDA reports: operation not supported)",
                   i, x, y, z);
            return fail(cudaErrorNotSupported);
        }
        default:
            report("cudaLaunchKernelEx: attrs[%u].id is %d, not a launch attribute this runtime "
                   "knows (cudaLaunchAttributeID, CUDA 13) (CUDA reports: invalid argument)",
                   i, id);
            return fail(cudaErrorInvalidValue);
        }
    }
    return cooperative ? cudaLaunchCooperativeKernel(func, config->gridDim, config->blockDim, args,
                                                     config->dynamicSmemBytes, config->stream)
                       : cudaLaunchKernel(func, config->gridDim, config->blockDim, args,
                                          config->dynamicSmemBytes, config->stream);
}

} // extern "C"
