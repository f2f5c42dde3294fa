/* mlp_fused.cu: a whole MLP training, every epoch, in one kernel launch.
 *
 * The network is Lesson 01's: Linear(d, h) -> ReLU -> Linear(h, c), mean
 * cross-entropy, plain SGD on the full batch. Trained layer by layer on the
 * GPU, an epoch is about a dozen small launches (matrix products, bias, ReLU,
 * softmax, reductions, SGD steps), and for Iris (n = 120, d = 4, h = 10,
 * c = 3) each launch has almost nothing to do: the GPU spends the epoch on
 * launch overhead and loses to a vectorised CPU loop that needs ~2 us per
 * epoch. This kernel removes the launches: the training loop runs inside it.
 *
 * Why one block. The epochs are sequential (epoch e + 1 needs the weights
 * epoch e wrote) and every sample needs every weight, so the threads must
 * wait for each other twice per epoch. Threads of one block can do that with
 * __syncthreads(), a few dozen cycles; threads of different blocks cannot
 * (short of a grid-wide sync, which costs far more). The problem is tiny, so
 * one block of at most 1024 threads, one per sample, on one SM, is all the
 * machine it needs.
 *
 * What lives where.
 *   registers  Thread i is sample i: its input, its logits and dLoss/dlogits,
 *              and the values of a few hidden units at a time. A sample's
 *              forward and backward passes never leave its thread.
 *   shared     The parameters, as records (below; at most 9360 bytes), and
 *              the partial sums of their gradients, one row per warp (at most
 *              38400 bytes): 47760 bytes of static shared memory in all.
 *              All threads read the same weight at the same time, so each
 *              read is a broadcast, one transaction for the whole warp.
 *   global     x and y are read once, the parameters once in and once out,
 *              and one float per epoch goes out (the loss).
 *
 * Records. Hidden unit o owns w2(:, o), w1(o, :) and b1(o): c + d + 1 floats,
 * stored side by side as record o, padded to a multiple of 4 floats so that
 * it loads as 16-byte reads:
 *       slot   0 .. c-1        c .. c+d-1        c+d      (padding)
 *              w2(0..c-1, o)   w1(o, 0..d-1)     b1(o)    0
 * One more record after them holds b2. A sample keeps its input in the same
 * layout, xs = (0 .. 0, x(i, 0..d-1), 1, 0 ..), and dLoss/dlogits as
 * dz = (dz(0..c-1), 0 ..), so for hidden unit o
 *       pre-activation  = record . xs        (w1(o, :) x + b1(o))
 *       dLoss/da(o)     = record . dz        (sum over j of dz(j) w2(j, o))
 *       its gradient    = a(o) dz + dh(o) xs (dw2(:, o), dw1(o, :), db1(o))
 * with a = relu(pre) and dh = pre > 0 ? dLoss/da : 0. One loop over the slots
 * does each, and the gradient comes out laid out like the record it updates.
 * The slots live in M registers, M = c + d + 1 rounded up to a power of two;
 * registers cannot be indexed at run time, so M is a template parameter (the
 * kernel exists for M = 4, 8, 16, 32 and 64; Iris is M = 8) and every loop
 * over slots unrolls completely.
 *
 * Summing the gradients over the samples. Each thread holds its sample's
 * contribution; SGD needs the sum over all n. A warp adds up its 32 lanes with
 * shuffles, registers to registers, without shared memory or a barrier, but
 * not with the textbook tree on each value (5 shuffles per value): with W
 * slots, a "reduce-scatter" butterfly has lanes swap halves of their slots
 * with __shfl_xor_sync and keep the sum of one half, W/2 + W/4 + ... shuffles
 * in all, after which each lane holds the warp's total of one slot. Narrow
 * records are packed P to a butterfly (4 records of 8 slots for Iris: 31
 * shuffles where the tree needs 160), because each butterfly is a chain of 5
 * dependent shuffles and fewer, fuller chains wait less. One lane per slot
 * writes the total to the warp's row in shared memory; after a barrier, each
 * thread adds up one slot over the warps' rows, in warp order, and takes the
 * SGD step. No atomics: every sum has a fixed order, so two runs give the
 * same bits. The per-sample losses and b2's gradient go the same way, in the
 * row's b2 record (the loss in slot c).
 *
 * Barriers per epoch: two (plus one before the first epoch, after the
 * parameters are loaded):
 *   1. after every warp has written its partial sums, before any thread adds
 *      them up and updates the parameters, and
 *   2. after the updates, before the next forward pass reads them.
 * Both are all-to-all dependencies (every gradient needs every warp; every
 * sample needs every new weight), so with one copy of the parameters two is
 * the least there can be. Nothing else needs one: the forward and backward
 * passes only read the parameters, each warp writes only its own row, and a
 * shuffle synchronises its warp by itself. When the partial sums of all h
 * records do not fit in shared memory (many warps and wide records: n = 1024
 * with c + d + 1 = 33 takes 22 chunks), the hidden units go in chunks and
 * barrier 1 comes once per chunk: chunk k's sums are added up and applied
 * while the warps already work on chunk k + 1 (other records), and the partial
 * sums alternate between two buffers, so that chunk k + 1 cannot overwrite
 * what chunk k's adders still read (which would cost another barrier per
 * chunk).
 *
 * Registers are the limit: a block of 1024 threads may use at most 64 per
 * thread (__launch_bounds__ tells the compiler), which fits M <= 16 without
 * spilling; M = 32 and 64 spill some to local memory (cached, slower, still
 * correct). Layouts and shapes: kernels.h.
 */
