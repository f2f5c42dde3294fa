/* cpuinfo.c: lscpu's facts from /proc/cpuinfo, /proc/meminfo and sysfs. */
#define _POSIX_C_SOURCE 200809L
#include "lib/device/cpuinfo.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/core/err.h"
#include "lib/core/fileio.h"

#define MAX_CPUS 4096

/* The value after "key<blanks>:" on a line, or NULL. */
static const char *field_value(const char *line, const char *key)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) != 0) return NULL;
    const char *p = line + k;
    while (*p == ' ' || *p == '\t') p++;
    if (*p != ':') return NULL;
    p++;
    while (*p == ' ') p++;
    return p;
}

static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n) {
        int starts = p == list || p[-1] == ' ';
        int ends = p[n] == '\0' || p[n] == ' ' || p[n] == '\n';
        if (starts && ends) return 1;
    }
    return 0;
}

static void simd_from_flags(const char *flags, char *out, size_t size)
{
    static const struct {
        const char *flag, *name;
    } known[] = {
        {"sse2", "SSE2"},       {"sse4_2", "SSE4.2"},           {"avx", "AVX"},
        {"avx2", "AVX2"},       {"fma", "FMA"},                 {"f16c", "F16C"},
        {"avx512f", "AVX-512F"}, {"avx512bw", "AVX-512BW"},     {"avx512vl", "AVX-512VL"},
        {"avx512_vnni", "AVX-512VNNI"}, {"avx512_bf16", "AVX-512BF16"},
        {"avx512_fp16", "AVX-512FP16"}, {"amx_tile", "AMX"},   {"asimd", "NEON"},
        {"asimdhp", "NEON-FP16"}, {"sve", "SVE"},               {"sve2", "SVE2"},
    };
    out[0] = '\0';
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (has_word(flags, known[i].flag)) {
            size_t used = strlen(out);
            snprintf(out + used, size - used, "%s%s", used ? " " : "", known[i].name);
        }
}

int cpuinfo_parse(const char *text, CpuInfo *info)
{
    memset(info, 0, sizeof *info);
    int *pkg = malloc(MAX_CPUS * sizeof *pkg), *core = malloc(MAX_CPUS * sizeof *core);
    if (!pkg || !core) {
        free(pkg);
        free(core);
        return err_set(ERR_NOMEM, "cpuinfo: out of memory");
    }
    int n = 0, have_topology = 0;
    char line[4096];
    const char *p = text;
    while (*p) {
        size_t len = strcspn(p, "\n");
        size_t keep = len < sizeof line - 1 ? len : sizeof line - 1;
        memcpy(line, p, keep);
        line[keep] = '\0';
        p += len + (p[len] == '\n');
        const char *v;
        if ((v = field_value(line, "processor")) != NULL) {
            if (n < MAX_CPUS) {
                pkg[n] = 0;
                core[n] = n;
            }
            n++;
        } else if ((v = field_value(line, "model name")) != NULL && !info->model[0]) {
            snprintf(info->model, sizeof info->model, "%s", v);
        } else if ((v = field_value(line, "vendor_id")) != NULL && !info->vendor[0]) {
            snprintf(info->vendor, sizeof info->vendor, "%s", v);
        } else if ((v = field_value(line, "physical id")) != NULL && n > 0 && n <= MAX_CPUS) {
            pkg[n - 1] = atoi(v);
            have_topology = 1;
        } else if ((v = field_value(line, "core id")) != NULL && n > 0 && n <= MAX_CPUS) {
            core[n - 1] = atoi(v);
        } else if (((v = field_value(line, "flags")) != NULL ||
                    (v = field_value(line, "Features")) != NULL) &&
                   !info->simd[0]) {
            simd_from_flags(v, info->simd, sizeof info->simd);
        }
    }
    info->logical = n;
    if (n > MAX_CPUS) n = MAX_CPUS;
    /* Count distinct packages and distinct (package, core) pairs. */
    int cores = 0, sockets = 0, tmin = 0, tmax = 0;
    for (int i = 0; i < n; i++) {
        int first_core = 1, first_pkg = 1, threads = 0;
        for (int j = 0; j < n; j++) {
            if (pkg[j] == pkg[i] && core[j] == core[i]) {
                threads++;
                if (j < i) first_core = 0;
            }
            if (j < i && pkg[j] == pkg[i]) first_pkg = 0;
        }
        sockets += first_pkg;
        if (first_core) {
            cores++;
            if (!tmin || threads < tmin) tmin = threads;
            if (threads > tmax) tmax = threads;
        }
    }
    if (!have_topology) { /* no topology fields: assume one thread per core */
        sockets = n ? 1 : 0;
        cores = n;
        tmin = tmax = n ? 1 : 0;
    }
    info->sockets = sockets;
    info->cores = cores;
    info->threads_min = tmin;
    info->threads_max = tmax;
    free(pkg);
    free(core);
    return ERR_OK;
}

