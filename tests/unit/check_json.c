/* check_json.c: parsing with jansson (order, lines, offsets, every error), the typed getters
 * and writing. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"
#include "lib/io/json.h"
#include "lib/core/rng.h"
#include "suites.h"

static Json *parse_ok(const char *text)
{
    Json *doc = NULL;
    int rc = json_parse(text, strlen(text), "t.json", &doc);
    ck_assert_msg(rc == ERR_OK, "parsing %s failed: %s", text, err_message());
    return doc;
}

/* Fail unless the last error is code with exactly the message want. */
#define assert_error(rc, code, want)                                                               \
    do {                                                                                           \
        int rc_ = (rc);                                                                            \
        ck_assert_msg(rc_ == (int)(code), "got code %d (%s), expected %d", rc_, err_message(),     \
                      (int)(code));                                                                \
        ck_assert_str_eq(err_message(), want);                                                     \
    } while (0)

START_TEST(test_parse_keeps_order_lines_and_types)
{
    const char *text = "{\n"
                       "  \"z\": 1,\n"
                       "  \"a\": [true, false, null, -2.5e3, \"s\"],\n"
                       "  \"m\": {\"x\": {}, \"y\": []},\n"
                       "  \"big\": 9007199254740993,\n"
                       "  \"min\": -9223372036854775808\n"
                       "}";
    Json *doc = parse_ok(text);
    const JsonValue *root = json_root(doc);
    ck_assert_int_eq(root->type, JSON_OBJECT);
    ck_assert_int_eq(root->count, 5);
    ck_assert_int_eq(root->line, 1);
    ck_assert_ptr_null(root->parent);
    const char *keys[] = {"z", "a", "m", "big", "min"};
    for (int i = 0; i < 5; i++) {
        ck_assert_str_eq(root->items[i].key, keys[i]); /* file order, not sorted */
        ck_assert_int_eq(root->items[i].line, i + 2);
        ck_assert_int_eq(root->items[i].index, i);
        ck_assert_ptr_eq(root->items[i].parent, root);
        ck_assert_str_eq(root->items[i].source, "t.json");
    }
    const JsonValue *a = json_get(root, "a");
    ck_assert_int_eq(a->type, JSON_ARRAY);
    ck_assert_int_eq(a->count, 5);
    ck_assert_int_eq(a->items[0].type, JSON_TRUE);
    ck_assert_int_eq(a->items[1].type, JSON_FALSE);
    ck_assert_int_eq(a->items[2].type, JSON_NULL);
    ck_assert_int_eq(a->items[3].type, JSON_REAL);
    ck_assert(json_real_value(a->items[3].json) == -2500.0);
    ck_assert_str_eq(json_string_value(a->items[4].json), "s");
    ck_assert_ptr_null(a->items[4].key);
    ck_assert_ptr_eq(a->items[4].parent, a);
    /* Offsets point at the value's first byte. */
    ck_assert_int_eq(text[a->offset], '[');
    ck_assert_int_eq(text[a->items[4].offset], '"');
    ck_assert_int_eq(text[json_get(root, "min")->offset], '-');
    const JsonValue *m = json_get(root, "m");
    ck_assert_int_eq(json_get(m, "x")->type, JSON_OBJECT);
    ck_assert_int_eq(json_get(m, "x")->count, 0);
    ck_assert_int_eq(json_get(m, "y")->count, 0);
    ck_assert_int_eq(text[json_get(m, "y")->offset], '[');
    ck_assert_ptr_null(json_get(m, "q"));
    ck_assert_ptr_null(json_get(a, "x")); /* not an object */
    /* Integers keep every digit, beyond a double's 2^53. */
    const JsonValue *big = json_get(root, "big");
    ck_assert_int_eq(big->type, JSON_INTEGER);
    ck_assert(json_integer_value(big->json) == INT64_C(9007199254740993));
    ck_assert(json_integer_value(json_get(root, "min")->json) == INT64_MIN);
    char path[64];
    ck_assert_str_eq(json_path(&a->items[3], path, sizeof path), "a[3]");
    ck_assert_str_eq(json_path(json_get(m, "y"), path, sizeof path), "m.y");
    ck_assert_str_eq(json_path(root, path, sizeof path), "");
    json_free(doc);

    /* Lines and offsets survive escapes, strings with brackets and blank lines. */
    const char *tricky = "\r\n[\"a\\\"]\\\\\", {\"k\\u0022}\": [],\n\n \"n\": -0.5e1},\n 7]";
    doc = parse_ok(tricky);
    root = json_root(doc);
    ck_assert_int_eq(root->line, 2);
    ck_assert_int_eq(root->offset, 2);
    const JsonValue *o = &root->items[1], *n = json_get(o, "n");
    ck_assert_str_eq(o->items[0].key, "k\"}");
    ck_assert_int_eq(n->line, 4);
    ck_assert_int_eq(tricky[n->offset], '-');
    ck_assert_int_eq(root->items[2].line, 5);
    ck_assert_int_eq(tricky[root->items[2].offset], '7');
    json_free(doc);
}
END_TEST

