// A bug: fence_reduction.cu without its __threadfence(). Taking the ticket
// no longer says that the block's partial sum is visible to other blocks: the
// last block may add partial sums that are not there yet (the GPU's memory
// model lets the atomic be seen before the store).
#define WITHOUT_FENCE
#include "fence_reduction.cu"