#include <math.h>
#include <stdint.h>

#include "kernels.h"

#define MF_MAX_N 1024 /* samples: one thread each, one block */
#define MF_MAX_D 16   /* inputs */
#define MF_MAX_H 64   /* hidden units */
#define MF_MAX_C 16   /* classes */
#define MF_WARP 32
#define MF_FULL_MASK 0xffffffffu
/* The widest record, c + d + 1 slots rounded up to 16 bytes. */
#define MF_MAX_STRIDE ((MF_MAX_C + MF_MAX_D + 1 + 3) / 4 * 4)
/* h records and b2's, at most 9360 bytes. */
#define MF_PARAM_FLOATS ((MF_MAX_H + 1) * MF_MAX_STRIDE)
/* The partial sums of the gradients; with the parameters, just under the 48 KiB
 * of static shared memory a block may have. */
#define MF_GRAD_FLOATS 9600

/* Four floats that load and store as one 16-byte access (what float4 is). */
struct __align__(16) MfQuad {
    float x, y, z, w;
};

/* The kernel's arguments, passed as one struct (the kernel has one instance
 * per record width, and each is launched on its own line). */
struct MfArgs {
    const float *x;   /* (n, d) */
    const int32_t *y; /* (n) */
    float *w1, *b1;   /* (h, d), (h) */
    float *w2, *b2;   /* (c, h), (c) */
    float *losses;    /* (epochs) or NULL */
    int n, d, h, c, epochs;
    float lr;
    int units;   /* hidden units per chunk: h, or fewer when their sums do not fit */
    int buffers; /* 1 with a single chunk, else 2 (the chunks alternate) */
};

/* Record `rec` (stride floats, 16-byte aligned) into M registers; slots at
 * and past stride (M may be wider) read as 0. */
template <int M>
static __device__ __forceinline__ void load_record(const float *rec, int stride, float *r)
{
    const MfQuad *q = (const MfQuad *)rec;
#pragma unroll
    for (int j = 0; j < M / 4; j++) {
        MfQuad t = {0.0f, 0.0f, 0.0f, 0.0f};
        if (4 * j < stride) t = q[j]; /* stride is a multiple of 4 */
        r[4 * j] = t.x;
        r[4 * j + 1] = t.y;
        r[4 * j + 2] = t.z;
        r[4 * j + 3] = t.w;
    }
}

/* One step of the butterfly below, with the lane whose index differs in
 * `mask`: with HALF >= 1, this lane and its partner each hold 2 * HALF slots;
 * the lane with the mask bit set keeps the upper HALF and sends the lower,
 * its partner the opposite, and each adds what it receives to what it kept.
 * With HALF == 0 (one value left) both add their whole values. */