START_TEST(test_numbers)
{
    struct {
        const char *text;
        json_type type;
        double number;
    } cases[] = {
        {"0", JSON_INTEGER, 0},
        {"-0", JSON_INTEGER, -0.0},
        {"1.5", JSON_REAL, 1.5},
        {"1e2", JSON_REAL, 100},
        {"1E+2", JSON_REAL, 100},
        {"25e-1", JSON_REAL, 2.5},
        {"0.1", JSON_REAL, 0.1},
        {"64.0", JSON_REAL, 64}, /* a real, which safetensors refuses for a size */
        {"9223372036854775807", JSON_INTEGER, 9223372036854775807.0},
        {"1e-400", JSON_REAL, 0}, /* underflow rounds to zero, as strtod does */
        {"1.7976931348623157e308", JSON_REAL, 1.7976931348623157e308},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Json *doc = parse_ok(cases[i].text);
        const JsonValue *v = json_root(doc);
        ck_assert_msg(v->type == cases[i].type, "%s: type %d", cases[i].text, (int)v->type);
        ck_assert_msg(json_number_value(v->json) == cases[i].number, "%s: got %.17g", cases[i].text,
                      json_number_value(v->json));
        json_free(doc);
    }
}
END_TEST

START_TEST(test_escapes_and_unicode)
{
    const char *text = "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u00e9\\u20AC\", \"\\ud83d\\ude00\", "
                       "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"]";
    Json *doc = parse_ok(text);
    const JsonValue *a = json_root(doc);
    ck_assert_str_eq(json_string_value(a->items[0].json), "\"\\/\b\f\n\r\t");
    ck_assert_str_eq(json_string_value(a->items[1].json), "\xc3\xa9\xe2\x82\xac"); /* é € */
    ck_assert_str_eq(json_string_value(a->items[2].json), "\xf0\x9f\x98\x80");     /* from a pair */
    ck_assert_str_eq(json_string_value(a->items[3].json),
                     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    json_free(doc);
    /* A text need not be zero-terminated. */
    const char buf[] = {'[', '1', ']', 'x'};
    ck_assert_int_eq(json_parse(buf, 3, "t.json", &doc), ERR_OK);
    json_free(doc);
}
END_TEST

typedef struct ParseCase {
    const char *text;
    size_t len; /* 0: strlen(text) */
    const char *message;
} ParseCase;

/* jansson's messages, at jansson's line and column (the column where it stopped
 * reading), with this layer's hints and plainer words for a few. */
