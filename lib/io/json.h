/**
 * @file json.h
 * @brief JSON: jansson parses and writes it; this layer adds where each value came from
 *        and the strict, typed getters that configs and safetensors headers are read with.
 *
 * Parsing and writing are jansson's (Debian's libjansson-dev): json_parse() runs
 * json_loadb() with duplicate keys refused (JSON_REJECT_DUPLICATES), so a syntax
 * error is ::ERR_FORMAT with jansson's line, column and text:
 * `config.json:3:15: invalid JSON: '}' expected near '"lr"'`. Documents are
 * written by building jansson values and calling json_text().
 *
 * What jansson does not keep is where a value came from, and that is what an
 * error message about a config needs. json_parse() therefore wraps the parsed
 * value in a tree of ::JsonValue nodes that know their key, their parent (so
 * their key path, `optimizer.lr` or `hidden[1]`), the source name and the
 * line they start on. The typed getters turn a node into a C value or an
 * error that names the source, the line and the key path, and says what was
 * expected and what came: `config.json:3: "epochs" must be a whole number,
 * got the string "20"`. json_check_keys() catches typos in key names with a
 * did-you-mean suggestion.
 */
#ifndef WB_JSON_H
#define WB_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/core/err.h"

/**
 * @brief One value of a parsed document, with where it came from; it lives as long as its
 *        ::Json document.
 *
 * The value itself is jansson's (the field `json`: read it with json_string_value(),
 * json_integer_value(), json_number_value(), json_is_true(), ...), or through
 * the typed getters below, which explain a wrong value.
 */
typedef struct JsonValue {
    json_t *json;            /**< the value (owned by the document) */
    json_type type;          /**< json_typeof(json): JSON_OBJECT, JSON_ARRAY, JSON_STRING,
                                  JSON_INTEGER, JSON_REAL, JSON_TRUE, JSON_FALSE or JSON_NULL */
    int line;                /**< line (from 1) where the value starts (for a member: its key) */
    size_t offset;           /**< byte offset in the source text where the value starts */
    const char *text;        /**< JSON_INTEGER, JSON_REAL: the number as the source writes it
                                  (`1e-400`, `-0`), zero-terminated; NULL otherwise */
    size_t text_length;      /**< bytes in @ref text */
    int count;               /**< JSON_ARRAY, JSON_OBJECT: number of items or members */
    struct JsonValue *items; /**< JSON_ARRAY, JSON_OBJECT: the items, in file order */
    const char *key;         /**< a member of an object: its key; NULL otherwise */
    size_t key_length;       /**< bytes in @ref key, without the terminator */
    int index;               /**< position in the parent (0 for the root) */
    const struct JsonValue *parent; /**< the enclosing array or object; NULL for the root */
    const char *source;             /**< the source name given to json_parse() */
} JsonValue;

/** A parsed document: jansson's value and the nodes over it, freed together by json_free(). */
typedef struct Json Json;

/**
 * @brief Parse @p len bytes of JSON text into a new document.
 *
 * @p source names the text in messages ("config.json"). The text must be one
 * JSON value (of any type) with optional whitespace around it; it need not be
 * zero-terminated. Refused: duplicate keys, trailing text, NUL bytes and the
 * `\u0000` escape, integers beyond int64_t, numbers beyond a double, nesting
 * deeper than jansson's 2048 levels, and a byte-order mark. On failure returns
 * ::ERR_FORMAT with `SOURCE:LINE:COLUMN: invalid JSON: ...` (jansson's
 * message, with a hint for a comma before a closing bracket and for comments),
 * or ::ERR_NOMEM, and leaves @p *out NULL.
 */
WB_MUST_CHECK int json_parse(const char *text, size_t len, const char *source, Json **out);

/** @brief The top-level value of @p doc. */
const JsonValue *json_root(const Json *doc);

/** @brief Release a document and every value and string in it; NULL is allowed. */
void json_free(Json *doc);

/** @brief The member @p key of object @p obj, or NULL when it has none (or is not an object). */
const JsonValue *json_get(const JsonValue *obj, const char *key);

/**
 * @brief Like json_get(), but a missing member is an error.
 *
 * Returns ::ERR_FORMAT with `config.json:1: missing key "epochs" in the
 * top-level object` (or `in "optimizer"`, or a message that @p obj is not an
 * object) and leaves @p *out NULL.
 */
WB_MUST_CHECK int json_require(const JsonValue *obj, const char *key, const JsonValue **out);

/**
 * @brief Check that @p v has type @p type (JSON_TRUE or JSON_FALSE: either; JSON_REAL: any
 *        number).
 *
 * Returns ::ERR_FORMAT with `config.json:4: "model" must be an object, got an
 * array of 2 items` otherwise.
 */
WB_MUST_CHECK int json_expect(const JsonValue *v, json_type type);

/**
 * @brief A whole number in [@p min, @p max] (inclusive), as the source writes it.
 *
 * The number written must be whole exactly, before any rounding to a double
 * (numtext_scan()): `20`, and also `20.0` and `2e1`, whose exact value is 20;
 * not `2.5`, `10.000000000000000000001` (a double would round it to 10) or
 * `1e-400` (a double would make it 0). A minus sign is refused where @p min
 * is 0 or more (`-0`). Messages quote the number as written. Errors
 * (::ERR_FORMAT): `config.json:3: "epochs" must be a whole number, got the
 * string "20"`, `... got 2.5`, `"epochs" must be at least 1, got 0` (or "at
 * most", or "from 1 to 100").
 */
WB_MUST_CHECK int json_as_int(const JsonValue *v, int64_t min, int64_t max, int64_t *out);

