/* check_json.c: the JSON parser (trees, escapes, every error), the typed getters and the writer. */
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
    ck_assert(a->items[0].type == JSON_BOOL && a->items[0].boolean);
    ck_assert(a->items[1].type == JSON_BOOL && !a->items[1].boolean);
    ck_assert_int_eq(a->items[2].type, JSON_NULL);
    ck_assert_int_eq(a->items[3].type, JSON_NUMBER);
    ck_assert(!a->items[3].is_int);
    ck_assert(a->items[3].number == -2500.0);
    ck_assert_str_eq(a->items[4].string, "s");
    ck_assert_ptr_null(a->items[4].key);
    ck_assert_ptr_eq(a->items[4].parent, a);
    /* Offsets point at the value's first byte. */
    ck_assert_int_eq(text[a->offset], '[');
    ck_assert_int_eq(text[a->items[4].offset], '"');
    const JsonValue *m = json_get(root, "m");
    ck_assert_int_eq(json_get(m, "x")->type, JSON_OBJECT);
    ck_assert_int_eq(json_get(m, "x")->count, 0);
    ck_assert_int_eq(json_get(m, "y")->count, 0);
    ck_assert_ptr_null(json_get(m, "q"));
    ck_assert_ptr_null(json_get(a, "x")); /* not an object */
    /* Integers keep every digit, beyond a double's 2^53. */
    const JsonValue *big = json_get(root, "big");
    ck_assert(big->is_int);
    ck_assert(big->integer == INT64_C(9007199254740993));
    ck_assert(json_get(root, "min")->is_int);
    ck_assert(json_get(root, "min")->integer == INT64_MIN);
    char path[64];
    ck_assert_str_eq(json_path(&a->items[3], path, sizeof path), "a[3]");
    ck_assert_str_eq(json_path(json_get(m, "y"), path, sizeof path), "m.y");
    ck_assert_str_eq(json_path(root, path, sizeof path), "");
    json_free(doc);
}
END_TEST

START_TEST(test_numbers)
{
    struct {
        const char *text;
        bool is_int;
        double number;
    } cases[] = {
        {"0", true, 0},
        {"-0", true, -0.0},
        {"1.5", false, 1.5},
        {"1e2", false, 100},
        {"1E+2", false, 100},
        {"25e-1", false, 2.5},
        {"0.1", false, 0.1},
        {"9223372036854775807", true, 9223372036854775807.0},
        {"9223372036854775808", false, 9223372036854775808.0}, /* past int64: a double */
        {"123456789012345678901234567890", false, 1.2345678901234568e29},
        {"1e-400", false, 0}, /* underflow rounds to zero, as strtod does */
        {"1.7976931348623157e308", false, 1.7976931348623157e308},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Json *doc = parse_ok(cases[i].text);
        const JsonValue *v = json_root(doc);
        ck_assert_int_eq(v->type, JSON_NUMBER);
        ck_assert_msg(v->is_int == cases[i].is_int, "%s: is_int %d", cases[i].text, v->is_int);
        ck_assert_msg(v->number == cases[i].number, "%s: got %.17g", cases[i].text, v->number);
        json_free(doc);
    }
}
END_TEST