static const ParseCase parse_cases[] = {
    {"", 0, "t.json:1:1: invalid JSON: unexpected token near end of file"},
    {"  \n ", 0, "t.json:2:1: invalid JSON: unexpected token near end of file"},
    {"{\"a\": 1,}", 0,
     "t.json:1:9: invalid JSON: string or '}' expected near '}' (JSON allows no comma after the "
     "last item)"},
    {"{a: 1}", 0, "t.json:1:2: invalid JSON: string or '}' expected near 'a'"},
    {"[1,\n  2,\n]", 0,
     "t.json:3:1: invalid JSON: unexpected token near ']' (JSON allows no comma after the last "
     "item)"},
    {"{\"a\" 1}", 0, "t.json:1:6: invalid JSON: ':' expected near '1'"},
    {"{\"a\": 1 \"b\": 2}", 0, "t.json:1:11: invalid JSON: '}' expected near '\"b\"'"},
    {"[1 2]", 0, "t.json:1:4: invalid JSON: ']' expected near '2'"},
    {"[1", 0, "t.json:1:2: invalid JSON: ']' expected near end of file"},
    {"{\"a\": 1}\nx", 0, "t.json:2:1: invalid JSON: end of file expected near 'x'"},
    {"{\"a\": 1} // note", 0,
     "t.json:1:10: invalid JSON: end of file expected near '/' (JSON has no comments)"},
    {"{\"a\": 1,\n  # note\n}", 0,
     "t.json:2:3: invalid JSON: string or '}' expected near '#' (JSON has no comments)"},
    {"{\"a\": 1,\n \"b\": 2,\n \"a\": 3}", 0,
     "t.json:3:4: invalid JSON: duplicate object key near '\"a\"'"},
    {"[{\"x\":1,\"y\":2,\"x\":3,\"y\":4}]", 0,
     "t.json:1:17: invalid JSON: duplicate object key near '\"x\"'"},
    {"1e999", 0, "t.json:1:5: invalid JSON: real number overflow near '1e999'"},
    {"[-1.5e400]", 0, "t.json:1:9: invalid JSON: real number overflow near '-1.5e400'"},
    {"9223372036854775808", 0,
     "t.json:1:19: invalid JSON: too big integer near '9223372036854775808'"},
    {"-9223372036854775809", 0,
     "t.json:1:20: invalid JSON: too big negative integer near '-9223372036854775809'"},
    {"0123", 0, "t.json:1:1: invalid JSON: invalid token near '0'"},
    {"-", 0, "t.json:1:1: invalid JSON: invalid token near '-'"},
    {"1.", 0, "t.json:1:2: invalid JSON: invalid token near '1.'"},
    {"1.5e+", 0, "t.json:1:5: invalid JSON: invalid token near '1.5e+'"},
    {".5", 0, "t.json:1:1: invalid JSON: invalid token near '.'"},
    {"True", 0, "t.json:1:4: invalid JSON: invalid token near 'True'"},
    {"[NaN]", 0, "t.json:1:4: invalid JSON: invalid token near 'NaN'"},
    {"[nul]", 0, "t.json:1:4: invalid JSON: invalid token near 'nul'"},
    {"\"abc", 0, "t.json:1:4: invalid JSON: premature end of input near '\"abc'"},
    {"\"a\nb\"", 0, "t.json:1:2: invalid JSON: unexpected newline near '\"a'"},
    {"\"a\tb\"", 0, "t.json:1:2: invalid JSON: control character 0x9 near '\"a'"},
    {"\"\\x\"", 0, "t.json:1:3: invalid JSON: invalid escape near '\"\\x'"},
    {"\"\\u12G4\"", 0, "t.json:1:6: invalid JSON: invalid escape near '\"\\u12G'"},
    {"\"\\ud83d\"", 0, "t.json:1:8: invalid JSON: invalid Unicode '\\uD83D' near '\"\\ud83d\"'"},
    {"\"\\ud83d\\u0041\"", 0,
     "t.json:1:14: invalid JSON: invalid Unicode '\\uD83D\\u0041' near '\"\\ud83d\\u0041\"'"},
    {"\"\\ude00\"", 0, "t.json:1:8: invalid JSON: invalid Unicode '\\uDE00' near '\"\\ude00\"'"},
    {"\"\xff\"", 0, "t.json:1:1: invalid JSON: unable to decode byte 0xff near '\"'"},
    {"\"\xc0\xaf\"", 0, "t.json:1:1: invalid JSON: unable to decode byte 0xc0 near '\"'"},
    {"\"\xed\xa0\x80\"", 0,
     "t.json:1:1: invalid JSON: unable to decode byte 0xed near '\"'"}, /* a surrogate */
    {"\"\xe2\x82\"", 0, "t.json:1:1: invalid JSON: unable to decode byte 0xe2 near '\"'"},
    {"\"a\\u0000b\"", 0,
     "t.json:1:10: invalid JSON: a string holds \\u0000 (a NUL character), which is refused here"},
    {"{\"a\\u0000b\": 1}", 0,
     "t.json:1:11: invalid JSON: NUL byte in object key not supported near '\"a\\u0000b\"'"},
    {"[1,\0 2]", 7, "t.json:1:4: invalid JSON: a NUL byte, which JSON text cannot hold"},
    {"[1]\0", 4, "t.json:1:4: invalid JSON: a NUL byte, which JSON text cannot hold"},
    /* Python's json and the safetensors library refuse a byte-order mark too. */
    {"\xEF\xBB\xBF{\"k\": 1}", 0,
     "t.json:1:1: invalid JSON: the text starts with a byte-order mark (EF BB BF); save it as "
     "UTF-8 without one"},
    /* Columns count characters, not bytes. */
    {"{\n  \"\xc3\xa9\": 1 x}", 0, "t.json:2:10: invalid JSON: '}' expected near 'x'"},
};

START_TEST(test_parse_errors_say_where_what_and_what_came)
{
    const ParseCase *c = &parse_cases[_i];
    Json *doc = (Json *)1;
    int rc = json_parse(c->text, c->len ? c->len : strlen(c->text), "t.json", &doc);
    ck_assert_msg(rc == ERR_FORMAT, "case %d: got %d (%s)", _i, rc, err_message());
    ck_assert_ptr_null(doc);
    ck_assert_str_eq(err_message(), c->message);
}
END_TEST

/* n arrays inside each other, "[[[...]]]". */
static char *nested(int n)
{
    char *s = malloc(2 * (size_t)n + 1);
    for (int i = 0; i < n; i++) {
        s[i] = '[';
        s[2 * n - 1 - i] = ']';
    }
    s[2 * n] = '\0';
    return s;
}

START_TEST(test_nesting_limit)
{
    enum { MAX_DEPTH = 2048 }; /* jansson's JSON_PARSER_MAX_DEPTH */
    char *ok = nested(MAX_DEPTH), *deep = nested(MAX_DEPTH + 1);
    Json *doc = parse_ok(ok);
    const JsonValue *v = json_root(doc);
    int depth = 1;
    while (v->count) {
        v = &v->items[0];
        depth++;
    }
    ck_assert_int_eq(depth, MAX_DEPTH);
    ck_assert_int_eq(v->offset, MAX_DEPTH - 1);
    char path[8000];
    json_path(v, path, sizeof path);
    ck_assert_int_eq(strlen(path), 3 * (MAX_DEPTH - 1)); /* "[0]" per level below the root */
    json_free(doc);
    ck_assert_int_eq(json_parse(deep, strlen(deep), "t.json", &doc), ERR_FORMAT);
    ck_assert_str_eq(err_message(), "t.json:1:2049: invalid JSON: maximum parsing depth reached "
                                    "near '['");
    free(ok);
    free(deep);
}
END_TEST

