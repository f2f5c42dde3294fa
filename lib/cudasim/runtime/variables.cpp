/*
 * variables.cpp: the __device__, __constant__ and __managed__ variables of a
 * program. For the simulator they are the program's own variables (static
 * storage of the host process), so no shadow of device memory covers them:
 * the translator (cu2sim_variables.pl) registers each one declared at
 * namespace scope, with its name, kind, size, file and line, and where it
 * could rewrite the declaration, places the variable 256-byte aligned between
 * two red zones of 256 bytes. access.cpp's variable_access sends a kernel's
 * accesses to them to memcheck (an access in a red zone, a write to a
 * __constant__ variable: check_memory.cpp) and to the race checks, within a
 * block and between blocks, as for global memory; reports name them.
 */
#include <algorithm>

#include "../internal.h"

namespace cudasim {
namespace internal {

uintptr_t g_var_lo = 0, g_var_span = 0; /* every variable and its red zones is in this range */

namespace {

/* By address; filled by the translated files' static initializers, hence a
 * function-local static. The ranges [lo - red_zone, lo + size + red_zone)
 * do not overlap (a red zone belongs to its variable's box), so sorting by lo
 * sorts them. */
std::vector<Variable> &variables()
{
    static auto &v = *new std::vector<Variable>; /* (never destroyed) */
    return v;
}

const Variable *g_last_var = nullptr; /* the last one found (a kernel comes back to its variables) */

} // namespace

const Variable *find_variable(uintptr_t a)
{
    const Variable *last = g_last_var;
    if (last && a - last->lo < last->size) return last;
    const std::vector<Variable> &v = variables();
    auto it = std::upper_bound(v.begin(), v.end(), a, [](uintptr_t x, const Variable &var) {
        return x < var.lo - var.red_zone;
    });
    if (it == v.begin()) return nullptr;
    const Variable *var = &*std::prev(it);
    if (a - (var->lo - var->red_zone) >= var->size + 2 * (size_t)var->red_zone) return nullptr;
    if (a - var->lo < var->size) g_last_var = var;
    return var;
}

std::string variable_name(const Variable &v, bool noun)
{
    static const char *const kind[] = {"__device__", "__constant__", "__managed__"};
    char buf[512];
    snprintf(buf, sizeof buf, "%s %s%s (%zu bytes, declared at %s:%d)", kind[v.kind],
             noun ? "variable " : "", v.name, v.size, v.file, v.line);
    return buf;
}

std::string variable_text(uintptr_t a)
{
    const Variable *v = a - g_var_lo < g_var_span ? find_variable(a) : nullptr;
    if (!v) return "";
    char buf[48];
    snprintf(buf, sizeof buf, "byte %lld of ", (long long)(a - v->lo));
    return buf + variable_name(*v, false);
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" int cudasim_register_variable(const void *p, size_t size, const char *name, int kind,
                                         size_t red_zone, const char *file, int line)
{
    uintptr_t lo = (uintptr_t)p;
    if (!p || !size || kind < VAR_DEVICE || kind > VAR_MANAGED || red_zone > lo) return 0;
    const Variable *known = find_variable(lo);
    if (known && known->lo == lo) return 0; /* (registered already) */
    std::vector<Variable> &v = variables();
    g_last_var = nullptr; /* (the vector may move) */
    v.insert(std::upper_bound(v.begin(), v.end(), lo,
                              [](uintptr_t x, const Variable &var) { return x < var.lo; }),
             Variable{lo, size, name, file, line, (VariableKind)kind, (uint32_t)red_zone});
    const Variable &first = v.front(), &last = v.back();
    g_var_lo = first.lo - first.red_zone;
    g_var_span = last.lo + last.size + last.red_zone - g_var_lo;
    return 0;
}
