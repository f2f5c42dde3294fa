// A planted bug: thrust::gather with a map that points past the end of the
// values (index 8 into a vector of 8). The gather is a kernel of the
// simulator, so the read past the end is reported as a kernel's is, naming
// the buffer by the program's line that made it, and Thrust throws
// thrust::system_error, as it does on a GPU.
#include <cstdio>
#include <thrust/device_vector.h>
#include <thrust/gather.h>
#include <thrust/sequence.h>

int main(void)
{
    thrust::device_vector<int> values(8);
    thrust::sequence(values.begin(), values.end());
    int h_map[4] = {0, 2, 8, 1};
    thrust::device_vector<int> map(h_map, h_map + 4), out(4);
    try {
        thrust::gather(map.begin(), map.end(), values.begin(), out.begin());
        printf("gathered\n");
    } catch (const thrust::system_error &e) {
        printf("thrust::system_error: %s\n", e.what());
    }
    return 0;
}
