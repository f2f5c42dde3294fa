/* dtype.c: element types (dtype.h). */
#include "lib/core/dtype.h"

size_t dtype_size(DType dtype)
{
    switch (dtype) {
    case DTYPE_F32: return 4;
    case DTYPE_F16: return 2;
    case DTYPE_BF16: return 2;
    case DTYPE_I32: return 4;
    }
    return 0;
}

const char *dtype_name(DType dtype)
{
    switch (dtype) {
    case DTYPE_F32: return "float32";
    case DTYPE_F16: return "float16";
    case DTYPE_BF16: return "bfloat16";
    case DTYPE_I32: return "int32";
    }
    return "unknown";
}