START_TEST(test_escapes_and_unicode)
{
    const char *text = "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u00e9\\u20AC\", \"\\ud83d\\ude00\", "
                       "\"a\\u0000b\", \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"]";
    Json *doc = parse_ok(text);
    const JsonValue *a = json_root(doc);
    ck_assert_str_eq(a->items[0].string, "\"\\/\b\f\n\r\t");
    ck_assert_str_eq(a->items[1].string, "\xc3\xa9\xe2\x82\xac"); /* é € */
    ck_assert_str_eq(a->items[2].string, "\xf0\x9f\x98\x80");     /* U+1F600 from a pair */
    ck_assert_int_eq(a->items[3].length, 3);                      /* an embedded NUL */
    ck_assert_mem_eq(a->items[3].string, "a\0b", 4);
    ck_assert_str_eq(a->items[4].string, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    json_free(doc);
    /* A byte-order mark is skipped; a text need not be zero-terminated. */
    doc = parse_ok("\xEF\xBB\xBF{\"k\": 1}");
    ck_assert_int_eq(json_root(doc)->count, 1);
    json_free(doc);
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

static const ParseCase parse_cases[] = {
    {"", 0,
     "t.json:1:1: expected a value (an object, array, string, number, true, false or null), "
     "got the end of the text"},
    {"  \n ", 0,
     "t.json:2:2: expected a value (an object, array, string, number, true, false or "
     "null), got the end of the text"},
    {"{\"a\": 1,}", 0,
     "t.json:1:9: expected a key (a string in double quotes), got '}' (JSON allows "
     "no comma after the last member)"},
    {"{a: 1}", 0, "t.json:1:2: expected a key (a string in double quotes) or '}', got 'a'"},
    {"[1, 2,]", 0,
     "t.json:1:7: expected a value, got ']' (JSON allows no comma after the last item)"},
    {"{\"a\" 1}", 0, "t.json:1:6: expected ':' after the key \"a\", got '1'"},
    {"{\"a\": 1 \"b\": 2}", 0,
     "t.json:1:9: expected ',' or '}' after the value of \"a\", got '\"'"},
    {"[1 2]", 0, "t.json:1:4: expected ',' or ']' after an array item, got '2'"},
    {"[1", 0, "t.json:1:3: expected ',' or ']' after an array item, got the end of the text"},
    {"{\"a\": 1}\nx", 0,
     "t.json:2:1: expected the end of the text after the top-level value, got 'x'"},
    {"{\"a\": 1} // note", 0,
     "t.json:1:10: expected the end of the text after the top-level value, "
     "got '/'"},
    {"{\"a\": 1,\n \"b\": 2,\n \"a\": 3}", 0,
     "t.json:3:2: duplicate key \"a\" in this object (first at line 1)"},
    {"[{\"x\":1,\"y\":2,\"x\":3,\"y\":4}]", 0,
     "t.json:1:15: duplicate key \"x\" in this object (first at line 1)"},
    {"1e999", 0,
     "t.json:1:1: expected a number that fits in a double (up to about 1.8e308), got 1e999"},
    {"[-1.5e400]", 0,
     "t.json:1:2: expected a number that fits in a double (up to about 1.8e308), "
     "got -1.5e400"},
    {"0123", 0, "t.json:1:1: expected a number without leading zeros, got 0123"},
    {"-", 0, "t.json:1:2: expected a digit after '-', got the end of the text"},
    {"1.", 0, "t.json:1:3: expected a digit after the decimal point, got the end of the text"},
    {"1.5e+", 0, "t.json:1:6: expected a digit in the exponent, got the end of the text"},
    {".5", 0,
     "t.json:1:1: expected a value (an object, array, string, number, true, false or "
     "null), got '.'"},
    {"True", 0,
     "t.json:1:1: expected a value (an object, array, string, number, true, false or "
     "null), got 'True'"},
    {"[nul]", 0,
     "t.json:1:2: expected a value (an object, array, string, number, true, false or "
     "null), got 'nul'"},
    {"\"abc", 0, "t.json:1:5: expected '\"' to close the string, got the end of the text"},
    {"\"a\nb\"", 0,
     "t.json:1:3: expected a string character, got a line break (write it as an "
     "escape such as \\n, or close the string with '\"')"},
    {"\"a\tb\"", 0,
     "t.json:1:3: expected a string character, got the control character U+0009 "
     "(write it as an escape such as \\n, or close the string with '\"')"},
    {"\"\\x\"", 0,
     "t.json:1:3: expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX) "
     "after the backslash, got 'x'"},
    {"\"\\u12G4\"", 0, "t.json:1:6: expected 4 hex digits after \\u, got 'G'"},
    {"\"\\ud83d\"", 0,
     "t.json:1:8: expected a low surrogate \\uDC00-\\uDFFF after the high "
     "surrogate \\uD83D, got '\"'"},
    {"\"\\ud83d\\u0041\"", 0,
     "t.json:1:8: expected a low surrogate \\uDC00-\\uDFFF after the high "
     "surrogate \\uD83D, got \\u0041"},
    {"\"\\ude00\"", 0,
     "t.json:1:2: expected a character, got the low surrogate \\uDE00 without a "
     "high surrogate before it"},
    {"\"\xff\"", 0, "t.json:1:2: expected UTF-8 text, got the byte 0xff"},
    {"\"\xc0\xaf\"", 0, "t.json:1:2: expected UTF-8 text, got the byte 0xc0"}, /* overlong '/' */
    {"\"\xed\xa0\x80\"", 0, "t.json:1:2: expected UTF-8 text, got the byte 0xed"}, /* a surrogate */
    {"\"\xe2\x82\"", 0, "t.json:1:2: expected UTF-8 text, got the byte 0xe2"},     /* cut short */
    {"[1,\0 2]", 7,
     "t.json:1:4: expected a value (an object, array, string, number, true, false or "
     "null), got a NUL byte"},
    /* Columns count characters, not bytes. */
    {"{\n  \"\xc3\xa9\": 1 x}", 0,
     "t.json:2:10: expected ',' or '}' after the value of \"\xc3\xa9\", got 'x'"},
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
    char *ok = nested(JSON_MAX_DEPTH), *deep = nested(JSON_MAX_DEPTH + 1);
    Json *doc = parse_ok(ok);
    const JsonValue *v = json_root(doc);
    int depth = 1;
    while (v->count) {
        v = &v->items[0];
        depth++;
    }
    ck_assert_int_eq(depth, JSON_MAX_DEPTH);
    char path[400];
    json_path(v, path, sizeof path);
    ck_assert_int_eq(strlen(path), 3 * (JSON_MAX_DEPTH - 1)); /* "[0]" per level below the root */
    json_free(doc);
    ck_assert_int_eq(json_parse(deep, strlen(deep), "t.json", &doc), ERR_FORMAT);
    ck_assert_str_eq(err_message(), "t.json:1:65: expected at most 64 nested arrays and objects, "
                                    "got a deeper '['");
    /* Deeper still, and objects count too. */
    char obj[600] = "";
    for (int i = 0; i < 70; i++)
        strcat(obj, "{\"k\":");
    ck_assert_int_eq(json_parse(obj, strlen(obj), "t.json", &doc), ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err_message(), "t.json:1:321: expected at most 64 nested"));
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
                 "config.json:10: \"big\" must be from 0 to 100, got 1e+30");
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

    char desc[64];
    ck_assert_str_eq(json_describe(&units->items[0], desc, sizeof desc), "the number 4");
    ck_assert_str_eq(json_describe(json_get(root, "flag"), desc, sizeof desc), "true");
    json_free(doc);

    doc = parse_ok(
        "[null, [], {}, [1], {\"a\": 1}, \"0123456789012345678901234567890123456789xyz\"]");
    root = json_root(doc);
    const char *want[] = {"null",
                          "an empty array",
                          "an empty object",
                          "an array of 1 item",
                          "an object with 1 member",
                          "the string \"0123456789012345678901234567890123456789...\""};
    for (int k = 0; k < 6; k++)
        ck_assert_str_eq(json_describe(&root->items[k], desc, sizeof desc), want[k]);
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