static const char *config = "{\n"
                            "  \"epochs\": \"20\",\n"
                            "  \"lr\": 0.1,\n"
                            "  \"batch\": 2.5,\n"
                            "  \"workers\": 0,\n"
                            "  \"optimizer\": \"adma\",\n"
                            "  \"shuffle\": \"yes\",\n"
                            "  \"name\": 3,\n"
                            "  \"model\": {\"units\": [4, 10, -3], \"act\": \"relu\"},\n"
                            "  \"big\": 1e30,\n"
                            "  \"twenty\": 2e1,\n"
                            "  \"flag\": true\n"
                            "}\n";

/* Numbers as written: the literal decides, not the double jansson rounded it to. */
START_TEST(test_numbers_as_written)
{
    static const char text[] = "{\"a\": 10.000000000000000000001, \"b\": 1e-400, \"c\": 1e1,\n"
                               " \"d\": 1.5e1, \"e\": -0, \"f\": -0.0, \"g\": 1e-400,\n"
                               " \"h\": 9223372036854775807e0, \"i\": 9223372036854775808.0,\n"
                               " \"j\": 1e300, \"k\": 12.50e1, \"l\": -0e5}";
    Json *doc = NULL;
    ck_assert_int_eq(json_parse(text, strlen(text), "n.json", &doc), ERR_OK);
    const JsonValue *root = json_root(doc);
    ck_assert_str_eq(json_get(root, "b")->text, "1e-400");
    int64_t i = 99;
    double d = 99;
    assert_error(json_as_int(json_get(root, "a"), 1, 100, &i), ERR_FORMAT,
                 "n.json:1: \"a\" must be a whole number, got 10.000000000000000000001");
    assert_error(json_as_int(json_get(root, "b"), 0, INT64_MAX, &i), ERR_FORMAT,
                 "n.json:1: \"b\" must be a whole number, got 1e-400");
    ck_assert_int_eq(i, 99);
    ck_assert_int_eq(json_as_int(json_get(root, "c"), 1, 100, &i), ERR_OK); /* exactly 10 */
    ck_assert_int_eq(i, 10);
    ck_assert_int_eq(json_as_int(json_get(root, "d"), 1, 100, &i), ERR_OK);
    ck_assert_int_eq(i, 15);
    ck_assert_int_eq(json_as_int(json_get(root, "k"), 1, 200, &i), ERR_OK);
    ck_assert_int_eq(i, 125);
    assert_error(json_as_int(json_get(root, "e"), 0, INT64_MAX, &i), ERR_FORMAT,
                 "n.json:2: \"e\" must be at least 0, got -0");
    ck_assert_int_eq(json_as_int(json_get(root, "e"), -5, 5, &i), ERR_OK);
    ck_assert_int_eq(i, 0);
    ck_assert_int_eq(json_as_int(json_get(root, "h"), 0, INT64_MAX, &i), ERR_OK);
    ck_assert_int_eq(i, INT64_MAX);
    assert_error(json_as_int(json_get(root, "i"), 0, INT64_MAX, &i), ERR_FORMAT,
                 "n.json:3: \"i\" must be at least 0, got 9223372036854775808.0");
    assert_error(json_as_int(json_get(root, "j"), 0, INT64_MAX, &i), ERR_FORMAT,
                 "n.json:4: \"j\" must be at least 0, got 1e300");
    /* Reals: an underflow to 0 is refused as written; -0 where the range starts at 0. */
    assert_error(json_as_number(json_get(root, "g"), 0, 1e9, &d), ERR_FORMAT,
                 "n.json:2: \"g\" is 1e-400, which is not 0 but underflows to 0 in a double "
                 "(the smallest is 4.9e-324): write 0, or a larger number");
    assert_error(json_as_number(json_get(root, "f"), 0, 1, &d), ERR_FORMAT,
                 "n.json:2: \"f\" must be from 0 to 1, got -0.0");
    assert_error(json_as_number(json_get(root, "l"), 0, 1, &d), ERR_FORMAT,
                 "n.json:4: \"l\" must be from 0 to 1, got -0e5");
    ck_assert(d == 99);
    ck_assert_int_eq(json_as_number(json_get(root, "f"), -1, 1, &d), ERR_OK);
    uint64_t bits; /* -0 (the release build's -fno-signed-zeros may not tell it from 0) */
    memcpy(&bits, &d, sizeof bits);
    ck_assert_uint_eq(bits, (uint64_t)1 << 63);
    json_free(doc);
}
END_TEST

