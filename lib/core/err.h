/**
 * @file err.h
 * @brief Error codes and the last error message of the calling thread.
 *
 * Library functions never exit and never print: a function that can fail
 * returns an ::ErrCode (0 on success) and leaves a one-line message that names
 * the operation, the values involved and, where one exists, the fix. Programs
 * decide what to do with it (print it, pick an exit status).
 */
#ifndef WB_ERR_H
#define WB_ERR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Marks a function whose ::ErrCode must be looked at: calling it and dropping
 * the result is a compile error in lib (-Werror). Every int-returning function
 * of lib has it, except err_set() and err_context(), which record a message
 * for a caller that returns NULL or a code of its own.
 */
#define WB_MUST_CHECK __attribute__((warn_unused_result))

/** What kind of failure a library call reports. */
typedef enum ErrCode {
    ERR_OK = 0,      /**< success */
    ERR_ARG,         /**< a bad argument (NULL, negative size, unknown name) */
    ERR_SHAPE,       /**< tensor shapes or dtypes that do not fit together */
    ERR_DEVICE,      /**< tensors on different devices, or a device that is missing */
    ERR_NOMEM,       /**< an allocation failed */
    ERR_IO,          /**< a file could not be opened, read or written */
    ERR_FORMAT,      /**< a file or string is malformed */
    ERR_TODO,        /**< an exercise is still a stub */
    ERR_NUMERIC,     /**< a NaN or an infinity where a finite number is needed */
    ERR_UNSUPPORTED  /**< valid but not supported by this build */
} ErrCode;

/**
 * @brief Record an error for the calling thread and return its code.
 *
 * The message is formatted like printf and replaces the previous one, so that
 * a failing function can write `return err_set(ERR_ARG, "...", ...);`.
 */
int err_set(ErrCode code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * @brief Prefix the current message with the name of an outer operation.
 *
 * Used on the way up: `"loading iris.csv: line 7: ..."`. Returns the current
 * code unchanged so it can be written as `return err_context("...");`.
 */
int err_context(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** @brief The last error message of this thread ("" when there is none). */
const char *err_message(void);

/** @brief The code of the last error of this thread (::ERR_OK when none). */
ErrCode err_code(void);

/** @brief Forget the last error of this thread. */
void err_clear(void);

/**
 * @brief Whether code point @p cp does not show as itself on a terminal, so that messages
 *        write it as an escape and names (of experiments) may not hold it.
 *
 * The C0 and C1 controls and DEL; the format and bidi controls U+200B-U+200F,
 * U+202A-U+202E, U+2060-U+206F (U+2066-U+2069: the isolates) and U+FEFF (the
 * byte-order mark); U+2028 and U+2029 (line and paragraph separators); the soft
 * hyphen U+00AD, U+034F, U+061C, U+180B-U+180F, the Hangul fillers (U+115F,
 * U+1160, U+3164, U+FFA0), U+17B4, U+17B5, the variation selectors (U+FE00-U+FE0F,
 * U+E0100-U+E01EF), U+FFF0-U+FFFB, the tags (U+E0000-U+E007F), U+1BCA0-U+1BCA3,
 * U+1D173-U+1D17A, private use (U+E000-U+F8FF, planes 15 and 16) and the
 * noncharacters (U+FDD0-U+FDEF, U+xFFFE and U+xFFFF). Surrogates are not
 * code points of UTF-8 text; the caller has decoded @p cp.
 */
bool err_invisible(unsigned long cp);

/**
 * @brief @p s (@p len bytes) as every message shows a name, a key or a value from a file:
 *        one line, each character visible, at most about @p max bytes of it.
 *
 * A newline, a carriage return and a tab are written `\n`, `\r`, `\t`; any other
 * byte below 0x20, DEL, and each byte that is not part of valid UTF-8 as `\xNN`;
 * a code point for which err_invisible() holds as `\uNNNN` (`\U000NNNNN` above
 * U+FFFF), so that U+202E (right-to-left override) shows as `\u202e`. Everything
 * else, backslashes included, is copied. When @p s is longer than @p max bytes it
 * is cut at the last character that fits and followed by `... (N bytes)`, so that a
 * message quoting a 100,000-byte field keeps what follows it. The result is
 * zero-terminated in @p buf (@p size bytes, cut short when too small; at least 1).
 * err_set() and err_context() pass their whole message through the same rules.
 * Returns @p buf.
 */
const char *err_escape(const char *s, size_t len, size_t max, char *buf, size_t size);

/**
 * @brief @p s (@p len bytes) in double quotes, as every message quotes a name, a key or a
 *        field: err_escape() inside, with a quote and a backslash written `\"` and `\\`.
 *
 * Longer than @p max bytes, it is cut at the last character that fits and closed
 * as `"abc..." (100000 bytes)`. Returns @p buf (@p size bytes, at least 1).
 */
const char *err_quote(const char *s, size_t len, size_t max, char *buf, size_t size);

/**
 * @brief How many bytes at the start of @p s (@p len bytes) err_escape() would copy as
 *        they are: @p len when nothing in it needs an escape.
 *
 * A name check reads "is every character visible" as `err_plain_prefix(s, n) == n`.
 */
size_t err_plain_prefix(const char *s, size_t len);

/** @brief A short name for an error code ("shape", "device", ...). */
const char *err_name(ErrCode code);

/**
 * @brief What an exercise stub returns until the student writes it.
 *
 * Records ::ERR_TODO with a message naming the exercise (for example
 * `"01.2"`), the function, the file to edit and the `make hint` command, and
 * returns ::ERR_TODO.
 */
int exercise_todo(const char *id, const char *function, const char *file);

/**
 * @brief Check what an exercise function returned.
 *
 * ::ERR_OK passes through, and so does an error the exercise reported itself
 * with err_set() (a stub's ::ERR_TODO included), message and all. Any other
 * value becomes an error saying that exercise @p id, @p function, returned it
 * without a message.
 */
WB_MUST_CHECK int exercise_result(int rc, const char *id, const char *function);

/** Call an exercise and return from the caller unless it returned 0. */
#define EXERCISE(id, fn, ...) TRY(exercise_result(fn(__VA_ARGS__), id, #fn))

/**
 * Set the caller's `rc` to @p expr (an ErrCode) and jump to its `done:` label
 * unless it is ::ERR_OK: TRY() for a function that has something to release
 * on the way out, which it does after `done:` before it returns `rc`.
 */
#define TRY_OR_DONE(expr)                                                      \
    do {                                                                       \
        rc = (expr);                                                           \
        if (rc != ERR_OK) goto done;                                           \
    } while (0)

/** Return from the current function when @p expr (an ErrCode) is not ::ERR_OK. */
#define TRY(expr)                                                              \
    do {                                                                       \
        int try_rc_ = (expr);                                                  \
        if (try_rc_ != ERR_OK) return try_rc_;                                 \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif /* WB_ERR_H */
