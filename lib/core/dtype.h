/**
 * @file dtype.h
 * @brief Element types: float32, the two half formats, int32 labels.
 */
#ifndef WB_DTYPE_H
#define WB_DTYPE_H

#include <stddef.h>

/** Element type of a tensor or of a tensor in a file. */
typedef enum DType {
    DTYPE_F32 = 0, /**< IEEE binary32, `torch.float32` */
    DTYPE_F16,     /**< IEEE binary16, `torch.float16` */
    DTYPE_BF16,    /**< bfloat16, `torch.bfloat16` */
    DTYPE_I32      /**< 32-bit signed integer (class labels) */
} DType;

/** @brief Bytes per element of @p dtype. */
size_t dtype_size(DType dtype);

/** @brief PyTorch's name of @p dtype ("float32", "float16", "bfloat16", "int32"). */
const char *dtype_name(DType dtype);

#endif
