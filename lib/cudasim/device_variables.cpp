/*
 * device_variables.cpp: the __device__ variables of a program. For the
 * simulator they are the program's own variables (static storage of the host
 * process), so no shadow covers them; the translator registers each one
 * declared at namespace scope, and kernels' accesses to them are checked for
 * races (access.cpp) and named in reports ("__device__ variable d_count").
 */
#include <algorithm>

#include "internal.h"

namespace cudasim {
namespace internal {

uintptr_t g_dv_lo = 0, g_dv_span = 0; /* every registered variable is in this range */

namespace {
/* By address; filled by static initializers, hence a function-local static. */
std::vector<DeviceVar> &vars()
{
    static std::vector<DeviceVar> v;
    return v;
}
} // namespace

namespace {
const DeviceVar *g_last_var = nullptr; /* the last one found (a kernel comes back to its variables) */
} // namespace

const DeviceVar *find_device_var(uintptr_t a)
{
    if (g_last_var && a - g_last_var->lo < g_last_var->size) return g_last_var;
    const std::vector<DeviceVar> &v = vars();
    auto it = std::upper_bound(v.begin(), v.end(), a,
                               [](uintptr_t x, const DeviceVar &d) { return x < d.lo; });
    if (it == v.begin()) return nullptr;
    --it;
    if (a - it->lo >= it->size) return nullptr;
    return g_last_var = &*it;
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" int cudasim_register_device_var(const void *p, size_t size, const char *name,
                                           const char *file, int line)
{
    uintptr_t lo = (uintptr_t)p;
    if (!p || !size || find_device_var(lo)) return 0;
    std::vector<DeviceVar> &v = vars();
    g_last_var = nullptr; /* (the vector may move) */
    v.insert(std::upper_bound(v.begin(), v.end(), lo,
                              [](uintptr_t x, const DeviceVar &d) { return x < d.lo; }),
             DeviceVar{lo, size, name, file, line});
    uintptr_t first = v.front().lo, end = v.back().lo + v.back().size;
    g_dv_lo = first;
    g_dv_span = end - first;
    return 0;
}
