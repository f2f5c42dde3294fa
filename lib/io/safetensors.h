/**
 * @file safetensors.h
 * @brief Checkpoint files in the safetensors format, saved atomically and checksummed.
 *
 * A safetensors file (https://github.com/huggingface/safetensors) is an 8-byte
 * little-endian header length N, N bytes of JSON that map each tensor name to
 * `{"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}` (plus an
 * optional `"__metadata__"` object of strings), and the tensors' bytes,
 * row-major and little-endian. PyTorch's `safetensors.torch.load_file()`
 * reads the files written here, and this module reads theirs. It moves bytes
 * with names, dtypes and shapes; converting from lib's column-major tensors
 * is the caller's job.
 *
 * Two things go beyond the format. safetensors_save() writes a temporary file
 * beside the target, syncs it to disk and renames it over the target, so a
 * crash at any moment leaves either the old file or the complete new one.
 * And it stores a CRC-32 of the whole file (zlib's, the value of Python's
 * `zlib.crc32()`) in the metadata entry `wb.crc32` (8 lowercase hex digits; the
 * CRC is computed with those digits set to "00000000"),
 * which safetensors_load() checks, so a damaged checkpoint is refused instead
 * of resuming training from garbage. Files from other tools have no such
 * entry and load without the check.
 */
#ifndef WB_SAFETENSORS_H
#define WB_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/core/dtype.h"

/** Longest tensor name, including the terminating zero. */
#define ST_NAME_MAX 256
/** Most dimensions a tensor may have. */
#define ST_MAX_DIMS 8
/** Largest header accepted, in bytes (the limit of the reference implementation). */
#define ST_MAX_HEADER 100000000
/** Largest file read: 16 GiB, far above any checkpoint of the workbook (whose largest
 *  models hold a few MB), so that a file given by mistake is refused before it is read. */
#define ST_MAX_FILE ((size_t)16 << 30)

/** One named tensor: what to save, or what a loaded file holds. */
typedef struct StTensor {
    char name[ST_NAME_MAX];     /**< its name in the file ("fc1.weight") */
    DType dtype;                /**< F32, F16, BF16 or I32 in the file */
    int ndim;                   /**< number of dimensions, 0..ST_MAX_DIMS (0: a scalar) */
    int64_t shape[ST_MAX_DIMS]; /**< sizes, row-major order (the last index is fastest) */
    const void *data;           /**< the elements, row-major, little-endian */
    size_t bytes;               /**< bytes at @ref data, the elements times dtype_size() */
} StTensor;

/** A loaded file: its tensors and metadata, in one buffer freed by safetensors_free(). */
typedef struct SafeTensors SafeTensors;

/**
 * @brief Save @p n tensors and @p n_meta metadata pairs to @p path, atomically.
 *
 * @p meta holds 2 * @p n_meta strings, key then value ({"epoch", "3",
 * "optimizer", "adam"}); the key `wb.crc32` is the writer's own. The header
 * lists the tensors in the given order; the data places larger elements first
 * so that each tensor is aligned for its dtype when the file is read into
 * memory. The file is saved with fileio_save() (lib/core/fileio.h): written to a
 * new temporary file in the same folder, synced to disk and renamed over @p path,
 * and the folder is synced; @p path, if it exists, must be a regular file (a
 * symbolic link, a FIFO, a device or a folder there is refused and left as it
 * is). On any failure the temporary file is removed, @p path is untouched, and
 * the error names the step that failed and why (::ERR_ARG for bad tensors or
 * metadata, ::ERR_SHAPE for a byte count that does not match the dtype and
 * shape, ::ERR_IO for the file system): `runs/a.safetensors: cannot save:
 * cannot create a temporary file in runs: No such file or directory (does the
 * folder exist?)`. After a successful save, the temporary files that earlier
 * saves of @p path left behind when they were killed are removed, those whose
 * process is no longer running.
 */
WB_MUST_CHECK int safetensors_save(const char *path, const StTensor *tensors, int n, const char *const *meta,
                     int n_meta);