/* The contents of a small system file, or NULL when it cannot be read. */
static char *slurp(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    if (fileio_read(path, &text, &len) != ERR_OK) return NULL;
    return text;
}

static void read_caches(char *out, size_t size)
{
    out[0] = '\0';
    for (int i = 0; i < 8; i++) {
        char path[128], *level, *type, *csize;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (!(level = slurp(path))) break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        type = slurp(path);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        csize = slurp(path);
        if (type && csize && strncmp(type, "Instruction", 11) != 0) {
            long kib = atol(csize);
            size_t used = strlen(out);
            const char *suffix = strncmp(type, "Data", 4) == 0 ? "d" : "";
            if (kib >= 1024 && kib % 1024 == 0)
                snprintf(out + used, size - used, "%sL%d%s %ld MiB", used ? ", " : "", atoi(level),
                         suffix, kib / 1024);
            else
                snprintf(out + used, size - used, "%sL%d%s %ld KiB", used ? ", " : "", atoi(level),
                         suffix, kib);
        }
        free(level);
        free(type);
        free(csize);
    }
}

int cpuinfo_read(CpuInfo *info)
{
    char *text = slurp("/proc/cpuinfo");
    if (!text) {
        memset(info, 0, sizeof *info);
        return err_set(ERR_UNSUPPORTED, "cpuinfo: /proc/cpuinfo is not readable on this system");
    }
    int rc = cpuinfo_parse(text, info);
    free(text);
    if (rc) return rc;
    char *mem = NULL;
    size_t len = 0;
    if (fileio_read("/proc/meminfo", &mem, &len) == ERR_OK) {
        const char *total = strstr(mem, "MemTotal:");
        if (total) info->mem_gib = atof(total + 9) / (1024.0 * 1024.0);
        free(mem);
    }
    read_caches(info->caches, sizeof info->caches);
    char *version = slurp("/proc/version");
    info->wsl = version && cpuinfo_is_wsl(version);
    free(version);
    return ERR_OK;
}

bool cpuinfo_is_wsl(const char *text)
{
    /* WSL 2 kernels say "microsoft-standard-WSL2", WSL 1 "Microsoft": any case of it. */
    for (const char *p = text; p && *p; p++)
        if (strncasecmp(p, "microsoft", 9) == 0) return true;
    return false;
}

const char *cpuinfo_build_simd(void)
{
#if defined(__AVX512F__)
    return "AVX-512 (16 floats per instruction)";
#elif defined(__AVX2__) && defined(__FMA__)
    return "AVX2 + FMA (8 floats per instruction)";
#elif defined(__AVX__)
    return "AVX (8 floats per instruction)";
#elif defined(__SSE2__)
    return "SSE2 (4 floats per instruction)";
#elif defined(__ARM_NEON)
    return "NEON (4 floats per instruction)";
#else
    return "no SIMD (scalar code)";
#endif
}

void cpuinfo_print(const CpuInfo *info, FILE *out)
{
    fprintf(out, "  Model name:          %s\n", info->model[0] ? info->model : "(not reported)");
    fprintf(out, "  Socket(s):           %d\n", info->sockets);
    fprintf(out, "  Core(s) per socket:  %d\n", info->sockets ? info->cores / info->sockets : 0);
    if (info->threads_min == info->threads_max)
        fprintf(out, "  Thread(s) per core:  %d\n", info->threads_max);
    else
        fprintf(out, "  Thread(s) per core:  %d to %d (a hybrid CPU: cores differ)\n",
                info->threads_min, info->threads_max);
    fprintf(out, "  CPU(s):              %d logical\n", info->logical);
    if (info->caches[0]) fprintf(out, "  Caches (per CPU 0):  %s\n", info->caches);
    fprintf(out, "  SIMD offered:        %s\n", info->simd[0] ? info->simd : "(not reported)");
    fprintf(out, "  SIMD this build uses: %s\n", cpuinfo_build_simd());
    if (info->mem_gib > 0) fprintf(out, "  Memory:              %.1f GiB\n", info->mem_gib);
}