/* Write a parsed value back with the writer. */
static void write_value(JsonWriter *w, const JsonValue *v)
{
    switch (v->type) {
    case JSON_NULL:
        json_write_null(w);
        break;
    case JSON_BOOL:
        json_write_bool(w, v->boolean);
        break;
    case JSON_NUMBER:
        if (v->is_int)
            json_write_int(w, v->integer);
        else
            json_write_double(w, v->number);
        break;
    case JSON_STRING:
        json_write_string(w, v->string);
        break;
    case JSON_ARRAY:
        json_write_begin_array(w);
        for (int i = 0; i < v->count; i++)
            write_value(w, &v->items[i]);
        json_write_end_array(w);
        break;
    case JSON_OBJECT:
        json_write_begin_object(w);
        for (int i = 0; i < v->count; i++) {
            json_write_key(w, v->items[i].key);
            write_value(w, &v->items[i]);
        }
        json_write_end_object(w);
        break;
    }
}

static char *rewrite(const char *text, bool pretty)
{
    Json *doc = parse_ok(text);
    JsonWriter w;
    json_writer_init(&w, pretty);
    write_value(&w, json_root(doc));
    char *out;
    size_t len;
    ck_assert_int_eq(json_writer_finish(&w, &out, &len), ERR_OK);
    ck_assert_int_eq(len, strlen(out));
    json_writer_free(&w);
    json_free(doc);
    return out;
}

