// thrust::random as NVIDIA's Thrust defines it, then sort_by_key and
// is_sorted on device_vector. The expected output (.out) was computed apart,
// by a Python model of Thrust's algorithms: minstd_rand is
// x <- 48271 x mod 2147483647 (seed 1 by default); uniform_real_distribution
// maps u to (u - 1) / 2147483647 * (b - a) + a in its own type (float here,
// so each step rounded to float); uniform_int_distribution<unsigned> draws a
// double on [a, b + 1) that way and truncates.
#include <climits>
#include <cstdio>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/random.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

int main()
{
    thrust::default_random_engine e;
    for (int i = 0; i < 3; i++) printf("engine %u\n", (unsigned)e());
    thrust::minstd_rand0 e0(0);   /* seed 0 becomes 1 */
    printf("minstd_rand0 %u\n", (unsigned)e0());
    thrust::default_random_engine e7(7);
    e7.discard(2);
    printf("discard %u\n", (unsigned)e7());

    thrust::default_random_engine rng(12345);
    thrust::uniform_real_distribution<float> u01(0, 1);
    for (int i = 0; i < 3; i++) printf("real %.9g\n", u01(rng));
    thrust::uniform_int_distribution<unsigned int> u(0, UINT_MAX);
    for (int i = 0; i < 3; i++) printf("int %u\n", u(rng));
    thrust::uniform_int_distribution<int> d6(1, 6);
    for (int i = 0; i < 6; i++) printf("%d%c", d6(rng), i == 5 ? '\n' : ' ');

    const int n = 8;
    thrust::host_vector<unsigned int> hk(n), hv(n);
    for (int i = 0; i < n; i++) hk[i] = u(rng) % 10;
    thrust::sequence(hv.begin(), hv.end());
    thrust::device_vector<unsigned int> dk = hk, dv = hv;
    printf("sorted before: %d\n", (int)thrust::is_sorted(dk.begin(), dk.end()));
    thrust::sort_by_key(dk.begin(), dk.end(), dv.begin());
    hk = dk;
    hv = dv;
    for (int i = 0; i < n; i++) printf("%u:%u%c", hk[i], hv[i], i == n - 1 ? '\n' : ' ');
    printf("sorted after: %d (host %d)\n", (int)thrust::is_sorted(dk.begin(), dk.end()),
           (int)thrust::is_sorted(hk.begin(), hk.end()));
    return 0;
}
