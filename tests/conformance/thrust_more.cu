// The rest of Thrust a course reaches for, on device_vectors, each with the
// example of Thrust's documentation whose result it publishes (quoted beside
// it), and a check of the same on a larger random input against the CPU:
// unique, unique_copy, unique_by_key, unique_by_key_copy, copy_if (with a
// stencil too), remove_if, remove, reduce_by_key, inclusive_scan_by_key,
// exclusive_scan_by_key, gather, scatter, scatter_if, adjacent_difference,
// find_if, partition (its selected part) and stable_partition, the binary
// searches, merge and the set operations, replace_if, reverse, tabulate,
// transform_if, transform_inclusive_scan, all_of/any_of/none_of, mismatch and
// inner_product. Small integers only, so a GPU prints the same.
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <thrust/adjacent_difference.h>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/find.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/inner_product.h>
#include <thrust/logical.h>
#include <thrust/merge.h>
#include <thrust/mismatch.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/replace.h>
#include <thrust/reverse.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/set_operations.h>
#include <thrust/tabulate.h>
#include <thrust/transform.h>
#include <thrust/transform_scan.h>
#include <thrust/unique.h>

struct is_even {
    __host__ __device__ bool operator()(int x) const { return x % 2 == 0; }
};
struct is_negative {
    __host__ __device__ bool operator()(int x) const { return x < 0; }
};
struct negate_it {
    __host__ __device__ int operator()(int x) const { return -x; }
};
struct nonzero {
    __host__ __device__ bool operator()(int x) const { return x != 0; }
};

template <typename It>
static void show(const char *what, It first, It last)
{
    thrust::host_vector<typename std::iterator_traits<It>::value_type> h(last - first);
    thrust::copy(first, last, h.begin());
    printf("%s:", what);
    for (size_t i = 0; i < h.size(); i++) printf(" %d", (int)h[i]);
    printf("\n");
}
template <typename V>
static void show(const char *what, const V &v)
{
    show(what, v.begin(), v.end());
}
static thrust::device_vector<int> dv(std::initializer_list<int> l)
{
    std::vector<int> h(l);
    return thrust::device_vector<int>(h.begin(), h.end());
}

static int failures = 0;
static void agree(const char *what, const thrust::device_vector<int> &got, const std::vector<int> &want)
{
    thrust::host_vector<int> h = got;
    bool same = h.size() == want.size() && std::equal(want.begin(), want.end(), h.begin());
    if (!same) failures++;
    printf("%-40s %s the CPU's (%d elements)\n", what, same ? "agrees with" : "DIFFERS from", (int)want.size());
}