START_TEST(test_writer_compact_and_pretty)
{
    JsonWriter w;
    json_writer_init(&w, false);
    json_write_begin_object(&w);
    json_write_key(&w, "a");
    json_write_int(&w, 1);
    json_write_key(&w, "b");
    json_write_begin_array(&w);
    json_write_bool(&w, true);
    json_write_bool(&w, false);
    json_write_null(&w);
    json_write_end_array(&w);
    json_write_key(&w, "c\"");
    json_write_string(&w, "x\"y\\z\n\t\r\b\f\x01\x1f/\xc3\xa9");
    json_write_key(&w, "d");
    json_write_begin_object(&w);
    json_write_end_object(&w);
    json_write_key(&w, "e");
    json_write_begin_array(&w);
    json_write_end_array(&w);
    json_write_key(&w, "f32");
    json_write_f32(&w, 0.1f);
    json_write_key(&w, "f64");
    json_write_double(&w, 0.1);
    json_write_key(&w, "min");
    ck_assert_int_eq(json_write_int(&w, INT64_MIN), ERR_OK);
    ck_assert_int_eq(json_write_end_object(&w), ERR_OK);
    char *text;
    size_t len;
    ck_assert_int_eq(json_writer_finish(&w, &text, &len), ERR_OK);
    const char *want = "{\"a\":1,\"b\":[true,false,null],\"c\\\"\":\"x\\\"y\\\\z\\n\\t\\r\\b\\f"
                       "\\u0001\\u001f/\xc3\xa9\",\"d\":{},\"e\":[],\"f32\":0.100000001,"
                       "\"f64\":0.10000000000000001,\"min\":-9223372036854775808}";
    ck_assert_str_eq(text, want);
    ck_assert_int_eq(len, strlen(want));
    json_writer_free(&w);

    /* Read back: the same values, the floats to the bit. */
    Json *doc = parse_ok(text);
    const JsonValue *root = json_root(doc);
    ck_assert_str_eq(json_get(root, "c\"")->string, "x\"y\\z\n\t\r\b\f\x01\x1f/\xc3\xa9");
    ck_assert((float)json_get(root, "f32")->number == 0.1f);
    ck_assert(json_get(root, "f64")->number == 0.1);
    ck_assert(json_get(root, "min")->integer == INT64_MIN);
    json_free(doc);

    char *pretty = rewrite(text, true);
    ck_assert_str_eq(pretty, "{\n"
                             "  \"a\": 1,\n"
                             "  \"b\": [\n"
                             "    true,\n"
                             "    false,\n"
                             "    null\n"
                             "  ],\n"
                             "  \"c\\\"\": \"x\\\"y\\\\z\\n\\t\\r\\b\\f\\u0001\\u001f/\xc3\xa9\",\n"
                             "  \"d\": {},\n"
                             "  \"e\": [],\n"
                             "  \"f32\": 0.10000000100000001,\n"
                             "  \"f64\": 0.10000000000000001,\n"
                             "  \"min\": -9223372036854775808\n"
                             "}\n");
    /* Compact again from the pretty text gives the compact text (f32 now as a double). */
    char *again = rewrite(pretty, false);
    ck_assert_ptr_nonnull(strstr(again, "\"b\":[true,false,null],"));
    ck_assert_int_eq(strncmp(again, want, 20), 0);
    free(again);
    free(pretty);
    free(text);

    /* A scalar alone is a complete document too. */
    json_writer_init(&w, true);
    json_write_string(&w, "hi");
    ck_assert_int_eq(json_writer_finish(&w, &text, &len), ERR_OK);
    ck_assert_str_eq(text, "\"hi\"\n");
    free(text);
    json_writer_free(&w);
}
END_TEST

START_TEST(test_writer_round_trips_floats_and_text)
{
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
        JsonWriter w;
        json_writer_init(&w, false);
        json_write_begin_array(&w);
        json_write_double(&w, d);
        json_write_f32(&w, f);
        json_write_end_array(&w);
        char *text;
        size_t len;
        ck_assert_int_eq(json_writer_finish(&w, &text, &len), ERR_OK);
        Json *doc = parse_ok(text);
        const JsonValue *a = json_root(doc);
        double back = a->items[0].number;
        float fback = (float)a->items[1].number;
        ck_assert_msg(memcmp(&back, &d, sizeof d) == 0, "%s: %.17g came back as %.17g", text, d,
                      back);
        ck_assert_msg(memcmp(&fback, &f, sizeof f) == 0, "%s: %.9g came back as %.9g", text, f,
                      fback);
        json_free(doc);
        free(text);
        json_writer_free(&w);
    }
    /* Parse, write, parse, write: the second text equals the first. */
    const char *text = "{\"name\":\"caf\xc3\xa9 \\ud83d\\ude00\",\"n\":[0,-1,1.5,1e-300,"
                       "12345678901234567890],\"nested\":{\"x\":[[],{}],\"y\":null}}";
    char *once = rewrite(text, false), *twice = rewrite(once, false);
    ck_assert_str_eq(once, twice);
    ck_assert_ptr_nonnull(strstr(once, "\"caf\xc3\xa9 \xf0\x9f\x98\x80\""));
    free(once);
    free(twice);
}
END_TEST