template <int HALF>
static __device__ __forceinline__ void butterfly_step(float *v, int lane, int mask)
{
    if (HALF >= 1) {
        const bool upper = (lane & mask) != 0;
#pragma unroll
        for (int j = 0; j < HALF; j++) {
            /* Values first: `upper ? v[j] : v[j + HALF]` would pick between two
             * addresses (in C++ it is an lvalue) and push v[] out of registers. */
            const float lo = v[j], hi = v[j + HALF];
            const float send = upper ? lo : hi, keep = upper ? hi : lo;
            v[j] = keep + __shfl_xor_sync(MF_FULL_MASK, send, mask);
        }
    } else {
        v[0] += __shfl_xor_sync(MF_FULL_MASK, v[0], mask);
    }
}

/* The reduce-scatter butterfly: sums v[0..M-1] over the 32 lanes of a warp.
 * Each step halves the slots a lane holds (M/2 + M/4 + ... shuffles), so
 * after log2(M) steps (at most 5) a lane holds one slot summed over M lanes;
 * the remaining steps add whole values (the classic xor tree). At the end
 * lane l holds, in v[0 .. K-1] with K = max(M / 32, 1), the warp's totals of
 * slots (l / L) * K + 0 .. K-1, where L = max(32 / M, 1) lanes share each
 * slot. All 32 lanes must call it. M is a compile-time constant and the steps
 * are written out, so that every loop unrolls and every v[...] is a register. */
template <int M>
static __device__ __forceinline__ void warp_reduce_scatter(float *v, int lane)
{
    butterfly_step<M / 2>(v, lane, 16);
    butterfly_step<M / 4>(v, lane, 8);
    butterfly_step<M / 8>(v, lane, 4);
    butterfly_step<M / 16>(v, lane, 2);
    butterfly_step<M / 32>(v, lane, 1);
}

/* After warp_reduce_scatter<W> on W / M records of M slots side by side: one
 * lane per slot writes the warp's total of slot s of record p to
 * rows[p * stride + s], for the first `records` records and s < stride (the
 * other slots are padding). */
template <int W, int M>
static __device__ __forceinline__ void store_slots(const float *v, int lane, float *rows,
                                                   int stride, int records)
{
    const int lanes_per_slot = W >= MF_WARP ? 1 : MF_WARP / W;
    const int per_lane = W >= MF_WARP ? W / MF_WARP : 1;
    if (lane % lanes_per_slot != 0) return;
#pragma unroll
    for (int k = 0; k < per_lane; k++) {
        const int slot = lane / lanes_per_slot * per_lane + k;
        const int p = slot / M, s = slot % M;
        if (p < records && s < stride) rows[p * stride + s] = v[k];
    }
}

/* The training. M, a power of two >= c + d + 1, is the number of register
 * slots per record. Thread i is sample i; threads i >= n (the rest of the
 * last warp) take part in every shuffle and barrier with zero gradients. */