/* A key that holds an invisible character is shown with it, not as the key it looks like. */
START_TEST(test_keys_show_invisible_characters)
{
    static const char text[] = "{\"epochs\xe2\x80\x8b\": 3}";
    static const char *const keys[] = {"epochs", "lr", NULL};
    Json *doc = NULL;
    ck_assert_int_eq(json_parse(text, strlen(text), "k.json", &doc), ERR_OK);
    assert_error(json_check_keys(json_root(doc), keys), ERR_FORMAT,
                 "k.json:1: unknown key \"epochs\\u200b\" (known keys: \"epochs\", \"lr\")");
    json_free(doc);
    ck_assert_int_eq(json_parse("{\"\xef\xbb\xbflr\": 1}", 12, "k.json", &doc), ERR_OK);
    assert_error(json_check_keys(json_root(doc), keys), ERR_FORMAT,
                 "k.json:1: unknown key \"\\ufefflr\" (known keys: \"epochs\", \"lr\")");
    json_free(doc);
}
END_TEST

START_TEST(test_getters_name_source_line_path_and_expectation)
{
    Json *doc = NULL;
    ck_assert_int_eq(json_parse(config, strlen(config), "config.json", &doc), ERR_OK);
    const JsonValue *root = json_root(doc), *model = json_get(root, "model");
    int64_t i = 99;
    double d = 0;
    bool b = false;
    const char *s = NULL;
    int choice = -1;
    static const char *const optimizers[] = {"sgd", "adam", NULL};

    assert_error(json_as_int(json_get(root, "epochs"), 1, 100000, &i), ERR_FORMAT,
                 "config.json:2: \"epochs\" must be a whole number, got the string \"20\"");
    ck_assert_int_eq(i, 99); /* untouched on error */
    assert_error(json_as_int(json_get(root, "batch"), 1, 100000, &i), ERR_FORMAT,
                 "config.json:4: \"batch\" must be a whole number, got 2.5");
    assert_error(json_as_int(json_get(root, "workers"), 1, INT64_MAX, &i), ERR_FORMAT,
                 "config.json:5: \"workers\" must be at least 1, got 0");
    assert_error(json_as_int(json_get(root, "workers"), 1, 64, &i), ERR_FORMAT,
                 "config.json:5: \"workers\" must be from 1 to 64, got 0");
    assert_error(json_as_int(json_get(root, "workers"), INT64_MIN, -1, &i), ERR_FORMAT,
                 "config.json:5: \"workers\" must be at most -1, got 0");
    assert_error(json_as_int(json_get(root, "big"), 0, 100, &i), ERR_FORMAT,
                 "config.json:10: \"big\" must be from 0 to 100, got 1e30"); /* as written */
    ck_assert_int_eq(json_as_int(json_get(root, "twenty"), 1, 100, &i), ERR_OK);
    ck_assert_int_eq(i, 20);
    ck_assert_int_eq(json_as_int(json_get(root, "workers"), 0, 0, &i), ERR_OK);
    ck_assert_int_eq(i, 0);

    ck_assert_int_eq(json_as_number(json_get(root, "lr"), 0, 1, &d), ERR_OK);
    ck_assert(d == 0.1);
    assert_error(json_as_number(json_get(root, "lr"), 0.5, INFINITY, &d), ERR_FORMAT,
                 "config.json:3: \"lr\" must be at least 0.5, got 0.1");
    assert_error(json_as_number(json_get(root, "lr"), -INFINITY, 0.05, &d), ERR_FORMAT,
                 "config.json:3: \"lr\" must be at most 0.05, got 0.1");
    assert_error(json_as_number(json_get(root, "lr"), 0.2, 0.3, &d), ERR_FORMAT,
                 "config.json:3: \"lr\" must be from 0.2 to 0.3, got 0.1");
    assert_error(json_as_number(json_get(root, "epochs"), 0, 1, &d), ERR_FORMAT,
                 "config.json:2: \"epochs\" must be a number, got the string \"20\"");

    assert_error(json_as_choice(json_get(root, "optimizer"), optimizers, &choice), ERR_FORMAT,
                 "config.json:6: \"optimizer\" must be one of \"sgd\", \"adam\", got \"adma\" "
                 "(did you mean \"adam\"?)");
    assert_error(json_as_choice(json_get(model, "act"), optimizers, &choice), ERR_FORMAT,
                 "config.json:9: \"model.act\" must be one of \"sgd\", \"adam\", got \"relu\"");
    assert_error(json_as_choice(json_get(root, "name"), optimizers, &choice), ERR_FORMAT,
                 "config.json:8: \"name\" must be one of \"sgd\", \"adam\", got the number 3");
    static const char *const acts[] = {"tanh", "relu", NULL};
    ck_assert_int_eq(json_as_choice(json_get(model, "act"), acts, &choice), ERR_OK);
    ck_assert_int_eq(choice, 1);

    assert_error(json_as_bool(json_get(root, "shuffle"), &b), ERR_FORMAT,
                 "config.json:7: \"shuffle\" must be true or false, got the string \"yes\"");
    ck_assert_int_eq(json_as_bool(json_get(root, "flag"), &b), ERR_OK);
    ck_assert(b);
    assert_error(json_as_string(json_get(root, "name"), &s), ERR_FORMAT,
                 "config.json:8: \"name\" must be a string, got the number 3");
    ck_assert_int_eq(json_as_string(json_get(model, "act"), &s), ERR_OK);
    ck_assert_str_eq(s, "relu");

    const JsonValue *units = json_get(model, "units");
    assert_error(json_as_int(&units->items[2], 0, INT64_MAX, &i), ERR_FORMAT,
                 "config.json:9: \"model.units[2]\" must be at least 0, got -3");
    assert_error(json_expect(model, JSON_ARRAY), ERR_FORMAT,
                 "config.json:9: \"model\" must be an array, got an object with 2 members");
    assert_error(json_expect(units, JSON_STRING), ERR_FORMAT,
                 "config.json:9: \"model.units\" must be a string, got an array of 3 items");
    ck_assert_int_eq(json_expect(units, JSON_ARRAY), ERR_OK);
    assert_error(
        json_expect(root, JSON_ARRAY), ERR_FORMAT,
        "config.json:1: the top-level value must be an array, got an object with 11 members");

    const JsonValue *v = NULL;
    assert_error(json_require(root, "seed", &v), ERR_FORMAT,
                 "config.json:1: missing key \"seed\" in the top-level object");
    ck_assert_ptr_null(v);
    assert_error(json_require(model, "layers", &v), ERR_FORMAT,
                 "config.json:9: missing key \"layers\" in \"model\"");
    assert_error(json_require(units, "x", &v), ERR_FORMAT,
                 "config.json:9: \"model.units\" must be an object, got an array of 3 items");
    ck_assert_int_eq(json_require(root, "lr", &v), ERR_OK);
    ck_assert_ptr_eq(v, json_get(root, "lr"));

    assert_error(json_error(json_get(root, "lr"), "must be greater than %d, got %g", 1, 0.1),
                 ERR_FORMAT, "config.json:3: \"lr\" must be greater than 1, got 0.1");

    char desc[80];
    ck_assert_str_eq(json_describe(&units->items[0], desc, sizeof desc), "the number 4");
    ck_assert_str_eq(json_describe(json_get(root, "flag"), desc, sizeof desc), "true");
    json_free(doc);

    doc =
        parse_ok("[null, [], {}, [1], {\"a\": 1}, \"0123456789012345678901234567890123456789xyz\", "
                 "4.0, 2.5e-3, -1e30, false, \"a\\\"b\\n\\u00e9\"]");
    root = json_root(doc);
    const char *want[] = {"null",
                          "an empty array",
                          "an empty object",
                          "an array of 1 item",
                          "an object with 1 member",
                          "the string \"0123456789012345678901234567890123456789...\" (43 bytes)",
                          "the number 4.0", /* a real, told apart from the integer 4 */
                          "the number 0.0025",
                          "the number -1e+30",
                          "false",
                          "the string \"a\\\"b\\n\xc3\xa9\""};
    for (int k = 0; k < 11; k++)
        ck_assert_str_eq(json_describe(&root->items[k], desc, sizeof desc), want[k]);
    /* A real that is a whole number is one for json_as_int, and so is json_expect's JSON_REAL
     * for an integer. */
    ck_assert_int_eq(json_as_int(&root->items[6], 0, 10, &i), ERR_OK);
    ck_assert_int_eq(i, 4);
    ck_assert_int_eq(json_expect(&root->items[3].items[0], JSON_REAL), ERR_OK);
    ck_assert_int_eq(json_expect(&root->items[9], JSON_TRUE), ERR_OK);
    assert_error(json_expect(&root->items[6], JSON_INTEGER), ERR_FORMAT,
                 "t.json:1: \"[6]\" must be a whole number, got the number 4.0");
    json_free(doc);
}
END_TEST

