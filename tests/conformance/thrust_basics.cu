// Thrust's common algorithms on device_vector, as its quick start guide and
// a course use them: host_vector to device_vector and back, sequence, fill,
// transform with functors (SAXPY), reduce, transform_reduce,
// inclusive and exclusive scans, count, sort, sort_by_key, min and max,
// a counting iterator, thrust::device on raw pointers from cudaMalloc, and a
// kernel of our own on raw_pointer_cast. The values are small integers, so
// every sum is exact and a GPU prints the same.
#include <cstdio>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

struct saxpy_functor {
    const float a;
    saxpy_functor(float a_) : a(a_) {}
    __host__ __device__ float operator()(const float &x, const float &y) const { return a * x + y; }
};

struct halve {
    __host__ __device__ float operator()(float z) const { return z / 2; }
};

struct is_odd {
    __host__ __device__ bool operator()(int x) const { return x % 2 != 0; }
};

__global__ void double_it(int *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= 2;
}

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
    /* from the host and back */
    thrust::host_vector<int> H(8);
    for (int i = 0; i < 8; i++) H[i] = (i * 5) % 8 - 3;
    thrust::device_vector<int> D = H;
    show("D from H", D);
    D[0] = 42;
    printf("D[0] after D[0] = 42: %d, D.size() %d\n", (int)D[0], (int)D.size());

    /* SAXPY, and more functors */
    thrust::device_vector<float> X(6), Y(6, 1.5f), Z(6);
    thrust::sequence(X.begin(), X.end());
    thrust::transform(X.begin(), X.end(), Y.begin(), Z.begin(), saxpy_functor(2.0f));
    show("2 X + Y", Z);
    thrust::transform(Z.begin(), Z.end(), Z.begin(), halve());
    show("halved", Z);
    thrust::transform(X.begin(), X.end(), Y.begin(), thrust::negate<float>());
    show("Y = -X", Y);

    /* reductions */
    float sum = thrust::reduce(Z.begin(), Z.end());
    float largest = thrust::reduce(Z.begin(), Z.end(), -1.0f, thrust::maximum<float>());
    float squares = thrust::transform_reduce(X.begin(), X.end(), thrust::square<float>(), 0.0f,
                                             thrust::plus<float>());
    int odd = (int)thrust::count_if(D.begin(), D.end(), is_odd());
    int threes = (int)thrust::count(D.begin(), D.end(), 3);
    printf("sum %g, largest %g, sum of squares %g, %d odd, %d threes\n", sum, largest, squares,
           odd, threes);

    /* scans */
    thrust::device_vector<int> S(D.size());
    thrust::inclusive_scan(D.begin(), D.end(), S.begin());
    show("inclusive scan", S);
    thrust::exclusive_scan(D.begin(), D.end(), S.begin(), 100);
    show("exclusive scan from 100", S);

    /* sorting */
    thrust::device_vector<int> keys = H;
    thrust::device_vector<char> values(8);
    thrust::copy(thrust::make_counting_iterator<char>('a'), thrust::make_counting_iterator<char>('i'),
                 values.begin());
    thrust::sort_by_key(keys.begin(), keys.end(), values.begin());
    show("sorted keys", keys);
    thrust::host_vector<char> hv = values;
    printf("their values: %.8s\n", &hv[0]);
    thrust::sort(keys.begin(), keys.end(), thrust::greater<int>());
    show("descending", keys);
    auto lo = thrust::min_element(D.begin(), D.end());
    auto hi = thrust::max_element(D.begin(), D.end());
    printf("min %d at %d, max %d at %d\n", (int)*lo, (int)(lo - D.begin()), (int)*hi,
           (int)(hi - D.begin()));

    /* raw device memory with thrust::device, and our own kernel */
    int *raw;
    cudaMalloc(&raw, 5 * sizeof(int));
    thrust::fill(thrust::device, raw, raw + 5, 7);
    thrust::device_ptr<int> p = thrust::device_pointer_cast(raw);
    thrust::inclusive_scan(p, p + 5, p);
    double_it<<<1, 32>>>(thrust::raw_pointer_cast(D.data()), (int)D.size());
    cudaDeviceSynchronize();
    int total = thrust::reduce(thrust::device, raw, raw + 5);
    int host_copy[5];
    thrust::copy(p, p + 5, host_copy);
    printf("scan of five 7s: %d %d %d %d %d, total %d\n", host_copy[0], host_copy[1], host_copy[2],
           host_copy[3], host_copy[4], total);
    show("D doubled by a kernel", D);
    cudaFree(raw);
    return 0;
}
