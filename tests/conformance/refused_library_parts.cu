// Parts of Thrust and of cooperative groups that the simulator does not have,
// each included twice over, and a library it has none of (cuFFT) from two
// headers: the refusal is one line per library, at its first include, not one
// per header. nvcc builds the program (it declares and calls nothing).
#include <cstdio>
#include <thrust/complex.h>
#include <thrust/universal_vector.h>
#include <cooperative_groups/scan.h>
#include <cooperative_groups/scan.h>
#include <cufft.h>
#include <cufftXt.h>

int main(void)
{
    printf("built\n");
    return 0;
}