START_TEST(test_unknown_keys_with_suggestions)
{
    const char *text = "{\n"
                       "  \"epochs\": 20,\n"
                       "  \"learning_rate\": 0.1,\n"
                       "  \"optimizer\": {\"name\": \"adam\", \"betas\": [0.9, 0.999]},\n"
                       "  \"lerning_rate\": 0.2\n"
                       "}";
    Json *doc = NULL;
    ck_assert_int_eq(json_parse(text, strlen(text), "config.json", &doc), ERR_OK);
    const JsonValue *root = json_root(doc), *opt = json_get(root, "optimizer");
    static const char *const top[] = {"epochs", "learning_rate", "optimizer", NULL};
    assert_error(json_check_keys(root, top), ERR_FORMAT,
                 "config.json:5: unknown key \"lerning_rate\" (did you mean \"learning_rate\"?)");
    static const char *const top2[] = {"epochs", "learning_rate", "optimizer", "lerning_rate",
                                       NULL};
    ck_assert_int_eq(json_check_keys(root, top2), ERR_OK);
    static const char *const opt_keys[] = {"name", "beta", NULL};
    assert_error(json_check_keys(opt, opt_keys), ERR_FORMAT,
                 "config.json:4: unknown key \"betas\" in \"optimizer\" (did you mean \"beta\"?)");
    static const char *const far[] = {"momentum", "nesterov", NULL};
    assert_error(json_check_keys(opt, far), ERR_FORMAT,
                 "config.json:4: unknown key \"name\" in \"optimizer\" (known keys: \"momentum\", "
                 "\"nesterov\")");
    assert_error(json_check_keys(json_get(root, "epochs"), top), ERR_FORMAT,
                 "config.json:2: \"epochs\" must be an object, got the number 20");
    json_free(doc);

    static const char *const opts[] = {"sgd", "adam", "adamw", NULL};
    ck_assert_str_eq(json_suggest("adma", opts), "adam"); /* a swap is one edit */
    ck_assert_str_eq(json_suggest("Adam", opts), "adam");
    ck_assert_str_eq(json_suggest("adamww", opts), "adamw");
    ck_assert_str_eq(json_suggest("sdg", opts), "sgd");
    ck_assert_ptr_null(json_suggest("rmsprop", opts));
    ck_assert_ptr_null(json_suggest("xy", opts));
    static const char *const short_keys[] = {"lr", "a", NULL};
    ck_assert_str_eq(json_suggest("l", short_keys), "lr");
    ck_assert_ptr_null(json_suggest("b", short_keys)); /* one edit would replace all of "a" */
    static const char *const keys[] = {"learning_rate", "warmup_epochs", NULL};
    ck_assert_ptr_null(json_suggest("lr_rate", keys));
    ck_assert_str_eq(json_suggest("warmup_epoch", keys), "warmup_epochs");
    ck_assert_str_eq(json_suggest("learnign_rat", keys), "learning_rate");
}
END_TEST