int main(void)
{
    /* ---- Thrust's documented examples ---- */
    {
        thrust::device_vector<int> A = dv({1, 3, 3, 3, 2, 2, 1});
        auto end = thrust::unique(A.begin(), A.end());
        show("unique {1,3,3,3,2,2,1} (doc: 1 3 2 1)", A.begin(), end);
    }
    {
        thrust::device_vector<int> keys = dv({1, 3, 3, 3, 2, 2, 1}), vals = dv({9, 8, 7, 6, 5, 4, 3});
        auto ends = thrust::unique_by_key(keys.begin(), keys.end(), vals.begin());
        show("unique_by_key keys (doc: 1 3 2 1)", keys.begin(), ends.first);
        show("unique_by_key values (doc: 9 8 5 3)", vals.begin(), ends.second);
    }
    {
        thrust::device_vector<int> V = dv({-2, 0, -1, 0, 1, 2}), R(6);
        auto end = thrust::copy_if(V.begin(), V.end(), R.begin(), is_even());
        show("copy_if even (doc: -2 0 0 2)", R.begin(), end);
        thrust::device_vector<int> data = dv({-2, 0, -1, 0, 1, 2}), stencil = dv({1, 1, 0, 1, 0, 1}), S(6);
        end = thrust::copy_if(data.begin(), data.end(), stencil.begin(), S.begin(), nonzero());
        show("copy_if by a stencil (doc: -2 0 0 2)", S.begin(), end);
    }
    {
        thrust::device_vector<int> A = dv({1, 4, 2, 8, 5, 7});
        auto end = thrust::remove_if(A.begin(), A.end(), is_even());
        show("remove_if even (doc: 1 5 7)", A.begin(), end);
        thrust::device_vector<int> B = dv({3, 1, 4, 1, 5, 9});
        end = thrust::remove(B.begin(), B.end(), 1);
        show("remove 1 (doc: 3 4 5 9)", B.begin(), end);
    }
    {
        thrust::device_vector<int> keys = dv({1, 3, 3, 3, 2, 2, 1}), vals = dv({9, 8, 7, 6, 5, 4, 3});
        thrust::device_vector<int> ko(7), vo(7);
        auto ends = thrust::reduce_by_key(keys.begin(), keys.end(), vals.begin(), ko.begin(), vo.begin());
        show("reduce_by_key keys (doc: 1 3 2 1)", ko.begin(), ends.first);
        show("reduce_by_key values (doc: 9 21 9 3)", vo.begin(), ends.second);
    }
    {
        thrust::device_vector<int> keys = dv({0, 0, 0, 1, 1, 2, 3, 3, 3, 3}), vals(10, 1), out(10);
        thrust::inclusive_scan_by_key(keys.begin(), keys.end(), vals.begin(), out.begin());
        show("inclusive_scan_by_key (doc: 1 2 3 1 2 1 1 2 3 4)", out);
        thrust::exclusive_scan_by_key(keys.begin(), keys.end(), vals.begin(), out.begin(), 5);
        show("exclusive_scan_by_key from 5 (doc: 5 6 7 5 6 5 5 6 7 8)", out);
    }
    {
        thrust::device_vector<int> values = dv({1, 0, 1, 0, 1, 0, 1, 0, 1, 0});
        thrust::device_vector<int> map = dv({0, 2, 4, 6, 8, 1, 3, 5, 7, 9}), out(10);
        thrust::gather(map.begin(), map.end(), values.begin(), out.begin());
        show("gather (doc: 1 1 1 1 1 0 0 0 0 0)", out);
        thrust::device_vector<int> smap = dv({0, 5, 1, 6, 2, 7, 3, 8, 4, 9});
        thrust::scatter(values.begin(), values.end(), smap.begin(), out.begin());
        show("scatter (doc: 1 1 1 1 1 0 0 0 0 0)", out);
        thrust::device_vector<int> V = dv({10, 20, 30, 40, 50, 60, 70, 80}), M = dv({0, 5, 1, 6, 2, 7, 3, 4});
        thrust::device_vector<int> S = dv({1, 0, 1, 0, 1, 0, 1, 0}), D(8, 0);
        thrust::scatter_if(V.begin(), V.end(), M.begin(), S.begin(), D.begin());
        show("scatter_if (doc: 10 30 50 70 0 0 0 0)", D);
    }
    {
        thrust::device_vector<int> d = dv({1, 2, 1, 2, 1, 2, 1, 2}), r(8);
        thrust::adjacent_difference(d.begin(), d.end(), r.begin());
        show("adjacent_difference (doc: 1 1 -1 1 -1 1 -1 1)", r);
    }
    {
        thrust::device_vector<int> input = dv({0, 2, 5, 7, 8}), values = dv({0, 1, 2, 3, 8, 9}), out(6);
        thrust::lower_bound(input.begin(), input.end(), values.begin(), values.end(), out.begin());
        show("lower_bound (doc: 0 1 1 2 4 5)", out);
        thrust::upper_bound(input.begin(), input.end(), values.begin(), values.end(), out.begin());
        show("upper_bound (doc: 1 1 2 2 5 5)", out);
        thrust::device_vector<bool> found(6);
        thrust::binary_search(input.begin(), input.end(), values.begin(), values.end(), found.begin());
        show("binary_search (doc: 1 0 1 0 1 0)", found);
        printf("binary_search 7: %d, lower_bound of 6 at %d\n",
               (int)thrust::binary_search(input.begin(), input.end(), 7),
               (int)(thrust::lower_bound(input.begin(), input.end(), 6) - input.begin()));
    }
    {
        thrust::device_vector<int> A1 = dv({1, 3, 5, 7, 9, 11}), A2 = dv({1, 1, 2, 3, 5, 8, 13}), R(13);
        auto end = thrust::merge(A1.begin(), A1.end(), A2.begin(), A2.end(), R.begin());
        show("merge (doc: 1 1 1 2 3 3 5 5 7 8 9 11 13)", R.begin(), end);
        end = thrust::set_union(A1.begin(), A1.end(), A2.begin(), A2.end(), R.begin());
        show("set_union (doc: 1 1 2 3 5 7 8 9 11 13)", R.begin(), end);
        end = thrust::set_intersection(A1.begin(), A1.end(), A2.begin(), A2.end(), R.begin());
        show("set_intersection (doc: 1 3 5)", R.begin(), end);
        end = thrust::set_difference(A1.begin(), A1.end(), A2.begin(), A2.end(), R.begin());
        show("set_difference (doc: 7 9 11)", R.begin(), end);
        end = thrust::set_symmetric_difference(A1.begin(), A1.end(), A2.begin(), A2.end(), R.begin());
        show("set_symmetric_difference (doc: 1 2 7 8 9 11 13)", R.begin(), end);
    }
    {
        thrust::device_vector<int> A = dv({1, -3, 2, -1});
        thrust::replace_if(A.begin(), A.end(), is_negative(), 0);
        show("replace_if negative by 0 (doc: 1 0 2 0)", A);
        thrust::device_vector<int> v = dv({0, 1, 2, 3, 4, 5});
        thrust::reverse(v.begin(), v.end());
        show("reverse (doc: 5 4 3 2 1 0)", v);
        thrust::device_vector<int> t(5);
        thrust::tabulate(t.begin(), t.end(), thrust::negate<int>());
        show("tabulate negate (doc: 0 -1 -2 -3 -4)", t);
        thrust::device_vector<int> data = dv({-5, 0, 2, -3, 2, 4, 0, -1, 2, 8});
        thrust::transform_if(data.begin(), data.end(), data.begin(), negate_it(), is_negative());
        show("transform_if negate negatives (doc: 5 0 2 3 2 4 0 1 2 8)", data);
        thrust::device_vector<int> d = dv({1, 0, 2, 2, 1, 3}), s(6);
        thrust::transform_inclusive_scan(d.begin(), d.end(), s.begin(), thrust::negate<int>(), thrust::plus<int>());
        show("transform_inclusive_scan (doc: -1 -1 -3 -5 -6 -9)", s);
    }
    {
        thrust::device_vector<int> A = dv({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
        auto mid = thrust::partition(A.begin(), A.end(), is_even());
        thrust::sort(mid, A.end()); /* (partition does not keep the order of the rest) */
        show("partition even, the rest sorted (doc: 2 4 6 8 10 1 3 5 7 9)", A);
        thrust::device_vector<int> B = dv({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
        thrust::stable_partition(B.begin(), B.end(), is_even());
        show("stable_partition even (doc: 2 4 6 8 10 1 3 5 7 9)", B);
        auto it = thrust::find_if(A.begin(), A.end(), is_negative());
        printf("find_if negative: at %d; all even: %d, any even: %d, none negative: %d\n", (int)(it - A.begin()),
               (int)thrust::all_of(A.begin(), A.end(), is_even()), (int)thrust::any_of(A.begin(), A.end(), is_even()),
               (int)thrust::none_of(A.begin(), A.end(), is_negative()));
        thrust::device_vector<int> v1 = dv({0, 5, 3, 7}), v2 = dv({0, 5, 8, 7});
        auto where = thrust::mismatch(v1.begin(), v1.end(), v2.begin());
        thrust::device_vector<int> x = dv({1, 0, 2}), y = dv({1, 2, 3});
        printf("mismatch at %d (doc: 2), inner_product of {1,0,2} and {1,2,3}: %d (doc: 7)\n",
               (int)(where.first - v1.begin()), thrust::inner_product(x.begin(), x.end(), y.begin(), 0));
    }

    /* ---- random inputs against the CPU ---- */
    srand(99);
    const int n = 5000;
    std::vector<int> h(n), keys(n);
    for (int i = 0; i < n; i++) h[i] = rand() % 200 - 100, keys[i] = rand() % 4 == 0 ? i : (i ? keys[i - 1] : 0);
    thrust::device_vector<int> d(h.begin(), h.end()), k(keys.begin(), keys.end()), out(n), out2(n);
    std::vector<int> want;

    std::vector<int> sorted = h;
    std::sort(sorted.begin(), sorted.end());
    thrust::device_vector<int> ds(sorted.begin(), sorted.end());
    ds.resize(thrust::unique(ds.begin(), ds.end()) - ds.begin());
    want.assign(sorted.begin(), std::unique(sorted.begin(), sorted.end()));
    agree("unique of the sorted input", ds, want);

    out.resize(thrust::copy_if(d.begin(), d.end(), out.begin(), is_even()) - out.begin());
    want.clear();
    std::copy_if(h.begin(), h.end(), std::back_inserter(want), is_even());
    agree("copy_if even", out, want);

    out.resize(n);
    auto ends = thrust::reduce_by_key(k.begin(), k.end(), d.begin(), out.begin(), out2.begin());
    out2.resize(ends.second - out2.begin());
    want.clear();
    for (int i = 0; i < n; i++) {
        if (i == 0 || keys[i] != keys[i - 1])
            want.push_back(h[i]);
        else
            want.back() += h[i];
    }
    agree("reduce_by_key of runs of keys", out2, want);

    out.resize(n);
    thrust::inclusive_scan_by_key(k.begin(), k.end(), d.begin(), out.begin());
    want.assign(n, 0);
    for (int i = 0; i < n; i++) want[i] = (i && keys[i] == keys[i - 1] ? want[i - 1] : 0) + h[i];
    agree("inclusive_scan_by_key", out, want);

    thrust::adjacent_difference(d.begin(), d.end(), out.begin());
    for (int i = 0; i < n; i++) want[i] = i ? h[i] - h[i - 1] : h[0];
    agree("adjacent_difference", out, want);

    thrust::device_vector<int> map(n);
    std::vector<int> hmap(n);
    for (int i = 0; i < n; i++) hmap[i] = (i * 7919) % n;
    thrust::copy(hmap.begin(), hmap.end(), map.begin());
    thrust::gather(map.begin(), map.end(), d.begin(), out.begin());
    for (int i = 0; i < n; i++) want[i] = h[hmap[i]];
    agree("gather by a permutation", out, want);
    thrust::scatter(d.begin(), d.end(), map.begin(), out.begin());
    for (int i = 0; i < n; i++) want[hmap[i]] = h[i];
    agree("scatter by the same", out, want);

    thrust::device_vector<int> part = d;
    auto mid = thrust::stable_partition(part.begin(), part.end(), is_negative());
    want.clear();
    std::copy_if(h.begin(), h.end(), std::back_inserter(want), is_negative());
    std::copy_if(h.begin(), h.end(), std::back_inserter(want), [](int x) { return x >= 0; });
    agree("stable_partition negative", part, want);
    printf("stable_partition put %d negative items first\n", (int)(mid - part.begin()));

    printf(failures ? "%d results differ from the CPU's\n" : "every result agrees with the CPU's\n", failures);
    return failures != 0;
}
