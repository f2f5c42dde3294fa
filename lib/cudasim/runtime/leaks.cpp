/*
 * leaks.cpp: the leak check at exit, as compute-sanitizer's
 * --leak-check full does it. Every buffer the program allocated with
 * cudaMalloc, cudaMallocManaged, cudaMallocPitch or cudaMallocAsync and
 * still holds when it exits (returns from main, or calls exit) is reported,
 * one line each in allocation order: its size, its address, and where it
 * was allocated (the program's line, or else the allocation's number), then
 * a summary line. cudaDeviceReset frees everything, so nothing is left to
 * report after it. CUDASIM_LEAK_CHECK=no (or 0) turns the check off.
 *
 * A program that stopped on a kernel's fault (a sticky error) is not
 * checked: its buffers are still held because it stopped, and that fault
 * was reported already.
 */
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "../internal.h"

namespace cudasim {
namespace internal {

namespace {

struct Held {
    size_t size;
    const char *call;
    const void *pc;
    unsigned long long number; /* the program's device allocations, counted from 1 */
};
std::map<uintptr_t, Held> g_held;
unsigned long long g_allocations = 0;
bool g_registered = false;

bool leak_check_on()
{
    const char *env = getenv("CUDASIM_LEAK_CHECK");
    return !env || !*env || (strcmp(env, "no") != 0 && strcmp(env, "0") != 0);
}

void check_at_exit()
{
    if (g_held.empty() || g_sticky || !leak_check_on()) return;
    std::vector<std::pair<uintptr_t, const Held *>> held;
    for (auto &kv : g_held) held.push_back({kv.first, &kv.second});
    std::sort(held.begin(), held.end(),
              [](const auto &a, const auto &b) { return a.second->number < b.second->number; });
    size_t bytes = 0;
    g_report_at_exit = true;
    for (auto &h : held) {
        std::string where = h.second->pc ? source_line(h.second->pc) : "";
        char number[64];
        snprintf(number, sizeof number, "allocation number %llu", h.second->number);
        report("Leaked %zu bytes at %p: the %s at %s, never freed (compute-sanitizer "
               "--leak-check full reports it; free it before the program ends, or turn the "
               "check off with CUDASIM_LEAK_CHECK=no)",
               h.second->size, (void *)h.first, h.second->call,
               where.empty() ? number : where.c_str());
        bytes += h.second->size;
    }
    report("LEAK SUMMARY: %zu bytes leaked in %zu allocations", bytes, held.size());
    g_report_at_exit = false;
}

} // namespace

void leak_allocated(const void *p, size_t size, const char *call, const void *pc)
{
    g_held[(uintptr_t)p] = Held{size, call, pc, ++g_allocations};
    if (!g_registered) {
        /* Registered at the first allocation, so it runs after the destructors of
         * every object made since (they free what they hold), as exit runs
         * them in the reverse order. */
        g_registered = true;
        atexit(check_at_exit);
    }
}

void leak_freed(const void *p) { g_held.erase((uintptr_t)p); }

void leaks_reset() { g_held.clear(); }

} // namespace internal
} // namespace cudasim