/* Parse text and write it again with json_text(). */
static char *rewrite(const char *text, int flags)
{
    Json *doc = parse_ok(text);
    char *out;
    size_t len;
    ck_assert_int_eq(json_text(json_root(doc)->json, flags, &out, &len), ERR_OK);
    ck_assert_int_eq(len, strlen(out));
    json_free(doc);
    return out;
}

START_TEST(test_text_compact_and_pretty)
{
    json_t *o = json_object(), *b = json_array();
    json_array_append_new(b, json_true());
    json_array_append_new(b, json_false());
    json_array_append_new(b, json_null());
    json_object_set_new(o, "a", json_integer(1));
    json_object_set_new(o, "b", b);
    json_object_set_new(o, "c\"", json_string("x\"y\\z\n\t\r\b\f\x01\x1f/\xc3\xa9"));
    json_object_set_new(o, "d", json_object());
    json_object_set_new(o, "e", json_array());
    json_object_set_new(o, "f64", json_real(0.1));
    json_object_set_new(o, "whole", json_real(2.0));
    json_object_set_new(o, "min", json_integer(INT64_MIN));
    char *text;
    size_t len;
    ck_assert_int_eq(json_text(o, 0, &text, &len), ERR_OK);
    /* Members in the order they were set; UTF-8 and '/' as they are. */
    const char *want = "{\"a\":1,\"b\":[true,false,null],\"c\\\"\":\"x\\\"y\\\\z\\n\\t\\r\\b\\f"
                       "\\u0001\\u001F/\xc3\xa9\",\"d\":{},\"e\":[],\"f64\":0.10000000000000001,"
                       "\"whole\":2.0,\"min\":-9223372036854775808}";
    ck_assert_str_eq(text, want);
    ck_assert_int_eq(len, strlen(want));

    /* Read back: the same values, the double to the bit. */
    Json *doc = parse_ok(text);
    const JsonValue *root = json_root(doc);
    ck_assert_str_eq(json_string_value(json_get(root, "c\"")->json),
                     "x\"y\\z\n\t\r\b\f\x01\x1f/\xc3\xa9");
    ck_assert(json_real_value(json_get(root, "f64")->json) == 0.1);
    ck_assert(json_integer_value(json_get(root, "min")->json) == INT64_MIN);
    json_free(doc);

    char *pretty = rewrite(text, JSON_TEXT_PRETTY);
    ck_assert_str_eq(pretty, "{\n"
                             "  \"a\": 1,\n"
                             "  \"b\": [\n"
                             "    true,\n"
                             "    false,\n"
                             "    null\n"
                             "  ],\n"
                             "  \"c\\\"\": \"x\\\"y\\\\z\\n\\t\\r\\b\\f\\u0001\\u001F/\xc3\xa9\",\n"
                             "  \"d\": {},\n"
                             "  \"e\": [],\n"
                             "  \"f64\": 0.10000000000000001,\n"
                             "  \"whole\": 2.0,\n"
                             "  \"min\": -9223372036854775808\n"
                             "}\n");
    /* Compact again from the pretty text gives the compact text. */
    char *again = rewrite(pretty, 0);
    ck_assert_str_eq(again, want);
    free(again);
    free(pretty);
    free(text);
    json_decref(o);

    /* A scalar alone is a complete document too. */
    json_t *hi = json_string("hi");
    ck_assert_int_eq(json_text(hi, JSON_TEXT_PRETTY, &text, NULL), ERR_OK);
    ck_assert_str_eq(text, "\"hi\"\n");
    free(text);
    json_decref(hi);
}
END_TEST

