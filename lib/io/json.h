/**
 * @file json.h
 * @brief JSON: a strict parser for experiment configs and safetensors headers, and a writer.
 *
 * json_parse() reads RFC 8259 JSON into a tree of ::JsonValue that keeps
 * object members in file order and remembers where each value came from (the
 * source name the caller gave, its line, its byte offset). It refuses what a
 * lenient parser would let through and a person would regret later: trailing
 * garbage, duplicate keys, nesting deeper than ::JSON_MAX_DEPTH and numbers
 * too large for a double. A parse error is ::ERR_FORMAT with a message of the
 * form `config.json:3:15: expected ',' or '}' after the value of "lr", got '"'`.
 *
 * The typed getters turn a value into a C value or an error that names the
 * source, the line and the key path, and says what was expected and what came:
 * `config.json:3: "epochs" must be a whole number, got the string "20"`.
 * json_check_keys() catches typos in key names with a did-you-mean suggestion.
 *
 * The ::JsonWriter builds JSON text in a growable buffer, compact (for
 * safetensors headers) or indented by two spaces (for files people read).
 */
#ifndef WB_JSON_H
#define WB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Deepest nesting of arrays and objects that json_parse() accepts and the writer writes. */
#define JSON_MAX_DEPTH 64

/** The kind of a ::JsonValue. */
typedef enum JsonType {
    JSON_NULL = 0, /**< null */
    JSON_BOOL,     /**< true or false */
    JSON_NUMBER,   /**< a number */
    JSON_STRING,   /**< a string */
    JSON_ARRAY,    /**< an array */
    JSON_OBJECT    /**< an object */
} JsonType;

/** One value of a parsed document; it lives as long as its ::Json document. */
typedef struct JsonValue {
    JsonType type;           /**< which of the fields below are set */
    int line;                /**< line (from 1) where the value starts (for a member: its key) */
    size_t offset;           /**< byte offset in the source text where the value starts */
    bool boolean;            /**< JSON_BOOL: the value */
    bool is_int;             /**< JSON_NUMBER written without fraction or exponent, fits int64_t */
    int64_t integer;         /**< JSON_NUMBER with @ref is_int set: the exact value */
    double number;           /**< JSON_NUMBER: the value (rounded when it is a large integer) */
    const char *string;      /**< JSON_STRING: UTF-8, zero-terminated (may hold "\u0000" too) */
    size_t length;           /**< JSON_STRING: bytes in @ref string, without the terminator */
    int count;               /**< JSON_ARRAY, JSON_OBJECT: number of items or members */
    struct JsonValue *items; /**< JSON_ARRAY, JSON_OBJECT: the items, in file order */
    const char *key;         /**< a member of an object: its key; NULL otherwise */
    size_t key_length;       /**< bytes in @ref key, without the terminator */
    int index;               /**< position in the parent (0 for the root) */
    const struct JsonValue *parent; /**< the enclosing array or object; NULL for the root */
    const char *source;             /**< the source name given to json_parse() */
} JsonValue;

/** A parsed document: the values and their strings, freed together by json_free(). */
typedef struct Json Json;

/**
 * @brief Parse @p len bytes of JSON text into a new document.
 *
 * @p source names the text in messages ("config.json"). The text must be one
 * JSON value with optional whitespace around it (a UTF-8 byte-order mark at
 * the start is skipped); it need not be zero-terminated. On failure returns
 * ::ERR_FORMAT with `SOURCE:LINE:COL: expected ..., got ...` (or ::ERR_NOMEM)
 * and leaves @p *out NULL.
 */
int json_parse(const char *text, size_t len, const char *source, Json **out);

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
int json_require(const JsonValue *obj, const char *key, const JsonValue **out);

/**
 * @brief Check that @p v has type @p type.
 *
 * Returns ::ERR_FORMAT with `config.json:4: "model" must be an object, got an
 * array of 2 items` otherwise.
 */
int json_expect(const JsonValue *v, JsonType type);

/**
 * @brief A whole number in [@p min, @p max] (inclusive).
 *
 * Accepts numbers written as integers and whole numbers written otherwise
 * (`2e1`). Errors (::ERR_FORMAT): `config.json:3: "epochs" must be a whole
 * number, got the string "20"`, `... got 2.5`, `"epochs" must be at least 1,
 * got 0` (or "at most", or "from 1 to 100").
 */
int json_as_int(const JsonValue *v, int64_t min, int64_t max, int64_t *out);

/**
 * @brief A number in [@p min, @p max] (inclusive; pass -INFINITY or INFINITY for no limit).
 *
 * Errors (::ERR_FORMAT): `"lr" must be a number, got the string "0.1"`,
 * `"lr" must be from 0 to 1, got 2`.
 */
int json_as_number(const JsonValue *v, double min, double max, double *out);

/**
 * @brief true or false.
 *
 * Otherwise ::ERR_FORMAT `"shuffle" must be true or false, got the string "yes"`.
 */
int json_as_bool(const JsonValue *v, bool *out);

