// The pictures of docs/simulator.md, "What a kernel's accesses cost", from a
// real run on the CUDA simulator: one warp's 32 addresses against the 32-byte
// sectors of global memory, and against the 32 banks of shared memory. The
// addresses are the simulator's record of the kernels' accesses
// (cudasim_trace_start), the counts beside them its profiler's.
//
//   make sim-run CU=docs/warp_access.cu ARGS=DIR INCLUDE=lib/cudasim NVCC=
//
// (make docs runs it; cudasim.h is the simulator's own API, which nvcc has not)
//
// writes DIR/warp_sectors.dat and DIR/warp_banks.dat, which docs/warp_access.gp
// draws. The simulator only: a GPU records no accesses.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cudasim.h"

__global__ void coalesced(const float *in, float *out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void offset_by_one(const float *in, float *out) { out[threadIdx.x] = in[threadIdx.x + 1]; }
__global__ void stride_two(const float *in, float *out) { out[threadIdx.x] = in[2 * threadIdx.x]; }
__global__ void broadcast(const float *in, float *out) { out[threadIdx.x] = in[0]; }

// A warp reading column 0 of a 32 x (32 + PAD) tile: lane t at word t (32 + PAD).
template <int PAD>
__global__ void tile_column(const float *in, float *out)
{
    __shared__ float tile[32][32 + PAD];
    for (int k = 0; k < 32; k++) tile[k][threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x][0];
}

// One launch of `launch`, traced: its loads (shared or global) by lane, and the
// launch's counts, as a block of the data file with its title first.
template <typename F>
static void one(FILE *f, const char *name, bool shared, uint64_t base, F launch)
{
    cudasim_trace_start();
    launch();
    cudaDeviceSynchronize();
    cudasim_trace_stop();
    CudasimCounters c;
    cudasim_profile_last(&c);
    size_t n = 0;
    const uint32_t *w = cudasim_trace_words(&n);
    if (shared)
        fprintf(f, "# %s: %llu wavefronts for %llu instruction\n", name, c.sh_ld_wavefronts,
                c.sh_ld_inst);
    else
        fprintf(f, "# %s: %llu sectors for %llu request\n", name, c.ld_sectors, c.ld_requests);
    unsigned long long count = shared ? c.sh_ld_wavefronts : c.ld_sectors;
    fprintf(f, "\"%s: %llu %s%s\"\n", name, count, shared ? "wavefront" : "sector",
            count == 1 ? "" : "s");
    uint64_t first = UINT64_MAX; /* the lowest shared address: the tile's start */
    for (size_t i = 0; shared && i < n; i += CUDASIM_TRACE_WORDS) {
        uint64_t addr = (uint64_t)w[i + 5] | (uint64_t)w[i + 6] << 32;
        if ((w[i + 4] >> 4 & 1) && addr < first) first = addr;
    }
    for (size_t i = 0; i < n; i += CUDASIM_TRACE_WORDS) {
        unsigned kind = w[i + 4] & 0xf, sh = (w[i + 4] >> 4) & 1;
        uint64_t addr = (uint64_t)w[i + 5] | (uint64_t)w[i + 6] << 32;
        if (kind != 0 || sh != (unsigned)shared) continue;
        if (shared) /* lane, bank, the word's place in its bank (from the tile's start) */
            fprintf(f, "%u %llu %llu\n", w[i + 2], (unsigned long long)(addr / 4 % 32),
                    (unsigned long long)((addr - first) / 4 / 32));
        else /* lane, byte from the start of the buffer */
            fprintf(f, "%u %llu\n", w[i + 2], (unsigned long long)(addr - base));
    }
    fprintf(f, "\n\n");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: warp_access DIR (make sim-run CU=docs/warp_access.cu ARGS=DIR)\n");
        return 2;
    }
    std::string dir = argv[1];
    FILE *sectors = fopen((dir + "/warp_sectors.dat").c_str(), "w");
    FILE *banks = fopen((dir + "/warp_banks.dat").c_str(), "w");
    if (!sectors || !banks) {
        fprintf(stderr, "warp_access: cannot write in %s\n", argv[1]);
        return 1;
    }
    float h[128], *in, *out;
    for (int i = 0; i < 128; i++) h[i] = (float)i;
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, sizeof h);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    uint64_t base = (uint64_t)(uintptr_t)in;
    one(sectors, "coalesced", false, base, [&] { coalesced<<<1, 32>>>(in, out); });
    one(sectors, "offset by one float", false, base, [&] { offset_by_one<<<1, 32>>>(in, out); });
    one(sectors, "stride 2", false, base, [&] { stride_two<<<1, 32>>>(in, out); });
    one(sectors, "broadcast", false, base, [&] { broadcast<<<1, 32>>>(in, out); });
    one(banks, "tile[32][32], a column", true, 0, [&] { tile_column<0><<<1, 32>>>(in, out); });
    one(banks, "tile[32][33], a column", true, 0, [&] { tile_column<1><<<1, 32>>>(in, out); });
    fclose(sectors);
    fclose(banks);
    cudaFree(in);
    cudaFree(out);
    printf("warp_access: %s/warp_sectors.dat and warp_banks.dat\n", argv[1]);
    return 0;
}
