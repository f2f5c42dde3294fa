/* counters.c: launch, sync, copy and memory counts. */
#include "lib/core/counters.h"

static Counters g_counters;
static char *g_trace;
static size_t g_trace_cap, g_trace_len;

static void trace(char event)
{
    if (!g_trace || g_trace_len + 1 >= g_trace_cap) return;
    g_trace[g_trace_len++] = event;
    g_trace[g_trace_len] = '\0';
}

void counters_trace(char *buf, size_t cap)
{
    g_trace = cap ? buf : NULL;
    g_trace_cap = cap;
    g_trace_len = 0;
    if (g_trace) g_trace[0] = '\0';
}

void counters_clock(void) { trace('C'); }

Counters counters_get(void) { return g_counters; }

void counters_reset(void)
{
    size_t in_use = g_counters.mem_in_use;
    int64_t tensors = g_counters.tensors;
    Counters zero = {0};
    g_counters = zero;
    g_counters.mem_in_use = g_counters.mem_peak = in_use;
    g_counters.tensors = tensors;
}

void counters_launch(uint64_t n)
{
    g_counters.launches += n;
    for (uint64_t i = 0; i < n; i++) trace('L');
}

void counters_sync(void)
{
    g_counters.syncs++;
    trace('S');
}

void counters_copy(char kind, size_t bytes)
{
    if (kind == 'u') {
        g_counters.copies_h2d++;
        g_counters.bytes_h2d += bytes;
    } else if (kind == 'd') {
        g_counters.copies_d2h++;
        g_counters.bytes_d2h += bytes;
        counters_sync(); /* the CPU needs the data: it waits for the GPU */
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

void counters_tensor(int delta) { g_counters.tensors += delta; }
