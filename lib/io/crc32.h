/**
 * @file crc32.h
 * @brief CRC-32 as zlib, PNG and gzip compute it, for checksums of checkpoint files.
 *
 * The IEEE polynomial 0x04C11DB7 in its reflected form 0xEDB88320, starting
 * from 0xFFFFFFFF and inverted at the end: the value of Python's
 * `zlib.crc32()` and `binascii.crc32()`, so a file's checksum can be checked
 * without this library.
 */
#ifndef WB_CRC32_H
#define WB_CRC32_H

#include <stddef.h>
#include <stdint.h>

/**
 * @brief Extend the CRC-32 @p crc of earlier bytes with @p n more bytes at @p data.
 *
 * Start with 0: `crc32_update(0, "123456789", 9)` is 0xCBF43926, and feeding
 * the same bytes in pieces, each call getting the previous result, gives the
 * same value (zlib's `crc32(crc, buf, len)` convention). @p data may be NULL
 * when @p n is 0.
 */
uint32_t crc32_update(uint32_t crc, const void *data, size_t n);

#endif /* WB_CRC32_H */