template <int M>
static __launch_bounds__(MF_MAX_N) __global__ void mlp_fused_kernel(MfArgs a)
{
    __shared__ __align__(16) float params[MF_PARAM_FLOATS];
    __shared__ float partial[MF_GRAD_FLOATS];

    /* Registers for the logits and dLoss/dlogits: c <= MC of them are used. */
    const int MC = M < MF_MAX_C ? M : MF_MAX_C;
    /* Records per butterfly in the backward pass: narrow ones (M = 4 or 8) go
     * 8 or 4 at a time, 32 slots, one per lane at the end; wider ones alone
     * (two records of 16 would need more than the 64 registers a thread may
     * have in a block of 1024). */
    const int P = M < 16 ? 32 / M : 1;
    const int n = a.n, d = a.d, h = a.h, c = a.c;
    const int tid = threadIdx.x, lane = tid % MF_WARP, warp = tid / MF_WARP;
    const int nthreads = blockDim.x, nwarps = nthreads / MF_WARP;
    const int stride = (c + d + 1 + 3) / 4 * 4; /* floats per record */
    const int units = a.units;
    const int row_floats = (units + 1) * stride;   /* a warp's row: units records and b2's */
    const int buffer_floats = nwarps * row_floats; /* one buffer: every warp's row */
    float *b2_record = params + h * stride;

    /* The parameters into records: (h + 1) * stride floats, padding 0. */
    for (int e = tid; e < (h + 1) * stride; e += nthreads) {
        int o = e / stride, s = e - o * stride;
        float p = 0.0f;
        if (o < h) {
            if (s < c) p = a.w2[s + o * c];
            else if (s < c + d) p = a.w1[o + (s - c) * h];
            else if (s == c + d) p = a.b1[o];
        } else if (s < c) {
            p = a.b2[s];
        }
        params[e] = p;
    }

    /* This thread's sample, in the record layout: xs = (0.., x(i, :), 1, 0..). */
    const bool active = tid < n;
    float xs[M];
#pragma unroll
    for (int s = 0; s < M; s++) {
        int k = s - c;
        xs[s] = 0.0f;
        if (active && k >= 0 && k < d) xs[s] = a.x[tid + k * n];
        if (active && s == c + d) xs[s] = 1.0f;
    }
    const int label = active ? a.y[tid] : 0;
    const float inv_n = 1.0f / (float)n;
    __syncthreads(); /* the parameters are in */

    for (int epoch = 0; epoch < a.epochs; epoch++) {
        /* Forward: logits z (c of MC registers) = b2 + sum over o of w2(:, o) a(o),
         * a = relu(record . xs). */
        float z[MC];
#pragma unroll
        for (int j = 0; j < MC; j++) z[j] = j < c ? b2_record[j] : 0.0f;
        for (int o = 0; o < h; o++) {
            float r[M];
            load_record<M>(params + o * stride, stride, r);
            float pre = 0.0f;
#pragma unroll
            for (int s = 0; s < M; s++) pre = fmaf(r[s], xs[s], pre);
            float act = fmaxf(pre, 0.0f);
#pragma unroll
            for (int j = 0; j < MC; j++)
                if (j < c) z[j] = fmaf(r[j], act, z[j]);
        }

        /* Softmax cross-entropy, stable: subtract the row maximum so every exp <= 1.
         * dz(j) = (p(j) - [j == label]) / n, and 0 in the slots past c. */
        float zmax = z[0];
#pragma unroll
        for (int j = 1; j < MC; j++)
            if (j < c) zmax = fmaxf(zmax, z[j]);
        float sum = 0.0f, picked = 0.0f;
#pragma unroll
        for (int j = 0; j < MC; j++) {
            if (j == label) picked = z[j];
            z[j] = j < c ? expf(z[j] - zmax) : 0.0f;
            sum += z[j];
        }
        float loss = zmax + logf(sum) - picked;
        const float inv_sum = 1.0f / sum; /* one division, c multiplications */
        float dz[MC];
#pragma unroll
        for (int j = 0; j < MC; j++)
            dz[j] = j < c ? (z[j] * inv_sum - (j == label ? 1.0f : 0.0f)) * inv_n : 0.0f;
        if (label < 0 || label >= c) { /* no valid class: NaN, loudly */
            loss = nanf("");
#pragma unroll
            for (int j = 0; j < MC; j++)
                if (j < c) dz[j] = nanf("");
        }
        if (!active) {
            loss = 0.0f;
#pragma unroll
            for (int j = 0; j < MC; j++) dz[j] = 0.0f;
        }

        /* The b2 record of this warp's row in buffer 0 (chunk 0's): dz in slots
         * 0 .. c-1 (b2's gradient), the loss in slot c. */
        {
            float v[M];
#pragma unroll
            for (int s = 0; s < M; s++) v[s] = (s < MC ? dz[s] : 0.0f) + (s == c ? loss : 0.0f);
            warp_reduce_scatter<M>(v, lane);
            store_slots<M, M>(v, lane, partial + warp * row_floats + units * stride, stride, 1);
        }

        for (int o0 = 0, chunk = 0; o0 < h; o0 += units, chunk++) {
            const int count = min(units, h - o0);
            float *buffer = partial + (chunk % a.buffers) * buffer_floats;

            /* Backward, P hidden units at a time: each one's record gradient for
             * this sample, side by side in P * M registers, summed over the warp
             * into the warp's row by one butterfly. (The shuffles of a butterfly
             * wait on each other, so packing records makes fewer, fuller ones;
             * the compiler cannot unroll a loop of shuffles for us.) */
            for (int u = 0; u < count; u += P) {
                float v[P * M];
#pragma unroll
                for (int p = 0; p < P; p++) {
                    float r[M];
                    if (u + p < count) {
                        load_record<M>(params + (o0 + u + p) * stride, stride, r);
                    } else { /* past the chunk's last unit: zeros, never stored */
#pragma unroll
                        for (int s = 0; s < M; s++) r[s] = 0.0f;
                    }
                    float pre = 0.0f, da = 0.0f;
#pragma unroll
                    for (int s = 0; s < M; s++) {
                        pre = fmaf(r[s], xs[s], pre); /* recomputed: cheaper than keeping h */
                        if (s < MC) da = fmaf(r[s], dz[s], da);
                    }
                    const float act = fmaxf(pre, 0.0f);
                    const float dh = pre > 0.0f ? da : 0.0f; /* ReLU's backward */
#pragma unroll
                    for (int s = 0; s < M; s++)
                        v[p * M + s] = dh * xs[s] + (s < MC ? act * dz[s] : 0.0f);
                }
                warp_reduce_scatter<P * M>(v, lane);
                store_slots<P * M, M>(v, lane, buffer + warp * row_floats + u * stride, stride,
                                      count - u);
            }
            __syncthreads(); /* barrier 1: every warp's sums for this chunk are in */

            /* Sum over the warps, in warp order, and take the SGD step; chunk 0
             * also steps b2 and writes the epoch's mean loss. */
            const int slots = count * stride;
            const int total = slots + (chunk == 0 ? c + 1 : 0);
            for (int e = tid; e < total; e += nthreads) {
                const int at = e < slots ? e : units * stride + (e - slots);
                float g = 0.0f;
                for (int w = 0; w < nwarps; w++) g += buffer[w * row_floats + at];
                if (e < slots)
                    params[o0 * stride + e] -= a.lr * g;
                else if (e - slots < c)
                    b2_record[e - slots] -= a.lr * g;
                else if (a.losses)
                    a.losses[epoch] = g / (float)n;
            }
        }
        __syncthreads(); /* barrier 2: the new parameters are in for the next epoch */
    }

    /* The parameters back out, from the records. */
    for (int e = tid; e < (h + 1) * stride; e += nthreads) {
        int o = e / stride, s = e - o * stride;
        float p = params[e];
        if (o < h) {
            if (s < c) a.w2[s + o * c] = p;
            else if (s < c + d) a.w1[o + (s - c) * h] = p;
            else if (s == c + d) a.b1[o] = p;
        } else if (s < c) {
            a.b2[s] = p;
        }
    }
}