/**
 * @brief A string; @p *out points into the document.
 *
 * Otherwise ::ERR_FORMAT `"name" must be a string, got the number 3`.
 */
int json_as_string(const JsonValue *v, const char **out);

/**
 * @brief A string from a NULL-terminated list of @p choices; @p *out is its index.
 *
 * Otherwise ::ERR_FORMAT `config.json:2: "optimizer" must be one of "sgd",
 * "adam", got "adma" (did you mean "adam"?)`; the suggestion appears when one
 * choice is close (json_suggest()).
 */
int json_as_choice(const JsonValue *v, const char *const *choices, int *out);

/**
 * @brief Check that every key of object @p obj is in the NULL-terminated list @p allowed.
 *
 * The first unknown key (in file order) is ::ERR_FORMAT: `config.json:5:
 * unknown key "lerning_rate" (did you mean "learning_rate"?)`, with
 * `in "optimizer"` after the key for a nested object, and the list of known
 * keys instead of a suggestion when none is close.
 */
int json_check_keys(const JsonValue *obj, const char *const *allowed);

/**
 * @brief Set ::ERR_FORMAT with the message `SOURCE:LINE: "PATH" ` and then @p fmt.
 *
 * For checks the getters do not cover: `json_error(v, "must be greater than
 * 0, got %g", lr)` gives `config.json:3: "lr" must be greater than 0, got 0`.
 * For the root value "PATH" is "the top-level value". Returns ::ERR_FORMAT.
 */
int json_error(const JsonValue *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * @brief Write the key path of @p v into @p buf: `optimizer.lr`, `layers[2].units`.
 *
 * The root's path is empty. Returns @p buf (cut short when it does not fit).
 */
const char *json_path(const JsonValue *v, char *buf, size_t size);

/**
 * @brief Describe @p v for a message: `the string "20"`, `the number 2.5`, `true`,
 *        `null`, `an array of 3 items`, `an empty object`.
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
 * @brief Builds JSON text; set up with json_writer_init(), read with json_writer_finish().
 *
 * The fields are the writer's own. Each write function returns an ::ErrCode;
 * the first error sticks (later calls return it and write nothing), so a
 * sequence of writes can be checked once, at json_writer_finish().
 */
typedef struct JsonWriter {
    char *buf;                 /**< the text so far */
    size_t len;                /**< bytes in @ref buf */
    size_t cap;                /**< bytes allocated at @ref buf */
    bool pretty;               /**< indent by two spaces, one item per line */
    int depth;                 /**< open arrays and objects */
    char open[JSON_MAX_DEPTH]; /**< '{' or '[' for each open container */
    int items[JSON_MAX_DEPTH]; /**< items written in each open container */
    bool have_key;             /**< a key was written and waits for its value */
    bool done;                 /**< the top-level value is complete */
    int err;                   /**< the first error, or 0 */
} JsonWriter;

/** @brief Start an empty writer, compact or (@p pretty) indented by two spaces. */
void json_writer_init(JsonWriter *w, bool pretty);

/** @brief Release the writer's buffer (also after json_writer_finish() took it). */
void json_writer_free(JsonWriter *w);

/**
 * @brief Hand over the text: @p *text (zero-terminated, free() it) and @p *len.
 *
 * Fails with the writer's first error, or ::ERR_ARG when no complete value
 * was written (an object left open). Pretty text ends with a newline.
 */
int json_writer_finish(JsonWriter *w, char **text, size_t *len);

/** @brief Open an object ('{'). */
int json_write_begin_object(JsonWriter *w);
/** @brief Close the innermost object; ::ERR_ARG if it is not an object or a key waits. */
int json_write_end_object(JsonWriter *w);
/** @brief Open an array ('['). */
int json_write_begin_array(JsonWriter *w);
/** @brief Close the innermost array; ::ERR_ARG if it is not an array. */
int json_write_end_array(JsonWriter *w);

/**
 * @brief Write the key of the next member of the innermost object.
 *
 * ::ERR_ARG outside an object or when the previous key has no value yet;
 * duplicate keys are the caller's to avoid.
 */
int json_write_key(JsonWriter *w, const char *key);

/**
 * @brief Write a string, escaping quotes, backslashes and control characters.
 *
 * @p s must be valid UTF-8 (::ERR_ARG naming the bad byte otherwise).
 */
int json_write_string(JsonWriter *w, const char *s);

/** @brief Write an integer. */
int json_write_int(JsonWriter *w, int64_t v);

/**
 * @brief Write an f32 value with "%.9g", which reads back as the same float.
 *
 * ::ERR_NUMERIC for NaN and infinities, which JSON cannot write.
 */
int json_write_f32(JsonWriter *w, float v);

/**
 * @brief Write a double with "%.17g", which reads back as the same double.
 *
 * ::ERR_NUMERIC for NaN and infinities, which JSON cannot write.
 */
int json_write_double(JsonWriter *w, double v);

/** @brief Write true or false. */
int json_write_bool(JsonWriter *w, bool v);

/** @brief Write null. */
int json_write_null(JsonWriter *w);

#endif /* WB_JSON_H */
