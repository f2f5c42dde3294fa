// Shuffles of values wider than 8 bytes, as NVIDIA's shfl_scan sample does
// with a tile's shfl_xor of a uint4: an inclusive scan of uint4 and a
// shfl_down of a 12-byte struct, each lane's result checked against the
// host's. All integers, so a GPU prints the same.
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

namespace cg = cooperative_groups;

struct Three {
    int a, b, c;
};

__global__ void wide(uint4 *scan, Three *down)
{
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    unsigned l = tile.thread_rank();
    uint4 v = make_uint4(l, 2 * l, l * l, 1000 + l);
    for (int d = 1; d < 32; d *= 2) {  // an inclusive scan: Hillis and Steele
        uint4 o = tile.shfl_up(v, d);
        if ((int)l >= d) v.x += o.x, v.y += o.y, v.z += o.z, v.w += o.w;
    }
    scan[l] = v;
    Three t = {(int)l, -(int)l, 7 * (int)l};
    down[l] = tile.shfl_down(t, 3);
}

int main()
{
    uint4 *scan;
    Three *down;
    CHECK(cudaMallocManaged(&scan, 32 * sizeof(uint4)));
    CHECK(cudaMallocManaged(&down, 32 * sizeof(Three)));
    wide<<<1, 32>>>(scan, down);
    CHECK(cudaDeviceSynchronize());
    int bad = 0;
    unsigned sx = 0, sy = 0, sz = 0, sw = 0;
    for (unsigned l = 0; l < 32; l++) {
        sx += l, sy += 2 * l, sz += l * l, sw += 1000 + l;
        if (scan[l].x != sx || scan[l].y != sy || scan[l].z != sz || scan[l].w != sw) bad++;
        int from = l + 3 < 32 ? (int)l + 3 : (int)l;  // past the tile: its own value
        if (down[l].a != from || down[l].b != -from || down[l].c != 7 * from) bad++;
    }
    printf("uint4 scan, lane 31: %u %u %u %u\n", scan[31].x, scan[31].y, scan[31].z, scan[31].w);
    printf("12-byte shfl_down by 3, lane 0: %d %d %d; lane 30: %d %d %d\n", down[0].a, down[0].b,
           down[0].c, down[30].a, down[30].b, down[30].c);
    printf("%s\n", bad ? "FAILED" : "every lane as the host computes it");
    CHECK(cudaFree(scan));
    CHECK(cudaFree(down));
    return bad != 0;
}
