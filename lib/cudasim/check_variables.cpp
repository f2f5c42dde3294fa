/*
 * check_variables.cpp: memcheck of the __device__ and __constant__ variables
 * of translated files. The translator (cu2sim_variables.pl) puts each one
 * between two red zones of kRedZone bytes and registers it here: a kernel
 * access that falls in a red zone, or that writes a __constant__ variable,
 * stops the launch with a report in compute-sanitizer's words that names the
 * variable and by how much the access missed it. (On a GPU such an access
 * reads or writes whatever lies next to the variable, and a read past a
 * __constant__ array reads on into the constant bank, without an error.) An
 * index that jumps past the red zone is not seen, as for __shared__ arrays.
 */
#include <algorithm>

#include "internal.h"

namespace cudasim {
namespace internal {

uintptr_t g_var_lo = 0, g_var_span = 0;

namespace {

const size_t kRedZone = 256; /* before and after each variable (cu2sim_variables.pl) */

struct Variable {
    uintptr_t lo;
    size_t size;
    const char *name, *file;
    int line;
    bool constant;
};

/* By address; filled by the translated files' static initializers. */
std::vector<Variable> &variables()
{
    static std::vector<Variable> v;
    return v;
}

/* The variable whose red zones or bytes hold a, or NULL (other memory: the
 * program's other variables lie between them). */
const Variable *variable_near(uintptr_t a)
{
    const std::vector<Variable> &v = variables();
    auto it = std::upper_bound(v.begin(), v.end(), a, [](uintptr_t x, const Variable &var) {
        return x < var.lo - kRedZone;
    });
    if (it == v.begin()) return nullptr;
    const Variable *var = &*std::prev(it);
    return a < var->lo + var->size + kRedZone ? var : nullptr;
}

const Variable *g_last_var = nullptr; /* the last one accessed (a kernel comes back to its variables) */

std::string describe(const Variable &v)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s %s (%zu bytes, declared at %s:%d)",
             v.constant ? "__constant__" : "__device__", v.name, v.size, v.file, v.line);
    return buf;
}

[[noreturn]] __attribute__((noinline, cold)) void report_variable(uintptr_t a, size_t n,
                                                                  AccessKind kind, const void *pc)
{
    {
        const Variable *v = variable_near(a); /* (not NULL: variable_access found it) */
        char who[256], buf[160];
        describe_thread(who, sizeof who);
        std::string what, space = v->constant ? "__constant__" : "__global__";
        const char *gpu = v->constant ? "on a GPU the access reaches whatever the constant bank "
                                        "holds there, without an error"
                                      : "on a GPU the access reaches whatever variable lies there, "
                                        "without an error";
        bool inside = a >= v->lo && a < v->lo + v->size;
        if (inside && a + n <= v->lo + v->size) {
            what = "in " + describe(*v) + ", which kernels may only read (nvcc warns: cannot "
                   "store to pointer that points to constant memory space)";
            gpu = "on a GPU what the store does is undefined";
        } else {
            if (inside)
                snprintf(buf, sizeof buf, "out of bounds: its last %zu bytes are past the end of ",
                         (size_t)(a + n - v->lo - v->size));
            else if (a < v->lo)
                snprintf(buf, sizeof buf, "out of bounds: %zu bytes before the start of ",
                         (size_t)(v->lo - a));
            else
                snprintf(buf, sizeof buf, "out of bounds: %zu bytes past the end of ",
                         (size_t)(a - v->lo - v->size));
            what = buf + describe(*v) +
                   (a < v->lo ? " (a negative index?)"
                              : " (an index beyond its last element: check the bounds test)");
        }
        report("%s in %s%s: address %s is %s (%s; the simulator stops the kernel, with CUDA's "
               "error for an illegal memory access)",
               invalid_access(space.c_str(), kind, n).c_str(), who, at_line(pc).c_str(),
               address_text(a).c_str(), what.c_str(), gpu);
    }
    abort_launch(cudaErrorIllegalAddress);
}

} // namespace

/* A kernel's access of n bytes at a, between the first variable and the last. */
void variable_access(uintptr_t a, size_t n, AccessKind kind, const void *pc)
{
    const Variable *v = g_last_var;
    if (!v || a - v->lo >= v->size) v = variable_near(a);
    if (!v) return; /* another variable of the program's */
    if (a - v->lo < v->size && a + n - v->lo <= v->size && !(v->constant && kind != LOAD)) {
        g_last_var = v;
        return;
    }
    report_variable(a, n, kind, pc);
}

/* compute-sanitizer's name for the memory at a. */
const char *space_name(uintptr_t a)
{
    if (a - g_sh_lo < g_sh_span) return "__shared__";
    if (a - g_var_lo < g_var_span) {
        const Variable *v = variable_near(a);
        if (v) return v->constant ? "__constant__" : "__global__";
    }
    if (a - g_rg_lo < g_rg_span) return "__global__";
    return "__local__"; /* a thread's own variables: a GPU's local memory */
}

/* "byte 4 of __device__ v (32 bytes, declared at f.cu:3)", or "" where a is in no variable. */
std::string variable_text(uintptr_t a)
{
    const Variable *v = a - g_var_lo < g_var_span ? variable_near(a) : nullptr;
    if (!v) return "";
    char buf[48];
    snprintf(buf, sizeof buf, "byte %lld of ", (long long)(a - v->lo));
    return buf + describe(*v);
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" int cudasim_register_variable(const void *p, size_t size, const char *name, int constant,
                                         const char *file, int line)
{
    std::vector<Variable> &v = variables();
    uintptr_t lo = (uintptr_t)p;
    g_last_var = nullptr; /* (the vector may move) */
    v.insert(std::upper_bound(v.begin(), v.end(), lo,
                              [](uintptr_t x, const Variable &var) { return x < var.lo; }),
             Variable{lo, size, name, file, line, constant != 0});
    g_var_lo = v.front().lo - kRedZone;
    g_var_span = v.back().lo + v.back().size + kRedZone - g_var_lo;
    return 0;
}
