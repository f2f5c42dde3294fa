/*
 * channel_descriptor.h for the CUDA simulator: cudaCreateChannelDesc<T>(),
 * the channel descriptor of a type (its channels' bits and kind), as CUDA's
 * header gives it for the scalars and vectors of 1, 2 and 4 of char, short,
 * int, long (where long has 32 bits) and float, for the kinds of normalized
 * integers, and cudaCreateChannelDescHalf*() for 16-bit floats. Any other
 * type gives a descriptor of kind cudaChannelFormatKindNone, as in CUDA.
 * cuda_runtime.h includes it in C++.
 */
#ifndef __CHANNEL_DESCRIPTOR_H__
#define __CHANNEL_DESCRIPTOR_H__

#if defined(__cplusplus)

#include "cuda_runtime_api.h"

template <class T>
static inline cudaChannelFormatDesc cudaCreateChannelDesc(void)
{
    return cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
}

#define CUDASIM_CHANNELS(T, n, kind)                                                               \
    template <>                                                                                  \
    inline cudaChannelFormatDesc cudaCreateChannelDesc<T>(void)                                   \
    {                                                                                            \
        int e = (int)sizeof(T) / n * 8;                                                          \
        return cudaCreateChannelDesc(e, n > 1 ? e : 0, n > 2 ? e : 0, n > 3 ? e : 0, kind);       \
    }
#define CUDASIM_CHANNELS_OF(S, V, kind)                                                            \
    CUDASIM_CHANNELS(S, 1, kind)                                                                 \
    CUDASIM_CHANNELS(V##1, 1, kind) CUDASIM_CHANNELS(V##2, 2, kind) CUDASIM_CHANNELS(V##4, 4, kind)
#if defined(__CHAR_UNSIGNED__)
CUDASIM_CHANNELS(char, 1, cudaChannelFormatKindUnsigned)
#else
CUDASIM_CHANNELS(char, 1, cudaChannelFormatKindSigned)
#endif
CUDASIM_CHANNELS(signed char, 1, cudaChannelFormatKindSigned)
CUDASIM_CHANNELS(char1, 1, cudaChannelFormatKindSigned)
CUDASIM_CHANNELS(char2, 2, cudaChannelFormatKindSigned)
CUDASIM_CHANNELS(char4, 4, cudaChannelFormatKindSigned)
CUDASIM_CHANNELS_OF(unsigned char, uchar, cudaChannelFormatKindUnsigned)
CUDASIM_CHANNELS_OF(short, short, cudaChannelFormatKindSigned)
CUDASIM_CHANNELS_OF(unsigned short, ushort, cudaChannelFormatKindUnsigned)
CUDASIM_CHANNELS_OF(int, int, cudaChannelFormatKindSigned)
CUDASIM_CHANNELS_OF(unsigned int, uint, cudaChannelFormatKindUnsigned)
CUDASIM_CHANNELS_OF(float, float, cudaChannelFormatKindFloat)
#undef CUDASIM_CHANNELS_OF
#undef CUDASIM_CHANNELS

static inline cudaChannelFormatDesc cudaCreateChannelDescHalf(void)
{
    return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);
}
static inline cudaChannelFormatDesc cudaCreateChannelDescHalf1(void)
{
    return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);
}
static inline cudaChannelFormatDesc cudaCreateChannelDescHalf2(void)
{
    return cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindFloat);
}
static inline cudaChannelFormatDesc cudaCreateChannelDescHalf4(void)
{
    return cudaCreateChannelDesc(16, 16, 16, 16, cudaChannelFormatKindFloat);
}

/* cudaCreateChannelDesc<kind>() of the kinds that say their channels. */
template <cudaChannelFormatKind K>
static inline cudaChannelFormatDesc cudaCreateChannelDesc(void)
{
    return cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
}
#define CUDASIM_KIND(K, b, n)                                                                      \
    template <>                                                                                  \
    inline cudaChannelFormatDesc cudaCreateChannelDesc<K>(void)                                   \
    {                                                                                            \
        return cudaCreateChannelDesc(b, n > 1 ? b : 0, n > 2 ? b : 0, n > 3 ? b : 0, K);          \
    }
CUDASIM_KIND(cudaChannelFormatKindSignedNormalized8X1, 8, 1)
CUDASIM_KIND(cudaChannelFormatKindSignedNormalized8X2, 8, 2)
CUDASIM_KIND(cudaChannelFormatKindSignedNormalized8X4, 8, 4)
CUDASIM_KIND(cudaChannelFormatKindUnsignedNormalized8X1, 8, 1)
CUDASIM_KIND(cudaChannelFormatKindUnsignedNormalized8X2, 8, 2)
CUDASIM_KIND(cudaChannelFormatKindUnsignedNormalized8X4, 8, 4)
CUDASIM_KIND(cudaChannelFormatKindSignedNormalized16X1, 16, 1)
CUDASIM_KIND(cudaChannelFormatKindSignedNormalized16X2, 16, 2)
CUDASIM_KIND(cudaChannelFormatKindSignedNormalized16X4, 16, 4)
CUDASIM_KIND(cudaChannelFormatKindUnsignedNormalized16X1, 16, 1)
CUDASIM_KIND(cudaChannelFormatKindUnsignedNormalized16X2, 16, 2)
CUDASIM_KIND(cudaChannelFormatKindUnsignedNormalized16X4, 16, 4)
#undef CUDASIM_KIND

#endif /* __cplusplus */
#endif /* __CHANNEL_DESCRIPTOR_H__ */