START_TEST(test_writer_misuse_is_an_error_that_sticks)
{
    JsonWriter w;
    char *text;
    size_t len;

    json_writer_init(&w, false);
    json_write_begin_object(&w);
    assert_error(json_write_int(&w, 1), ERR_ARG,
                 "json writer: a value in an object needs json_write_key() first");
    /* It sticks: later calls return it, and the text is never handed out. */
    ck_assert_int_eq(json_write_key(&w, "a"), ERR_ARG);
    ck_assert_int_eq(json_write_end_object(&w), ERR_ARG);
    ck_assert_int_eq(json_writer_finish(&w, &text, &len), ERR_ARG);
    ck_assert_ptr_null(text);
    json_writer_free(&w);

    json_writer_init(&w, false);
    assert_error(json_write_key(&w, "a"), ERR_ARG, "json writer: key \"a\" outside an object");
    json_writer_free(&w);

    json_writer_init(&w, false);
    json_write_begin_object(&w);
    json_write_key(&w, "a");
    assert_error(json_write_key(&w, "b"), ERR_ARG,
                 "json writer: key \"b\" after a key without a value");
    json_writer_free(&w);

    json_writer_init(&w, false);
    json_write_begin_object(&w);
    assert_error(json_write_end_array(&w), ERR_ARG,
                 "json writer: closing an array that is not open");
    json_writer_free(&w);

    json_writer_init(&w, false);
    json_write_begin_array(&w);
    assert_error(json_write_double(&w, NAN), ERR_NUMERIC,
                 "json writer: nan has no JSON form (JSON has no NaN or infinity)");
    json_writer_free(&w);

    json_writer_init(&w, false);
    json_write_begin_array(&w);
    assert_error(json_write_f32(&w, -INFINITY), ERR_NUMERIC,
                 "json writer: -inf has no JSON form (JSON has no NaN or infinity)");
    json_writer_free(&w);

    json_writer_init(&w, false);
    assert_error(json_write_string(&w, "ab\xff"), ERR_ARG,
                 "json writer: the string \"ab\\xff\" is not UTF-8 (byte 0xff at offset 2)");
    json_writer_free(&w);

    json_writer_init(&w, false);
    json_write_begin_array(&w);
    json_write_begin_object(&w);
    assert_error(json_writer_finish(&w, &text, &len), ERR_ARG,
                 "json writer: the text is not complete: 2 arrays or objects still open");
    json_writer_free(&w);

    json_writer_init(&w, false);
    assert_error(json_writer_finish(&w, &text, &len), ERR_ARG, "json writer: nothing was written");
    json_writer_free(&w);

    json_writer_init(&w, false);
    json_write_int(&w, 1);
    assert_error(json_write_int(&w, 2), ERR_ARG,
                 "json writer: a second value after the complete top-level value");
    json_writer_free(&w);

    json_writer_init(&w, false);
    for (int i = 0; i < JSON_MAX_DEPTH; i++)
        ck_assert_int_eq(json_write_begin_array(&w), ERR_OK);
    assert_error(json_write_begin_array(&w), ERR_ARG,
                 "json writer: nesting deeper than 64 arrays and objects");
    json_writer_free(&w);
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
    suite_add_tcase(s, tc2);
    TCase *tc3 = tcase_create("writer");
    tcase_add_test(tc3, test_writer_compact_and_pretty);
    tcase_add_test(tc3, test_writer_round_trips_floats_and_text);
    tcase_add_test(tc3, test_writer_misuse_is_an_error_that_sticks);
    suite_add_tcase(s, tc3);
    return s;
}
