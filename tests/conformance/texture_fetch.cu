// Texture objects over linear memory, pitched 2D memory and a 2D cudaArray,
// fetched with every address mode, point and linear filtering, normalized
// and unnormalized coordinates, against a CPU reference written from the
// CUDA Programming Guide's appendix "Texture Fetching": the texel at floor(x)
// for point filtering; for linear filtering the texels around x - 0.5,
// weighted by its fractional part in fixed point with 8 bits of fraction
// (a GPU rounds the weight to a multiple of 1/256); wrap and mirror on
// normalized coordinates before they are scaled, and clamp in their stead
// without normalized coordinates. A fetch out of range is never an error.
// Point fetches must be the texel itself; linear ones within 1e-6 of the
// reference (the last bits of a blend are the texture unit's), while the
// same blend with exact weights is off by up to 1/512 of the texels' range.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "check.h"

__global__ void fetch_linear(cudaTextureObject_t ti, cudaTextureObject_t tf, int *oi, float *of,
                             int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        oi[i] = tex1Dfetch<int>(ti, i - 3); // 3 below the start and past the end: zeros
        tex1Dfetch(&of[i], tf, i - 3);      // the form that stores through a pointer
    }
}

__global__ void fetch_2d(cudaTextureObject_t tex, const float2 *at, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(tex, at[i].x, at[i].y);
}

__global__ void fetch_1d(cudaTextureObject_t tex, const float *at, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float>(tex, at[i]);
}

// ---- the reference ----

enum { WRAP, CLAMP, MIRROR, BORDER };
static const char *mode_name[] = {"wrap", "clamp", "mirror", "border"};

// A texel index k of an axis of n under mode m; -1 for the border.
static int ref_index(int k, int n, int m)
{
    if (k >= 0 && k < n) return k;
    if (m == WRAP) return ((k % n) + n) % n;
    if (m == MIRROR) return k < 0 ? -k - 1 : 2 * n - 1 - k;
    if (m == BORDER) return -1;
    return k < 0 ? 0 : n - 1;
}

// One axis: the first texel and the weight of the second (0 for a point);
// exact: the weight unrounded.
static void ref_axis(float c, int n, int m, bool normalized, bool linear, int *k, double *w,
                     bool exact = false)
{
    if (normalized) {
        if (m == WRAP) c = c - floorf(c);
        if (m == MIRROR) c = ((int)floorf(c) & 1) ? 1.0f - (c - floorf(c)) : c - floorf(c);
        c *= (float)n;
    } else if (m == WRAP || m == MIRROR) {
        m = CLAMP;
    }
    if (!linear) {
        *k = (int)floorf(c);
        *w = 0;
        return;
    }
    float xb = c - 0.5f;
    if (exact) {
        *k = (int)floorf(xb);
        *w = (double)xb - *k;
        return;
    }
    int q = (int)floor((double)xb * 256.0 + 0.5); // 8 bits of fraction, rounded
    *k = (int)floor(q / 256.0);
    *w = (q - *k * 256) / 256.0;
}

static double ref_2d(const float *v, int W, int H, float x, float y, int m, bool norm, bool linear,
                     float border, bool exact = false)
{
    int i, j;
    double a, b;
    ref_axis(x, W, m, norm, linear, &i, &a, exact);
    ref_axis(y, H, m, norm, linear, &j, &b, exact);
    int mx = (!norm && (m == WRAP || m == MIRROR)) ? CLAMP : m;
    auto T = [&](int ii, int jj) {
        int xi = ref_index(ii, W, mx), yj = ref_index(jj, H, mx);
        return (double)(xi < 0 || yj < 0 ? border : v[yj * W + xi]);
    };
    if (!linear) return T(i, j);
    return (1 - a) * (1 - b) * T(i, j) + a * (1 - b) * T(i + 1, j) + (1 - a) * b * T(i, j + 1) +
           a * b * T(i + 1, j + 1);
}

// A seeded generator for the texels and the coordinates.
static unsigned g_seed = 12345;
static float frand(void)
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return (float)(g_seed >> 8) / 16777216.0f;
}

