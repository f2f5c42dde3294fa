// A bug: a functor that reads its neighbour, x[i + 1], applied to every
// index 0 .. n-1, so the last one reads one element past the end of the
// device_vector. On a GPU the read goes unnoticed (or faults); under
// compute-sanitizer, and on the simulator, it is an out-of-bounds read,
// and Thrust throws thrust::system_error.
#include <cstdio>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

struct forward_difference {
    const float *x;
    __host__ __device__ float operator()(int i) const { return x[i + 1] - x[i]; }
};

int main(void)
{
    const int n = 1000;
    thrust::device_vector<float> x(n), dx(n);
    thrust::sequence(x.begin(), x.end());
    forward_difference f = {thrust::raw_pointer_cast(x.data())};
    try {
        thrust::transform(thrust::make_counting_iterator(0), thrust::make_counting_iterator(n),
                          dx.begin(), f); /* meant n - 1 */
        printf("differences computed\n");
    } catch (const thrust::system_error &e) {
        printf("thrust::system_error\n");
    }
    return 0;
}
