// CUB's device-wide algorithms with their two calls (the first, with
// d_temp_storage NULL, sizes the scratch; the second runs), against the CPU:
// cub::DeviceReduce (Sum, Max, Min, Reduce with an operator and an initial
// value, TransformReduce, ArgMax, ArgMin), cub::DeviceScan (InclusiveSum,
// ExclusiveSum, InclusiveScan, ExclusiveScan, in place too) and
// cub::DeviceRadixSort (SortPairs, SortKeys, descending, a DoubleBuffer, a
// range of bits, float keys with -0.0), on 0, 1, 7, 1000 and 100003 items
// (one tile, and many blocks). Also: a scratch smaller than the first call
// asked for is refused. The values are integers (and floats compared
// exactly), so a GPU with NVIDIA's CUB prints the same; the sizes of the
// scratch are CUB's own business and not printed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>
#include <cub/cub.cuh>

#define CHECK(call)                                                                               \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            printf("%s failed: %s\n", #call, cudaGetErrorString(e_));                             \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

struct MinAbs { /* the item of least absolute value (the first of two equal) */
    __host__ __device__ int operator()(const int &a, const int &b) const
    {
        int aa = a < 0 ? -a : a, bb = b < 0 ? -b : b;
        return bb < aa ? b : a;
    }
};
struct Square {
    __host__ __device__ long long operator()(const int &a) const { return (long long)a * a; }
};
struct AddLL {
    __host__ __device__ long long operator()(const long long &a, const long long &b) const { return a + b; }
};
struct MaxOp {
    __host__ __device__ int operator()(const int &a, const int &b) const { return a > b ? a : b; }
};

static int failures = 0;
#define EXPECT(what, got, want)                                                                   \
    do {                                                                                          \
        if ((got) != (want)) {                                                                    \
            failures++;                                                                           \
            printf("%s: %lld, expected %lld\n", what, (long long)(got), (long long)(want));      \
        }                                                                                         \
    } while (0)

/* The two calls of CUB's idiom, the scratch allocated between them. */
#define TWO_CALLS(call_with)                                                                      \
    do {                                                                                          \
        void *d_temp_storage = NULL;                                                              \
        size_t temp_storage_bytes = 0;                                                            \
        CHECK(call_with);                                                                         \
        CHECK(cudaMalloc(&d_temp_storage, temp_storage_bytes));                                   \
        CHECK(call_with);                                                                         \
        CHECK(cudaFree(d_temp_storage));                                                          \
    } while (0)

