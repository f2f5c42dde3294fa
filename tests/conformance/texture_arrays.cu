// CUDA arrays of every shape and the copies to and from them: a 3D array
// (cudaMalloc3DArray, cudaMemcpy3D) read with trilinear filtering, layered
// 1D and 2D arrays (the layer picks the slice), a cubemap and a layered one
// (the direction picks the face, by the Programming Guide's table), and the
// 2D, deprecated linear, array-to-array and asynchronous copies, each checked
// against the host's copy of the data.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "check.h"

// cudaMemcpyToArray and cudaMemcpyFromArray are deprecated, and used here on purpose.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

__global__ void fetch_3d(cudaTextureObject_t tex, const float4 *at, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<float>(tex, at[i].x, at[i].y, at[i].z);
}

__global__ void fetch_layers(cudaTextureObject_t t1, cudaTextureObject_t t2, float *o1, float *o2,
                             int w, int h, int layers)
{
    int x = threadIdx.x, y = threadIdx.y, l = blockIdx.x;
    if (y == 0) o1[l * w + x] = tex1DLayered<float>(t1, x + 0.5f, l);
    o2[(l * h + y) * w + x] = tex2DLayered<float>(t2, x + 0.5f, y + 0.5f, l);
}

// The centre of texel (x, y) of each face, as a direction (the samples' way).
__device__ float3 direction(int face, float u, float v)
{
    switch (face) {
    case 0: return make_float3(1, -v, -u);
    case 1: return make_float3(-1, -v, u);
    case 2: return make_float3(u, 1, v);
    case 3: return make_float3(u, -1, -v);
    case 4: return make_float3(u, -v, 1);
    default: return make_float3(-u, -v, -1);
    }
}

__global__ void fetch_cube(cudaTextureObject_t cube, cudaTextureObject_t layered, float *o1,
                           float *o2, int w)
{
    int x = threadIdx.x, y = threadIdx.y, face = blockIdx.x;
    float u = (x + 0.5f) / w * 2 - 1, v = (y + 0.5f) / w * 2 - 1;
    float3 d = direction(face, u, v);
    o1[(face * w + y) * w + x] = texCubemap<float>(cube, d.x, d.y, d.z);
    o2[(face * w + y) * w + x] = texCubemapLayered<float>(layered, d.x, d.y, d.z, 1);
}

static unsigned g_seed = 2024;
static float frand(void)
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return (float)(g_seed >> 8) / 16777216.0f;
}

static cudaTextureObject_t texture_of(cudaArray_t a, cudaTextureFilterMode filter, int normalized)
{
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
    td.filterMode = filter;
    td.normalizedCoords = normalized;
    cudaTextureObject_t t = 0;
    if (cudaCreateTextureObject(&t, &res, &td, NULL) != cudaSuccess) return 0;
    return t;
}

// Trilinear, by the Guide, with weights rounded to 1/256.
static double ref_3d(const float *v, int W, int H, int D, float x, float y, float z)
{
    float c[3] = {x, y, z};
    int n[3] = {W, H, D}, k[3];
    double w[3];
    for (int d = 0; d < 3; d++) {
        int q = (int)floor((double)(c[d] - 0.5f) * 256.0 + 0.5);
        k[d] = (int)floor(q / 256.0);
        w[d] = (q - k[d] * 256) / 256.0;
    }
    double sum = 0;
    for (int corner = 0; corner < 8; corner++) {
        double wt = 1;
        int idx[3];
        for (int d = 0; d < 3; d++) {
            int hi = corner >> d & 1;
            wt *= hi ? w[d] : 1 - w[d];
            idx[d] = k[d] + hi < 0 ? 0 : k[d] + hi >= n[d] ? n[d] - 1 : k[d] + hi;
        }
        sum += wt * v[(idx[2] * H + idx[1]) * W + idx[0]];
    }
    return sum;
}

