// An algorithm of Thrust that the simulator does not have, in a header it
// has (<thrust/set_operations.h>): refused when the program is compiled, in
// one line naming it (GCC's `unavailable`). nvcc builds the program.
#include <cstdio>
#include <thrust/device_vector.h>
#include <thrust/set_operations.h>

int main(void)
{
    thrust::device_vector<int> k1(3, 1), v1(3, 2), k2(3, 3), v2(3, 4), ko(6), vo(6);
    thrust::set_union_by_key(k1.begin(), k1.end(), k2.begin(), k2.end(), v1.begin(), v2.begin(), ko.begin(),
                             vo.begin());
    printf("built\n");
    return 0;
}
