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