int main(void)
{
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();

    // ---- 3D, copied by cudaMemcpy3D from a pitched host buffer ----
    const int W = 6, H = 5, D = 4, P = 8; // the host rows padded to 8 floats
    float host[D][H][P], v[D * H * W];
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < P; x++) {
                host[z][y][x] = x < W ? frand() * 10 - 5 : -1000; // the padding is never copied
                if (x < W) v[(z * H + y) * W + x] = host[z][y][x];
            }
    cudaArray_t a3;
    CHECK(cudaMalloc3DArray(&a3, &fd, make_cudaExtent(W, H, D)));
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(host, P * sizeof(float), W, H);
    p.dstArray = a3;
    p.extent = make_cudaExtent(W, H, D);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    cudaTextureObject_t t3 = texture_of(a3, cudaFilterModeLinear, 0);
    if (!t3) return 1;
    const int m = 300;
    float4 at[m], *dat;
    float got[m], *dgot;
    for (int i = 0; i < m; i++)
        at[i] = make_float4(frand() * (W + 2) - 1, frand() * (H + 2) - 1, frand() * (D + 2) - 1, 0);
    CHECK(cudaMalloc(&dat, sizeof at));
    CHECK(cudaMalloc(&dgot, sizeof got));
    CHECK(cudaMemcpy(dat, at, sizeof at, cudaMemcpyHostToDevice));
    fetch_3d<<<(m + 127) / 128, 128>>>(t3, dat, dgot, m);
    CHECK(cudaMemcpy(got, dgot, sizeof got, cudaMemcpyDeviceToHost));
    int good = 0;
    for (int i = 0; i < m; i++) {
        double want = ref_3d(v, W, H, D, at[i].x, at[i].y, at[i].z);
        good += fabs(got[i] - want) <= 1e-6 * (fabs(want) > 1 ? fabs(want) : 1);
    }
    printf("3D trilinear, clamped: %d of %d fetches as the reference\n", good, m);
    // Back to the host through cudaMemcpy3D, into a tight buffer.
    float back[D * H * W];
    memset(&p, 0, sizeof p);
    p.srcArray = a3;
    p.dstPtr = make_cudaPitchedPtr(back, W * sizeof(float), W, H);
    p.extent = make_cudaExtent(W, H, D);
    p.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&p));
    printf("3D array back to the host: %s\n", memcmp(back, v, sizeof v) ? "differs" : "as copied");
    cudaChannelFormatDesc info;
    cudaExtent ext;
    unsigned flags;
    CHECK(cudaArrayGetInfo(&info, &ext, &flags, a3));
    printf("cudaArrayGetInfo: %zux%zux%zu, %d-bit kind %d, flags %u\n", ext.width, ext.height,
           ext.depth, info.x, (int)info.f, flags);

    // ---- layered 1D and 2D: each layer its own values ----
    const int LW = 8, LH = 4, L = 3;
    float lay[L * LH * LW], lay1[L * LW];
    for (int i = 0; i < L * LH * LW; i++) lay[i] = (float)(i * 7 % 101);
    for (int i = 0; i < L * LW; i++) lay1[i] = (float)(1000 + i);
    cudaArray_t l1, l2;
    CHECK(cudaMalloc3DArray(&l1, &fd, make_cudaExtent(LW, 0, L), cudaArrayLayered));
    CHECK(cudaMalloc3DArray(&l2, &fd, make_cudaExtent(LW, LH, L), cudaArrayLayered));
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(lay1, LW * sizeof(float), LW, 1);
    p.dstArray = l1;
    p.extent = make_cudaExtent(LW, 1, L);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    p.srcPtr = make_cudaPitchedPtr(lay, LW * sizeof(float), LW, LH);
    p.dstArray = l2;
    p.extent = make_cudaExtent(LW, LH, L);
    CHECK(cudaMemcpy3D(&p));
    cudaTextureObject_t tl1 = texture_of(l1, cudaFilterModePoint, 0);
    cudaTextureObject_t tl2 = texture_of(l2, cudaFilterModePoint, 0);
    if (!tl1 || !tl2) return 1;
    float *o1, *o2, h1[L * LW], h2[L * LH * LW];
    CHECK(cudaMalloc(&o1, sizeof h1));
    CHECK(cudaMalloc(&o2, sizeof h2));
    fetch_layers<<<L, dim3(LW, LH)>>>(tl1, tl2, o1, o2, LW, LH, L);
    CHECK(cudaMemcpy(h1, o1, sizeof h1, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h2, o2, sizeof h2, cudaMemcpyDeviceToHost));
    printf("layered 1D: %s; layered 2D: %s\n", memcmp(h1, lay1, sizeof h1) ? "differs" : "each layer as copied",
           memcmp(h2, lay, sizeof h2) ? "differs" : "each layer as copied");

    // ---- cubemaps: a face's value is 100 * face + its texel ----
    const int CW = 4;
    float cube[2 * 6 * CW * CW];
    for (int i = 0; i < 2 * 6 * CW * CW; i++) cube[i] = (float)(100 * (i / (CW * CW)) + i % (CW * CW));
    cudaArray_t c1, c2;
    CHECK(cudaMalloc3DArray(&c1, &fd, make_cudaExtent(CW, CW, 6), cudaArrayCubemap));
    CHECK(cudaMalloc3DArray(&c2, &fd, make_cudaExtent(CW, CW, 12), cudaArrayCubemap | cudaArrayLayered));
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(cube, CW * sizeof(float), CW, CW);
    p.dstArray = c1;
    p.extent = make_cudaExtent(CW, CW, 6);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    p.dstArray = c2;
    p.extent = make_cudaExtent(CW, CW, 12);
    CHECK(cudaMemcpy3D(&p));
    cudaTextureObject_t tc1 = texture_of(c1, cudaFilterModeLinear, 1);
    cudaTextureObject_t tc2 = texture_of(c2, cudaFilterModeLinear, 1);
    if (!tc1 || !tc2) return 1;
    float *oc1, *oc2, hc1[6 * CW * CW], hc2[6 * CW * CW];
    CHECK(cudaMalloc(&oc1, sizeof hc1));
    CHECK(cudaMalloc(&oc2, sizeof hc2));
    fetch_cube<<<6, dim3(CW, CW)>>>(tc1, tc2, oc1, oc2, CW);
    CHECK(cudaMemcpy(hc1, oc1, sizeof hc1, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hc2, oc2, sizeof hc2, cudaMemcpyDeviceToHost));
    int cgood = 0, lgood = 0;
    for (int i = 0; i < 6 * CW * CW; i++) cgood += hc1[i] == cube[i], lgood += hc2[i] == cube[i + 6 * CW * CW];
    printf("cubemap: %d of %d texel centres on their face; layer 1 of a layered cubemap: %d of %d\n",
           cgood, 6 * CW * CW, lgood, 6 * CW * CW);

    // ---- 2D copies: to an array at an offset, out of it, between arrays ----
    const int AW = 8, AH = 6;
    float img[AH][AW], part[3][4], out[AH][AW];
    for (int y = 0; y < AH; y++)
        for (int x = 0; x < AW; x++) img[y][x] = (float)(y * AW + x);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++) part[y][x] = -(float)(y * 4 + x) - 1;
    cudaArray_t a2, b2;
    CHECK(cudaMallocArray(&a2, &fd, AW, AH));
    CHECK(cudaMallocArray(&b2, &fd, AW, AH));
    CHECK(cudaMemcpyToArray(a2, 0, 0, img, sizeof img, cudaMemcpyHostToDevice));
    // 4 floats x 3 rows at column 2, row 1 (the offset of a 2D copy is in bytes).
    CHECK(cudaMemcpy2DToArray(a2, 2 * sizeof(float), 1, part, sizeof part[0], sizeof part[0], 3,
                              cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2DArrayToArray(b2, 0, 0, a2, 0, 0, AW * sizeof(float), AH));
    CHECK(cudaMemcpy2DFromArray(out, sizeof out[0], b2, 0, 0, sizeof out[0], AH,
                                cudaMemcpyDeviceToHost));
    int placed = 0;
    for (int y = 0; y < AH; y++)
        for (int x = 0; x < AW; x++) {
            bool in = y >= 1 && y < 4 && x >= 2 && x < 6;
            placed += out[y][x] == (in ? part[y - 1][x - 2] : img[y][x]);
        }
    printf("2D copies to an offset, between arrays and back: %d of %d as placed\n", placed, AW * AH);
    // The deprecated linear form: from row 2, column 3 on, 10 floats, across rows.
    float ten[10];
    CHECK(cudaMemcpyFromArray(ten, b2, 3 * sizeof(float), 2, sizeof ten, cudaMemcpyDeviceToHost));
    printf("cudaMemcpyFromArray, 10 floats from (3, 2):");
    for (int i = 0; i < 10; i++) printf(" %g", ten[i]);
    printf("\n");
    // Asynchronously, on a stream, from device memory.
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float *dimg;
    CHECK(cudaMalloc(&dimg, sizeof img));
    CHECK(cudaMemcpy(dimg, img, sizeof img, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2DToArrayAsync(b2, 0, 0, dimg, sizeof img[0], sizeof img[0], AH,
                                   cudaMemcpyDeviceToDevice, s));
    CHECK(cudaMemcpy2DFromArrayAsync(out, sizeof out[0], b2, 0, 0, sizeof out[0], AH,
                                     cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("asynchronous copies on a stream: %s\n", memcmp(out, img, sizeof img) ? "differ" : "as copied");

    CHECK(cudaStreamDestroy(s));
    for (cudaTextureObject_t t : {t3, tl1, tl2, tc1, tc2}) CHECK(cudaDestroyTextureObject(t));
    for (cudaArray_t x : {a3, l1, l2, c1, c2, a2, b2}) CHECK(cudaFreeArray(x));
    for (void *q : {(void *)dat, (void *)dgot, (void *)o1, (void *)o2, (void *)oc1, (void *)oc2,
                    (void *)dimg})
        CHECK(cudaFree(q));
    return 0;
}