/**
 * @brief Read and check a whole safetensors file into memory.
 *
 * Nothing is returned unless the whole file is valid: the header length fits
 * the file and is at most ::ST_MAX_HEADER, the header is a JSON object, each
 * tensor has a known dtype, a shape of whole numbers and data_offsets that
 * match them, the tensors tile the data section exactly, metadata values are
 * strings, and the `wb.crc32` checksum (when present) matches. Each failure
 * is one message naming the file, the tensor or field, what was expected and
 * what came: `ckpt.safetensors: tensor "fc1.weight": data_offsets [0, 20]
 * hold 20 bytes, but F32 with shape [2, 3] needs 24`, `ckpt.safetensors: the
 * file is truncated: the header describes 4212 bytes of tensor data, the file
 * holds 1024; an interrupted copy?`, `ckpt.safetensors: checksum mismatch
 * (stored 1a2b3c4d, computed 5e6f7a8b): the file is corrupted; use another
 * checkpoint`. A file that another tool wrote again from a checkpoint (Python's
 * `save_file(load_file(p), p2, metadata=old)`) keeps the old checksum with
 * a new layout; that is said as it is: `re-saved by another tool: ... drop
 * wb.crc32 from __metadata__ to load it without the check`. Errors are
 * ::ERR_IO, ::ERR_FORMAT, ::ERR_UNSUPPORTED (a valid dtype this library does
 * not handle, such as F64) or ::ERR_NOMEM; @p *out is then NULL.
 *
 * Every tensor's data is aligned for its dtype, also in files whose header
 * length is not a multiple of 8 or whose offsets are not multiples of the
 * element size (valid safetensors, which Python reads): such data is moved or
 * copied. The file is opened with fileio_open_read(): only a regular file of at
 * most ::ST_MAX_FILE bytes is read (a FIFO, a device or a folder is refused at
 * once, naming what it is), and only once its first 8 bytes (the header length)
 * fit it: a large file that is not a checkpoint is refused without being read.
 */
WB_MUST_CHECK int safetensors_load(const char *path, SafeTensors **out);

/**
 * @brief safetensors_load() on @p size bytes in memory (copied), named @p name in messages.
 */
WB_MUST_CHECK int safetensors_parse(const void *bytes, size_t size, const char *name,
                                    SafeTensors **out);

/** @brief Number of tensors in a loaded file. */
int safetensors_count(const SafeTensors *st);

/**
 * @brief Tensor @p i (0 .. count - 1, in header order), or NULL when out of range.
 *
 * Its data points into the file's buffer and lives until safetensors_free().
 */
const StTensor *safetensors_get(const SafeTensors *st, int i);

/** @brief The tensor called @p name, or NULL when the file has none. */
const StTensor *safetensors_find(const SafeTensors *st, const char *name);

/** @brief The metadata value of @p key (`wb.crc32` included), or NULL when absent. */
const char *safetensors_meta(const SafeTensors *st, const char *key);

/** @brief Number of metadata entries (`wb.crc32` included). */
int safetensors_meta_count(const SafeTensors *st);

/** @brief The key of metadata entry @p i (0 .. count - 1, in file order), or NULL. */
const char *safetensors_meta_key(const SafeTensors *st, int i);

/** @brief Release a loaded file; NULL is allowed. */
void safetensors_free(SafeTensors *st);

/**
 * @brief A shape as the file's header writes it, "[2, 3]", into @p buf (@p size bytes,
 *        cut short if too small); returns @p buf, for error messages.
 */
const char *safetensors_shape_str(int ndim, const int64_t *shape, char *buf, size_t size);

/**
 * @brief The file's dtype name of @p dtype ("F32", "F16", "BF16", "I32").
 */
const char *safetensors_dtype_name(DType dtype);

/**
 * @brief For tests: call @p hook after each chunk safetensors_save() writes.
 *
 * The hook gets the bytes written to the temporary file so far; a test can
 * SIGKILL its process there to check that an interrupted save leaves the old
 * file intact. NULL removes the hook.
 */
void safetensors_set_write_hook(void (*hook)(size_t bytes_written));

#endif /* WB_SAFETENSORS_H */
