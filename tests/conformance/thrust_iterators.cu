// Thrust's iterators made of iterators, on device_vectors, as its
// documentation uses them: zip_iterator (make_zip_iterator of a tuple, and of
// the iterators themselves), transform_iterator, permutation_iterator,
// reverse_iterator, discard_iterator and make_zip_function; thrust::pair,
// tuple, make_tuple and get; sort and sort_by_key with zipped values, a
// reduction over a zip of two vectors, copies between host and device through
// them; thrust::next, prev and distance. The values are small integers (and
// floats that are exact), so a GPU prints the same.
#include <cstdio>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/advance.h>
#include <thrust/copy.h>
#include <thrust/distance.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/tuple.h>
#include <thrust/pair.h>
#include <thrust/zip_function.h>

struct square {
    __host__ __device__ int operator()(int x) const { return x * x; }
};
// The sum of two tuples, element by element.
struct add_pairs {
    __host__ __device__ thrust::tuple<int, float> operator()(const thrust::tuple<int, float> &a,
                                                             const thrust::tuple<int, float> &b) const
    {
        return thrust::make_tuple(thrust::get<0>(a) + thrust::get<0>(b), thrust::get<1>(a) + thrust::get<1>(b));
    }
};
// (3i, 5i): two outputs at once.
struct three_and_five {
    __host__ __device__ thrust::tuple<int, int> operator()(int i) const { return thrust::make_tuple(i * 3, i * 5); }
};
// a * x + y, from a zip of x and y.
struct saxpy {
    float a;
    __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

template <typename V>
static void show(const char *what, const V &v)
{
    thrust::host_vector<typename V::value_type> h = v;
    printf("%s:", what);
    for (size_t i = 0; i < h.size(); i++) printf(" %g", (double)h[i]);
    printf("\n");
}

int main(void)
{
    /* pair and tuple */
    thrust::pair<int, char> p = thrust::make_pair(3, 'x');
    thrust::tuple<int, float, char> t = thrust::make_tuple(1, 2.5f, 'y');
    printf("pair (%d, %c), tuple (%d, %g, %c), tuple_size %d\n", p.first, p.second, thrust::get<0>(t),
           thrust::get<1>(t), thrust::get<2>(t), (int)thrust::tuple_size<decltype(t)>::value);

    /* a zip of two vectors, reduced as tuples */
    thrust::device_vector<int> A(5);
    thrust::device_vector<float> B(5);
    thrust::sequence(A.begin(), A.end(), 1);
    thrust::sequence(B.begin(), B.end(), 0.5f, 0.25f);
    auto zbegin = thrust::make_zip_iterator(thrust::make_tuple(A.begin(), B.begin()));
    auto zend = thrust::make_zip_iterator(thrust::make_tuple(A.end(), B.end()));
    thrust::tuple<int, float> sums =
        thrust::reduce(zbegin, zend, thrust::make_tuple(0, 0.0f), add_pairs());
    printf("zip of A and B reduced: (%d, %g), %d elements apart\n", thrust::get<0>(sums), thrust::get<1>(sums),
           (int)(zend - zbegin));

    /* sort by one key, the zipped values following; then a sort of the zip itself */
    thrust::device_vector<int> keys(6), v1(6), v2(6);
    int hk[6] = {3, 1, 2, 1, 3, 0};
    thrust::copy(hk, hk + 6, keys.begin());
    thrust::sequence(v1.begin(), v1.end());
    thrust::sequence(v2.begin(), v2.end(), 10, 10);
    thrust::sort_by_key(keys.begin(), keys.end(), thrust::make_zip_iterator(v1.begin(), v2.begin()));
    show("keys sorted", keys);
    show("v1 followed", v1);
    show("v2 followed", v2);
    thrust::copy(hk, hk + 6, keys.begin());
    thrust::sort(thrust::make_zip_iterator(keys.begin(), v1.begin()),
                 thrust::make_zip_iterator(keys.end(), v1.end()), thrust::greater<thrust::tuple<int, int>>());
    show("zip sorted, keys", keys);
    show("zip sorted, v1", v1);

    /* transform_iterator: the squares, summed without storing them */
    int squares = thrust::reduce(thrust::make_transform_iterator(A.begin(), square()),
                                 thrust::make_transform_iterator(A.end(), square()));
    printf("sum of squares of A through a transform_iterator: %d\n", squares);

    /* permutation_iterator: elements picked by a map; reverse_iterator */
    thrust::device_vector<int> map(4);
    int hm[4] = {4, 0, 4, 2};
    thrust::copy(hm, hm + 4, map.begin());
    thrust::device_vector<int> picked(4);
    thrust::copy(thrust::make_permutation_iterator(A.begin(), map.begin()),
                 thrust::make_permutation_iterator(A.begin(), map.end()), picked.begin());
    show("A permuted by {4, 0, 4, 2}", picked);
    int permuted_sum = thrust::reduce(thrust::make_permutation_iterator(A.begin(), map.begin()),
                                      thrust::make_permutation_iterator(A.begin(), map.end()));
    printf("their sum: %d\n", permuted_sum);
    thrust::device_vector<int> backwards(5);
    thrust::copy(thrust::make_reverse_iterator(A.end()), thrust::make_reverse_iterator(A.begin()),
                 backwards.begin());
    show("A reversed", backwards);

    /* a zip as output: two vectors written at once; a discard_iterator as one of them */
    thrust::device_vector<int> X(5), Y(5);
    thrust::transform(thrust::make_counting_iterator(0), thrust::make_counting_iterator(5),
                      thrust::make_zip_iterator(X.begin(), thrust::make_discard_iterator()),
                      three_and_five());
    show("X from a zip with a discard_iterator", X);

    /* make_zip_function: saxpy over a zip of B and itself */
    thrust::device_vector<float> S(5);
    thrust::transform(thrust::make_zip_iterator(B.begin(), B.begin()), thrust::make_zip_iterator(B.end(), B.end()),
                      S.begin(), thrust::make_zip_function(saxpy{2.0f}));
    show("2 B + B", S);

    /* from the device to the host through a zip, and back */
    thrust::host_vector<int> hx(5);
    thrust::host_vector<float> hy(5);
    thrust::copy(zbegin, zend, thrust::make_zip_iterator(hx.begin(), hy.begin()));
    printf("copied to the host through zips: A[4] %d, B[4] %g\n", hx[4], hy[4]);
    thrust::copy(thrust::make_zip_iterator(hx.begin(), hy.begin()), thrust::make_zip_iterator(hx.end(), hy.end()),
                 thrust::make_zip_iterator(Y.begin(), S.begin()));
    show("and back into Y", Y);
    thrust::device_vector<int> squared(thrust::make_transform_iterator(A.begin(), square()),
                                       thrust::make_transform_iterator(A.end(), square()));
    show("a device_vector made from a transform_iterator", squared);
    printf("thrust::next(A.begin(), 2): %d, thrust::prev(A.end()): %d, thrust::distance: %d\n",
           (int)*thrust::next(A.begin(), 2), (int)*thrust::prev(A.end()), (int)thrust::distance(A.begin(), A.end()));
    return 0;
}