START_TEST(test_floats_read_back_to_the_bit)
{
    /* json_f32: the fewest digits that read back as the float. */
    json_t *a = json_array();
    const float fs[] = {0.05f, 0.9f, 0.1f, 1e-8f, 3.4028235e38f, 1.0f, 0.0f, -0.0f, 16777217.0f};
    for (size_t k = 0; k < sizeof fs / sizeof fs[0]; k++)
        json_array_append_new(a, json_f32(fs[k]));
    char *text;
    ck_assert_int_eq(json_text(a, JSON_TEXT_F32, &text, NULL), ERR_OK);
    ck_assert_str_eq(text, "[0.05,0.9,0.1,1e-8,3.4028235e38,1.0,0.0,-0.0,16777216.0]");
    free(text);
    json_decref(a);
    ck_assert_ptr_null(json_f32(NAN)); /* JSON has no NaN or infinity */
    ck_assert_ptr_null(json_f32(-INFINITY));

    Rng rng;
    rng_seed(&rng, 37, 0);
    for (int i = 0; i < 2000; i++) {
        /* Random bit patterns cover subnormals, huge and tiny values alike. */
        uint64_t bits = (uint64_t)rng_u32(&rng) << 32 | rng_u32(&rng);
        double d;
        float f;
        uint32_t fbits = (uint32_t)(bits >> 32);
        memcpy(&d, &bits, sizeof d);
        memcpy(&f, &fbits, sizeof f);
        if (!isfinite(d) || !isfinite(f)) continue;
        json_t *one = json_array(), *other = json_array();
        json_array_append_new(one, json_real(d));
        json_array_append_new(other, json_f32(f));
        char *t64, *t32;
        ck_assert_int_eq(json_text(one, 0, &t64, NULL), ERR_OK);
        ck_assert_int_eq(json_text(other, JSON_TEXT_F32, &t32, NULL), ERR_OK);
        Json *d64 = parse_ok(t64), *d32 = parse_ok(t32);
        double back = json_number_value(json_root(d64)->items[0].json);
        float fback = (float)json_number_value(json_root(d32)->items[0].json);
        ck_assert_msg(memcmp(&back, &d, sizeof d) == 0, "%s: %.17g came back as %.17g", t64, d,
                      back);
        ck_assert_msg(memcmp(&fback, &f, sizeof f) == 0, "%s: %.9g came back as %.9g", t32, f,
                      fback);
        json_free(d64);
        json_free(d32);
        free(t64);
        free(t32);
        json_decref(one);
        json_decref(other);
    }
    /* Parse, write, parse, write: the second text equals the first. */
    const char *text2 = "{\"name\":\"caf\xc3\xa9 \\ud83d\\ude00\",\"n\":[0,-1,1.5,1e-300,"
                        "1234567890123456789],\"nested\":{\"x\":[[],{}],\"y\":null}}";
    char *once = rewrite(text2, 0), *twice = rewrite(once, 0);
    ck_assert_str_eq(once, twice);
    ck_assert_ptr_nonnull(strstr(once, "\"caf\xc3\xa9 \xf0\x9f\x98\x80\""));
    free(once);
    free(twice);
}
END_TEST

START_TEST(test_text_that_cannot_be_written)
{
    ck_assert_int_eq(json_check_text("caf\xc3\xa9", "the name"), ERR_OK);
    assert_error(json_check_text("ab\xff", "the name of tensor 3"), ERR_ARG,
                 "the name of tensor 3 is not UTF-8 text: \"ab\\xff\"");
    /* A surrogate: the bytes that are not UTF-8 shown as such, the "é" before them as itself. */
    assert_error(json_check_text("\xc3\xa9\xed\xa0\x80\n", "the value"), ERR_ARG,
                 "the value is not UTF-8 text: \"\xc3\xa9\\xed\\xa0\\x80\\n\"");
    /* What jansson refuses to build, json_text() refuses to write. */
    char *text = (char *)1;
    ck_assert_ptr_null(json_string("ab\xff"));
    ck_assert_int_eq(json_text(NULL, 0, &text, NULL), ERR_ARG);
    ck_assert_ptr_null(text);
}
END_TEST

Suite *json_suite(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_parse_keeps_order_lines_and_types);
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_escapes_and_unicode);
    tcase_add_loop_test(tc, test_parse_errors_say_where_what_and_what_came, 0,
                        (int)(sizeof parse_cases / sizeof parse_cases[0]));
    tcase_add_test(tc, test_nesting_limit);
    suite_add_tcase(s, tc);
    TCase *tc2 = tcase_create("getters");
    tcase_add_test(tc2, test_getters_name_source_line_path_and_expectation);
    tcase_add_test(tc2, test_unknown_keys_with_suggestions);
    tcase_add_test(tc2, test_numbers_as_written);
    tcase_add_test(tc2, test_keys_show_invisible_characters);
    suite_add_tcase(s, tc2);
    TCase *tc3 = tcase_create("writing");
    tcase_add_test(tc3, test_text_compact_and_pretty);
    tcase_add_test(tc3, test_floats_read_back_to_the_bit);
    tcase_add_test(tc3, test_text_that_cannot_be_written);
    suite_add_tcase(s, tc3);
    return s;
}
