// No CUDA: a header of the kernels' own folder.
#define SCALE_FACTOR 3.0f
