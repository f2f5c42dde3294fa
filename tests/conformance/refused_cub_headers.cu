// Headers of CUB that the simulator does not have: refused when the program
// is translated, in one line for the library, at the first of them. nvcc
// builds the program (it only includes them).
#include <cstdio>
#include <cub/device/device_select.cuh>
#include <cub/block/block_radix_sort.cuh>

int main(void)
{
    printf("built\n");
    return 0;
}