static void reductions(const std::vector<int> &h, int *d_in)
{
    int n = (int)h.size();
    int *d_out;
    long long *d_ll;
    int *d_index;
    cub::KeyValuePair<int, int> *d_pair;
    CHECK(cudaMalloc(&d_out, 8 * sizeof(int)));
    CHECK(cudaMalloc(&d_ll, sizeof(long long)));
    CHECK(cudaMalloc(&d_index, sizeof(int)));
    CHECK(cudaMalloc(&d_pair, sizeof *d_pair));
    TWO_CALLS(cub::DeviceReduce::Sum(d_temp_storage, temp_storage_bytes, d_in, d_out, n));
    TWO_CALLS(cub::DeviceReduce::Max(d_temp_storage, temp_storage_bytes, d_in, d_out + 1, n));
    TWO_CALLS(cub::DeviceReduce::Min(d_temp_storage, temp_storage_bytes, d_in, d_out + 2, n));
    TWO_CALLS(cub::DeviceReduce::Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out + 3, n, MinAbs(), 5000));
    TWO_CALLS(cub::DeviceReduce::TransformReduce(d_temp_storage, temp_storage_bytes, d_in, d_ll, n, AddLL(),
                                                 Square(), 0LL));
    TWO_CALLS(cub::DeviceReduce::ArgMax(d_temp_storage, temp_storage_bytes, d_in, d_out + 4, d_index, n));
    int r[8], index;
    long long squares;
    CHECK(cudaMemcpy(r, d_out, sizeof r, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&squares, d_ll, sizeof squares, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&index, d_index, sizeof index, cudaMemcpyDeviceToHost));
    TWO_CALLS(cub::DeviceReduce::ArgMin(d_temp_storage, temp_storage_bytes, d_in, d_pair, n));
    cub::KeyValuePair<int, int> argmin;
    CHECK(cudaMemcpy(&argmin, d_pair, sizeof argmin, cudaMemcpyDeviceToHost));

    long long sum = 0, sq = 0;
    int max = n ? h[0] : -2147483647 - 1, min = n ? h[0] : 2147483647, minabs = 5000, imax = 0, imin = 0;
    for (int i = 0; i < n; i++) {
        sum += h[i];
        sq += (long long)h[i] * h[i];
        if (h[i] > max) max = h[i], imax = i;
        if (h[i] < min) min = h[i], imin = i;
        minabs = MinAbs()(minabs, h[i]);
    }
    EXPECT("Sum", r[0], (int)sum);
    EXPECT("Max", r[1], max);
    EXPECT("Min", r[2], min);
    EXPECT("Reduce(MinAbs, 5000)", r[3], minabs);
    EXPECT("TransformReduce(square)", squares, sq);
    if (n) { /* (ArgMax of nothing: CUB's own convention) */
        EXPECT("ArgMax's value", r[4], max);
        EXPECT("ArgMax's index", index, imax);
        EXPECT("ArgMin (KeyValuePair) key", argmin.key, imin);
        EXPECT("ArgMin (KeyValuePair) value", argmin.value, min);
    }
    printf("DeviceReduce of %6d items: Sum %d, Max %d, Min %d, Reduce(MinAbs, 5000) %d, squares %lld", n, r[0],
           r[1], r[2], r[3], squares);
    if (n) printf(", ArgMax %d at %d, ArgMin %d at %d", r[4], index, argmin.value, argmin.key);
    printf("\n");
    cudaFree(d_out);
    cudaFree(d_ll);
    cudaFree(d_index);
    cudaFree(d_pair);
}