/**
 * @brief A number in [@p min, @p max] (inclusive; pass -INFINITY or INFINITY for no limit).
 *
 * The number is the double nearest to what the source writes, except that a
 * number that is not 0 as written but becomes 0 in a double (`1e-400`: it
 * underflows) is refused, quoted as written, and so is a minus sign where
 * @p min is 0 or more (`-0`, `-0.0`: the range has no negative numbers).
 * Numbers beyond a double (`1e400`) are refused by json_parse() already.
 * Errors (::ERR_FORMAT): `"lr" must be a number, got the string "0.1"`,
 * `"lr" must be from 0 to 1, got 2`, `"clip_norm" is 1e-400, which is not 0 but
 * underflows to 0 in a double (the smallest is 4.9e-324): write 0, or a larger
 * number`.
 */
WB_MUST_CHECK int json_as_number(const JsonValue *v, double min, double max, double *out);

/**
 * @brief true or false.
 *
 * Otherwise ::ERR_FORMAT `"shuffle" must be true or false, got the string "yes"`.
 */
WB_MUST_CHECK int json_as_bool(const JsonValue *v, bool *out);

/**
 * @brief A string; @p *out points into the document.
 *
 * Otherwise ::ERR_FORMAT `"name" must be a string, got the number 3`.
 */
WB_MUST_CHECK int json_as_string(const JsonValue *v, const char **out);

/**
 * @brief A string from a NULL-terminated list of @p choices; @p *out is its index.
 *
 * Otherwise ::ERR_FORMAT `config.json:2: "optimizer" must be one of "sgd",
 * "adam", got "adma" (did you mean "adam"?)`; the suggestion appears when one
 * choice is close (json_suggest()).
 */
WB_MUST_CHECK int json_as_choice(const JsonValue *v, const char *const *choices, int *out);

/**
 * @brief Check that every key of object @p obj is in the NULL-terminated list @p allowed.
 *
 * The first unknown key (in file order) is ::ERR_FORMAT: `config.json:5:
 * unknown key "lerning_rate" (did you mean "learning_rate"?)`, with
 * `in "optimizer"` after the key for a nested object, and the list of known
 * keys instead of a suggestion when none is close.
 */
WB_MUST_CHECK int json_check_keys(const JsonValue *obj, const char *const *allowed);

/**
 * @brief Set ::ERR_FORMAT with the message `SOURCE:LINE: "PATH" ` and then @p fmt.
 *
 * For checks the getters do not cover: `json_error(v, "must be greater than
 * 0, got %g", lr)` gives `config.json:3: "lr" must be greater than 0, got 0`.
 * For the root value "PATH" is "the top-level value". Returns ::ERR_FORMAT.
 */
WB_MUST_CHECK int json_error(const JsonValue *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * @brief Write the key path of @p v into @p buf: `optimizer.lr`, `layers[2].units`.
 *
 * The root's path is empty. Returns @p buf (cut short when it does not fit).
 */
const char *json_path(const JsonValue *v, char *buf, size_t size);

/**
 * @brief Describe @p v for a message: `the string "20"`, `the number 2.5`, `the number 4.0`
 *        (a real), `true`, `null`, `an array of 3 items`, `an empty object`.
 *
 * Long strings are cut short with "...". Returns @p buf.
 */
const char *json_describe(const JsonValue *v, char *buf, size_t size);

/**
 * @brief The candidate closest to @p word, or NULL when none is close enough to suggest.
 *
 * Closeness is the edit distance with transpositions ("adma" is one step from
 * "adam"); a candidate is suggested when it is at most 1 + len/5 steps away.
 * @p candidates is NULL-terminated; ties go to the earlier candidate.
 */
const char *json_suggest(const char *word, const char *const *candidates);

/**
 * @brief Check that @p s can be a JSON string: UTF-8 text (jansson decides).
 *
 * Otherwise ::ERR_ARG `WHAT is not UTF-8 text: "ab\xff"` (@p what names the
 * string: `the name of tensor 0`), or ::ERR_NOMEM.
 */
WB_MUST_CHECK int json_check_text(const char *s, const char *what);

/**
 * @brief A JSON real for the float @p v that json_text() writes with as few digits as read
 *        back as the same float (0.05f as `0.05`, not `0.0500000007`).
 *
 * NULL for NaN and infinities, which JSON cannot write (and when memory ran out).
 */
json_t *json_f32(float v);

/** Flags of json_text(). */
enum {
    JSON_TEXT_PRETTY = 1, /**< indented by two spaces, one item per line, a newline at the end */
    JSON_TEXT_F32 = 2,    /**< every real is a float (json_f32()): written with 9 digits, not 17 */
    JSON_TEXT_SHORTEST = 4 /**< reals with as few digits as read back as the same doubles: the
                                most any one of them needs, for all (0.1 as `0.1`, 1e-9 as
                                `1e-9`, not `1.0000000000000001e-09`) */
};

/**
 * @brief Write @p v as JSON text: @p *text (zero-terminated, free() it), and its length in
 *        @p len unless @p len is NULL.
 *
 * Compact (`{"a":[1,2]}`) unless @p flags has ::JSON_TEXT_PRETTY; object members
 * in the order they were set; UTF-8 as is; reals with 17 significant digits,
 * which read back as the same double (9 with ::JSON_TEXT_F32, as few as the
 * document needs with ::JSON_TEXT_SHORTEST). ::ERR_NOMEM
 * when jansson cannot write it.
 */
WB_MUST_CHECK int json_text(const json_t *v, int flags, char **text, size_t *len);

#endif /* WB_JSON_H */