int main(void)
{
    // ---- tex1Dfetch over linear memory ----
    const int n = 100, nf = n + 6;
    int hi[n], *di, *doi;
    float hf[n], *df, *dof;
    for (int i = 0; i < n; i++) hi[i] = 3 * i - 7, hf[i] = 0.5f * i - 1.0f;
    CHECK(cudaMalloc(&di, sizeof hi));
    CHECK(cudaMalloc(&df, sizeof hf));
    CHECK(cudaMalloc(&doi, nf * sizeof(int)));
    CHECK(cudaMalloc(&dof, nf * sizeof(float)));
    CHECK(cudaMemcpy(di, hi, sizeof hi, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(df, hf, sizeof hf, cudaMemcpyHostToDevice));
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = di;
    res.res.linear.desc = cudaCreateChannelDesc<int>();
    res.res.linear.sizeInBytes = sizeof hi;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    cudaTextureObject_t ti, tf;
    CHECK(cudaCreateTextureObject(&ti, &res, &td, NULL));
    res.res.linear.devPtr = df;
    res.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    CHECK(cudaCreateTextureObject(&tf, &res, &td, NULL));
    fetch_linear<<<1, 128>>>(ti, tf, doi, dof, nf);
    CHECK(cudaGetLastError());
    int goti[nf];
    float gotf[nf];
    CHECK(cudaMemcpy(goti, doi, sizeof goti, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(gotf, dof, sizeof gotf, cudaMemcpyDeviceToHost));
    int good = 0;
    for (int i = 0; i < nf; i++) {
        int k = i - 3;
        bool in = k >= 0 && k < n;
        good += goti[i] == (in ? hi[k] : 0) && gotf[i] == (in ? hf[k] : 0.0f);
    }
    printf("tex1Dfetch: %d of %d as the buffer (zeros outside it): [-3] %d, [0] %d, [99] %d, "
           "[100] %d; float [1] %g\n",
           good, nf, goti[0], goti[3], goti[102], goti[103], gotf[4]);
    CHECK(cudaDestroyTextureObject(ti));
    CHECK(cudaDestroyTextureObject(tf));

    // ---- a 2D cudaArray: every address mode, both filters ----
    const int W = 7, H = 5;
    float v[W * H];
    for (int i = 0; i < W * H; i++) v[i] = frand() * 8.0f - 2.0f;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &fd, W, H));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, v, W * sizeof(float), W * sizeof(float), H,
                              cudaMemcpyHostToDevice));
    const int m = 400;
    float2 at[m], *dat;
    float got[m], *dgot;
    for (int i = 0; i < m; i++) at[i] = make_float2(frand() * 3.4f - 1.2f, frand() * 3.4f - 1.2f);
    at[0] = make_float2(0.5f / W, 0.5f / H); // the first texel's centre
    at[1] = make_float2(1.0f, 1.0f);         // the far corner
    CHECK(cudaMalloc(&dat, sizeof at));
    CHECK(cudaMalloc(&dgot, sizeof got));
    CHECK(cudaMemcpy(dat, at, sizeof at, cudaMemcpyHostToDevice));
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = arr;
    for (int norm = 1; norm >= 0; norm--)
        for (int mode = WRAP; mode <= BORDER; mode++)
            for (int linear = 0; linear <= 1; linear++) {
                memset(&td, 0, sizeof td);
                td.addressMode[0] = td.addressMode[1] = (cudaTextureAddressMode)mode;
                td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
                td.normalizedCoords = norm;
                td.borderColor[0] = -9.5f;
                cudaTextureObject_t t;
                CHECK(cudaCreateTextureObject(&t, &res, &td, NULL));
                float2 scaled[m];
                for (int i = 0; i < m; i++)
                    scaled[i] = norm ? at[i] : make_float2(at[i].x * W, at[i].y * H);
                CHECK(cudaMemcpy(dat, scaled, sizeof scaled, cudaMemcpyHostToDevice));
                fetch_2d<<<(m + 127) / 128, 128>>>(t, dat, dgot, m);
                CHECK(cudaGetLastError());
                CHECK(cudaMemcpy(got, dgot, sizeof got, cudaMemcpyDeviceToHost));
                int same = 0, outside = 0, off_exact = 0;
                for (int i = 0; i < m; i++) {
                    double want = ref_2d(v, W, H, scaled[i].x, scaled[i].y, mode, norm, linear, -9.5f);
                    double exact = ref_2d(v, W, H, scaled[i].x, scaled[i].y, mode, norm, linear, -9.5f, true);
                    double tol = 1e-6 * (fabs(want) > 1 ? fabs(want) : 1);
                    same += linear ? fabs(got[i] - want) <= tol : got[i] == (float)want;
                    off_exact += fabs(got[i] - exact) > tol;
                    outside += norm ? (at[i].x < 0 || at[i].x >= 1 || at[i].y < 0 || at[i].y >= 1) : 0;
                }
                printf("2D %-6s %-6s %-12s: %d of %d fetches as the reference", mode_name[mode],
                       linear ? "linear" : "point", norm ? "normalized" : "unnormalized", same, m);
                if (norm && mode == WRAP && !linear) printf(" (%d of them outside [0, 1))", outside);
                if (linear) printf(" (%d off the exact weights')", off_exact);
                printf("; centre of texel 0 %.7g (texel %.7g)\n", got[0], v[0]);
                CHECK(cudaDestroyTextureObject(t));
            }

    // ---- 9-bit weights: texels 0 and 1, fetched between them ----
    float ramp[2] = {0.0f, 1.0f};
    cudaArray_t ra;
    CHECK(cudaMallocArray(&ra, &fd, 2));
    CHECK(cudaMemcpy2DToArray(ra, 0, 0, ramp, sizeof ramp, sizeof ramp, 1, cudaMemcpyHostToDevice));
    res.res.array.array = ra;
    memset(&td, 0, sizeof td);
    td.filterMode = cudaFilterModeLinear;
    td.addressMode[0] = cudaAddressModeClamp;
    cudaTextureObject_t tr;
    CHECK(cudaCreateTextureObject(&tr, &res, &td, NULL));
    float xs[6] = {0.5f, 0.8f, 0.5f + 1.0f / 512, 0.5f + 1.0f / 1024, 1.2f, 1.5f}, *dxs, ys[6];
    CHECK(cudaMalloc(&dxs, sizeof xs));
    CHECK(cudaMemcpy(dxs, xs, sizeof xs, cudaMemcpyHostToDevice));
    fetch_1d<<<1, 6>>>(tr, dxs, dgot, 6);
    CHECK(cudaMemcpy(ys, dgot, sizeof ys, cudaMemcpyDeviceToHost));
    // x - 0.5 = 0.3 is 76.8/256: rounded to 77/256 = 0.30078125; 1/512 is half of 1/256:
    // rounded up to 1/256; 1/1024 is a quarter: rounded down to 0.
    printf("tex1D linear on {0, 1}: at 0.5 %.9g, at 0.8 %.9g, at 0.5+1/512 %.9g, at 0.5+1/1024 "
           "%.9g, at 1.2 %.9g, at 1.5 %.9g\n",
           ys[0], ys[1], ys[2], ys[3], ys[4], ys[5]);

    // ---- pitched 2D memory ----
    float *dp;
    size_t pitch;
    CHECK(cudaMallocPitch(&dp, &pitch, W * sizeof(float), H));
    CHECK(cudaMemcpy2D(dp, pitch, v, W * sizeof(float), W * sizeof(float), H,
                       cudaMemcpyHostToDevice));
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = dp;
    res.res.pitch2D.desc = fd;
    res.res.pitch2D.width = W;
    res.res.pitch2D.height = H;
    res.res.pitch2D.pitchInBytes = pitch;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    cudaTextureObject_t tp;
    CHECK(cudaCreateTextureObject(&tp, &res, &td, NULL));
    float2 cells[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) cells[y * W + x] = make_float2(x + 0.5f, y + 0.5f);
    CHECK(cudaMemcpy(dat, cells, sizeof cells, cudaMemcpyHostToDevice));
    fetch_2d<<<1, W * H>>>(tp, dat, dgot, W * H);
    CHECK(cudaMemcpy(got, dgot, W * H * sizeof(float), cudaMemcpyDeviceToHost));
    good = 0;
    for (int i = 0; i < W * H; i++) good += got[i] == v[i];
    printf("pitched 2D memory (pitch %s the row): %d of %d texels as copied\n",
           pitch > W * sizeof(float) ? "wider than" : "equal to", good, W * H);
    cudaResourceDesc back;
    CHECK(cudaGetTextureObjectResourceDesc(&back, tp));
    printf("its resource: type %d, %zux%zu, pitch as given %s\n", (int)back.resType,
           back.res.pitch2D.width, back.res.pitch2D.height,
           back.res.pitch2D.pitchInBytes == pitch ? "yes" : "no");

    CHECK(cudaDestroyTextureObject(tr));
    CHECK(cudaDestroyTextureObject(tp));
    CHECK(cudaFreeArray(arr));
    CHECK(cudaFreeArray(ra));
    CHECK(cudaFree(di));
    CHECK(cudaFree(df));
    CHECK(cudaFree(doi));
    CHECK(cudaFree(dof));
    CHECK(cudaFree(dat));
    CHECK(cudaFree(dgot));
    CHECK(cudaFree(dxs));
    CHECK(cudaFree(dp));
    return 0;
}
