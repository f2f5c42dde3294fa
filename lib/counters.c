/* counters.c: launch, sync, copy and memory counts. */
#include "counters.h"

static Counters g_counters;

Counters counters_get(void) { return g_counters; }

void counters_reset(void)
{
    size_t in_use = g_counters.mem_in_use;
    Counters zero = {0};
    g_counters = zero;
    g_counters.mem_in_use = g_counters.mem_peak = in_use;
}

void counters_launch(uint64_t n) { g_counters.launches += n; }

void counters_sync(void) { g_counters.syncs++; }

void counters_copy(char kind, size_t bytes)
{
    if (kind == 'u') {
        g_counters.copies_h2d++;
        g_counters.bytes_h2d += bytes;
    } else if (kind == 'd') {
        g_counters.copies_d2h++;
        g_counters.bytes_d2h += bytes;
        g_counters.syncs++; /* the CPU needs the data: it waits for the GPU */
    } else {
        g_counters.bytes_d2d += bytes;
    }
}

void counters_memory(long long delta)
{
    if (delta < 0 && (size_t)(-delta) > g_counters.mem_in_use)
        g_counters.mem_in_use = 0;
    else
        g_counters.mem_in_use = (size_t)((long long)g_counters.mem_in_use + delta);
    if (g_counters.mem_in_use > g_counters.mem_peak) g_counters.mem_peak = g_counters.mem_in_use;
}