extern "C" cudaError_t k_mlp_train_fused(const float *x, const int32_t *y, int n, int d, int h,
                                         int c, float *w1, float *b1, float *w2, float *b2,
                                         int epochs, float lr, float *losses, cudaStream_t s)
{
    if (n < 1 || n > MF_MAX_N || d < 1 || d > MF_MAX_D || h < 1 || h > MF_MAX_H || c < 1 ||
        c > MF_MAX_C || epochs < 0 || !x || !y || !w1 || !b1 || !w2 || !b2)
        return cudaErrorInvalidValue;
    if (epochs == 0) return cudaSuccess;

    const int threads = (n + MF_WARP - 1) / MF_WARP * MF_WARP, nwarps = threads / MF_WARP;
    const int width = c + d + 1, stride = (width + 3) / 4 * 4;
    MfArgs args = {x, y, w1, b1, w2, b2, losses, n, d, h, c, epochs, lr, h, 1};
    if (nwarps * (h + 1) * stride > MF_GRAD_FLOATS) {
        /* Chunks of hidden units, two buffers of partial sums. At the limits
         * (32 warps, stride 36) 9600 floats still hold 3 units a chunk. */
        args.units = MF_GRAD_FLOATS / (2 * nwarps * stride) - 1;
        args.buffers = 2;
    }
    /* Slots in registers: the record width rounded up to a power of two. */
    if (width <= 4)
        mlp_fused_kernel<4><<<1, threads, 0, s>>>(args);
    else if (width <= 8)
        mlp_fused_kernel<8><<<1, threads, 0, s>>>(args);
    else if (width <= 16)
        mlp_fused_kernel<16><<<1, threads, 0, s>>>(args);
    else if (width <= 32)
        mlp_fused_kernel<32><<<1, threads, 0, s>>>(args);
    else
        mlp_fused_kernel<64><<<1, threads, 0, s>>>(args);
    return cudaGetLastError();
}
