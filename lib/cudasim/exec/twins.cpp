/*
 * twins.cpp: a kernel's uninstrumented twin. make sim-run compiles each
 * translated file twice: with the instrumentation that calls check/access.cpp
 * at every load and store (what checked and profiled launches run), and
 * without it, linked into a shared object beside the program (PROGRAM.twin.so,
 * translate/twin_link.sh). A launch that runs unchecked runs its kernel's twin:
 * the same code, with no call per access, which the compiler can keep in
 * registers and vectorize.
 *
 * The twin reaches the program's own data: the program exports its symbols
 * (-rdynamic), and the boxes of the __device__ and __constant__ variables have
 * external linkage (translate/cu2sim_variables.pl), so the dynamic linker
 * binds the twin's references to the program's copies; its functions bind to
 * its own (-Bsymbolic-functions). It was linked without its constructors,
 * which the program's copy of the same code has run.
 *
 * A kernel has a twin when the program exports it by name and the shared
 * object defines that name (a kernel of internal linkage, static or in an
 * anonymous namespace, has a global name of its own in both builds:
 * translate/twin_globalize.sh); a kernel of a file that twin_link.sh left
 * out runs its unchecked launches instrumented, as all of them did before. The shared
 * object also lists the twins whose launches may run their blocks on several
 * cores (cudasim_twin_parallel: translate/twin_parallel.pl, parallel.cpp).
 * CUDASIM_TWIN=0 leaves the twin unused.
 */
#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>

#include "../internal.h"

namespace cudasim {
namespace internal {
namespace {

void *twin_library()
{
    static bool tried = false;
    static void *handle = nullptr;
    if (tried) return handle;
    tried = true;
    const char *env = getenv("CUDASIM_TWIN");
    if (env && !strcmp(env, "0")) return nullptr;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 16);
    if (n <= 0) return nullptr;
    std::string path(exe, (size_t)n);
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".sim") == 0) path.resize(path.size() - 4);
    path += ".twin.so";
    if (access(path.c_str(), R_OK) != 0) return nullptr;
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        fprintf(stderr,
                "cudasim: the kernels' uninstrumented build does not load (%s); the launches "
                "that run unchecked run instrumented\n",
                dlerror());
    return handle;
}

} // namespace

const void *kernel_twin(const void *fn, bool *parallel)
{
    *parallel = false;
    if (!fn) return nullptr;
    struct Twin {
        const void *fn;
        bool parallel;
    };
    static auto &found = *new std::map<const void *, Twin>;
    auto it = found.find(fn);
    if (it != found.end()) {
        *parallel = it->second.parallel;
        return it->second.fn;
    }
    Twin twin = {nullptr, false};
    Dl_info info, self;
    void *lib = twin_library();
    if (lib && dladdr(fn, &info) && info.dli_sname && info.dli_saddr == fn &&
        dladdr((const void *)&twin_library, &self) && self.dli_fbase == info.dli_fbase) {
        twin.fn = dlsym(lib, info.dli_sname);
        if (twin.fn == fn) twin.fn = nullptr;
        /* translate/twin_parallel.pl's list of the functions that may */
        auto names = (const char *const *)dlsym(lib, "cudasim_twin_parallel");
        for (size_t i = 0; twin.fn && names && names[i]; i++)
            if (!strcmp(names[i], info.dli_sname)) twin.parallel = true;
    }
    found.emplace(fn, twin);
    *parallel = twin.parallel;
    return twin.fn;
}

} // namespace internal
} // namespace cudasim