static void scans(const std::vector<int> &h, int *d_in)
{
    int n = (int)h.size();
    int *d_out, *d_data;
    CHECK(cudaMalloc(&d_out, (n + 1) * 4 * sizeof(int)));
    CHECK(cudaMalloc(&d_data, (n + 1) * sizeof(int)));
    TWO_CALLS(cub::DeviceScan::InclusiveSum(d_temp_storage, temp_storage_bytes, d_in, d_out, n));
    TWO_CALLS(cub::DeviceScan::ExclusiveSum(d_temp_storage, temp_storage_bytes, d_in, d_out + n, n));
    TWO_CALLS(cub::DeviceScan::InclusiveScan(d_temp_storage, temp_storage_bytes, d_in, d_out + 2 * n, MaxOp(), n));
    TWO_CALLS(cub::DeviceScan::ExclusiveScan(d_temp_storage, temp_storage_bytes, d_in, d_out + 3 * n, MaxOp(),
                                             -2000, n));
    if (n) CHECK(cudaMemcpy(d_data, d_in, n * sizeof(int), cudaMemcpyDeviceToDevice));
    TWO_CALLS(cub::DeviceScan::InclusiveSum(d_temp_storage, temp_storage_bytes, d_data, n));
    std::vector<int> r(4 * n + 1), inplace(n + 1);
    if (n) {
        CHECK(cudaMemcpy(r.data(), d_out, 4 * n * sizeof(int), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(inplace.data(), d_data, n * sizeof(int), cudaMemcpyDeviceToHost));
    }
    int incl = 0, excl = 0, imax = h.empty() ? 0 : h[0], emax = -2000, bad = 0;
    for (int i = 0; i < n; i++) {
        incl += h[i];
        imax = h[i] > imax ? h[i] : imax;
        bad += r[i] != incl || r[n + i] != excl || r[2 * n + i] != imax || r[3 * n + i] != emax ||
               inplace[i] != incl;
        excl += h[i];
        emax = h[i] > emax ? h[i] : emax;
    }
    EXPECT("DeviceScan: items differing from the CPU's", bad, 0);
    printf("DeviceScan of %6d items: last inclusive sum %d, exclusive sum %d, running max %d, from -2000 %d\n", n,
           n ? r[n - 1] : 0, n ? r[2 * n - 1] : 0, n ? r[3 * n - 1] : 0, n ? r[4 * n - 1] : 0);
    cudaFree(d_out);
    cudaFree(d_data);
}

static void sorts(const std::vector<int> &h, int *d_keys)
{
    int n = (int)h.size();
    int *d_kout, *d_vin, *d_vout, *d_k2, *d_v2;
    std::vector<int> idx(n);
    for (int i = 0; i < n; i++) idx[i] = i;
    CHECK(cudaMalloc(&d_kout, (n + 1) * sizeof(int)));
    CHECK(cudaMalloc(&d_vin, (n + 1) * sizeof(int)));
    CHECK(cudaMalloc(&d_vout, (n + 1) * sizeof(int)));
    CHECK(cudaMalloc(&d_k2, (n + 1) * sizeof(int)));
    CHECK(cudaMalloc(&d_v2, (n + 1) * sizeof(int)));
    if (n) CHECK(cudaMemcpy(d_vin, idx.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    /* pairs, ascending: a stable sort of the keys, the values their positions */
    TWO_CALLS(cub::DeviceRadixSort::SortPairs(d_temp_storage, temp_storage_bytes, d_keys, d_kout, d_vin, d_vout, n));
    std::vector<int> k(n + 1), v(n + 1), want = idx;
    std::stable_sort(want.begin(), want.end(), [&](int a, int b) { return h[a] < h[b]; });
    if (n) CHECK(cudaMemcpy(k.data(), d_kout, n * sizeof(int), cudaMemcpyDeviceToHost));
    if (n) CHECK(cudaMemcpy(v.data(), d_vout, n * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += k[i] != h[want[i]] || v[i] != want[i];
    EXPECT("SortPairs: items out of place", bad, 0);

    /* keys, descending, on the low 8 bits only: stable on the rest */
    TWO_CALLS(cub::DeviceRadixSort::SortKeysDescending(d_temp_storage, temp_storage_bytes, d_keys, d_kout, n, 0, 8));
    std::vector<int> low(h.begin(), h.end());
    std::stable_sort(low.begin(), low.end(), [](int a, int b) { return (a & 255) > (b & 255); });
    if (n) CHECK(cudaMemcpy(k.data(), d_kout, n * sizeof(int), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; i++) bad += k[i] != low[i];
    EXPECT("SortKeysDescending(bits 0-8): items out of place", bad, 0);

    /* a DoubleBuffer of pairs, descending: the result where Current() says */
    if (n) CHECK(cudaMemcpy(d_k2, d_keys, n * sizeof(int), cudaMemcpyDeviceToDevice));
    if (n) CHECK(cudaMemcpy(d_v2, d_vin, n * sizeof(int), cudaMemcpyDeviceToDevice));
    cub::DoubleBuffer<int> keys(d_k2, d_kout), values(d_v2, d_vout);
    TWO_CALLS(cub::DeviceRadixSort::SortPairsDescending(d_temp_storage, temp_storage_bytes, keys, values, n));
    want = idx;
    std::stable_sort(want.begin(), want.end(), [&](int a, int b) { return h[a] > h[b]; });
    if (n) CHECK(cudaMemcpy(k.data(), keys.Current(), n * sizeof(int), cudaMemcpyDeviceToHost));
    if (n) CHECK(cudaMemcpy(v.data(), values.Current(), n * sizeof(int), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; i++) bad += k[i] != h[want[i]] || v[i] != want[i];
    EXPECT("SortPairsDescending(DoubleBuffer): items out of place", bad, 0);
    printf("DeviceRadixSort of %6d items: smallest %d, largest %d, its value %d\n", n, n ? h[want[n - 1]] : 0,
           n ? k[0] : 0, n ? v[0] : 0);
    cudaFree(d_kout);
    cudaFree(d_vin);
    cudaFree(d_vout);
    cudaFree(d_k2);
    cudaFree(d_v2);
}

int main(void)
{
    const int sizes[] = {0, 1, 7, 1000, 100003};
    srand(2024);
    for (int n : sizes) {
        std::vector<int> h(n);
        for (int i = 0; i < n; i++) h[i] = rand() % 20001 - 10000;
        int *d_in;
        CHECK(cudaMalloc(&d_in, (n + 1) * sizeof(int)));
        if (n) CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
        reductions(h, d_in);
        scans(h, d_in);
        sorts(h, d_in);
        cudaFree(d_in);
    }

    /* CUB's documented snippet: keys [8, 6, 7, 5, 3, 0, 9], values [0, ..., 6] */
    int keys[7] = {8, 6, 7, 5, 3, 0, 9}, values[7] = {0, 1, 2, 3, 4, 5, 6};
    int *d_keys_in, *d_keys_out, *d_values_in, *d_values_out;
    CHECK(cudaMalloc(&d_keys_in, sizeof keys));
    CHECK(cudaMalloc(&d_keys_out, sizeof keys));
    CHECK(cudaMalloc(&d_values_in, sizeof values));
    CHECK(cudaMalloc(&d_values_out, sizeof values));
    CHECK(cudaMemcpy(d_keys_in, keys, sizeof keys, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_values_in, values, sizeof values, cudaMemcpyHostToDevice));
    TWO_CALLS(cub::DeviceRadixSort::SortPairs(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                                              d_values_in, d_values_out, 7));
    CHECK(cudaMemcpy(keys, d_keys_out, sizeof keys, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(values, d_values_out, sizeof values, cudaMemcpyDeviceToHost));
    printf("documented SortPairs: keys");
    for (int i = 0; i < 7; i++) printf(" %d", keys[i]);
    printf(", values");
    for (int i = 0; i < 7; i++) printf(" %d", values[i]);
    printf("\n");

    /* float keys: negatives, and -0.0 and +0.0 as equals, in their order */
    float f[8] = {2.5f, -0.0f, -3.0f, 0.0f, 1e-3f, -0.0f, -1e30f, 7.0f}, fo[8];
    float *d_f, *d_fo;
    CHECK(cudaMalloc(&d_f, sizeof f));
    CHECK(cudaMalloc(&d_fo, sizeof f));
    CHECK(cudaMemcpy(d_f, f, sizeof f, cudaMemcpyHostToDevice));
    TWO_CALLS(cub::DeviceRadixSort::SortKeys(d_temp_storage, temp_storage_bytes, d_f, d_fo, 8));
    CHECK(cudaMemcpy(fo, d_fo, sizeof fo, cudaMemcpyDeviceToHost));
    printf("SortKeys of floats:");
    for (int i = 0; i < 8; i++) printf(" %g", fo[i]);
    printf("\n");

    /* a scratch too small for what the first call asked (of many items:
     * CUB asks for none for one tile) */
    const int many = 100003;
    int *d_many, *d_sum;
    CHECK(cudaMalloc(&d_many, many * sizeof(int)));
    CHECK(cudaMalloc(&d_sum, sizeof(int)));
    CHECK(cudaMemset(d_many, 0, many * sizeof(int)));
    void *d_temp_storage = NULL;
    size_t temp_storage_bytes = 0;
    CHECK(cub::DeviceScan::InclusiveSum(d_temp_storage, temp_storage_bytes, d_many, d_many, many));
    CHECK(cudaMalloc(&d_temp_storage, temp_storage_bytes));
    size_t too_few = temp_storage_bytes / 2;
    cudaError_t e = cub::DeviceScan::InclusiveSum(d_temp_storage, too_few, d_many, d_many, many);
    printf("DeviceScan::InclusiveSum with half the scratch it asked for: %s\n", cudaGetErrorName(e));
    cudaFree(d_temp_storage);
    d_temp_storage = NULL;
    CHECK(cub::DeviceReduce::Sum(d_temp_storage, temp_storage_bytes, d_many, d_sum, many));
    CHECK(cudaMalloc(&d_temp_storage, temp_storage_bytes));
    too_few = temp_storage_bytes / 2;
    e = cub::DeviceReduce::Sum(d_temp_storage, too_few, d_many, d_sum, many);
    printf("DeviceReduce::Sum with half the scratch it asked for: %s\n", cudaGetErrorName(e));
    cudaFree(d_temp_storage);

    printf(failures ? "%d results differ from the CPU's\n" : "every result agrees with the CPU's\n", failures);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return failures != 0;
}
