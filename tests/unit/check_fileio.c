/* check_fileio.c: the escapes every message shows names with (lib/core/err.h), and
 * numbers read as written (lib/core/numtext.h). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"
#include "lib/core/numtext.h"
#include "suites.h"

/* ---- names and numbers as shown --------------------------------------------------------- */

START_TEST(test_escapes_show_every_character)
{
    char buf[200];
    /* Controls, bidi and format characters, a BOM, bytes that are not UTF-8; "é" as it is. */
    const char s[] = "a\nb\t\x1b[2J caf\xc3\xa9 \xe2\x80\xae \xe2\x80\x8b \xef\xbb\xbf \xff \xc2\x85 "
                     "\xf3\xa0\x80\x81\\";
    ck_assert_str_eq(err_escape(s, strlen(s), 200, buf, sizeof buf),
                     "a\\nb\\t\\x1b[2J caf\xc3\xa9 \\u202e \\u200b \\ufeff \\xff \\u0085 "
                     "\\U000e0001\\");
    ck_assert_str_eq(err_quote("say \"hi\"\\", 9, 100, buf, sizeof buf), "\"say \\\"hi\\\"\\\\\"");
    /* Cut between characters, with the length. */
    ck_assert_str_eq(err_escape("ab\xc3\xa9\xc3\xa9", 6, 3, buf, sizeof buf), "ab... (6 bytes)");
    ck_assert_str_eq(err_quote("abcdef", 6, 4, buf, sizeof buf), "\"abcd...\" (6 bytes)");
    ck_assert_uint_eq(err_plain_prefix("run\xe2\x80\xaex", 7), 3);
    ck_assert_uint_eq(err_plain_prefix("caf\xc3\xa9", 5), 5);
    /* Every message is passed through the same rules. */
    err_set(ERR_ARG, "name %s here", "ev\xe2\x80\xaeil\r");
    ck_assert_str_eq(err_message(), "name ev\\u202eil\\r here");
    err_context("loading \xe2\x81\xa6x");
    ck_assert_str_eq(err_message(), "loading \\u2066x: name ev\\u202eil\\r here");
    ck_assert(err_invisible(0x2066) && err_invisible(0xfeff) && err_invisible(0x200b) &&
              err_invisible(0x7f) && err_invisible(0x10fffe));
    ck_assert(!err_invisible('a') && !err_invisible(0xe9) && !err_invisible(0x4e2d));
}
END_TEST

START_TEST(test_numtext_reads_the_literal)
{
    NumText t;
    ck_assert(numtext_scan("10.000000000000000000001", 24, &t) && !t.whole && t.nonzero);
    ck_assert(numtext_scan("1e-400", 6, &t) && !t.whole && t.nonzero);
    ck_assert(numtext_scan("1e1", 3, &t) && t.whole && t.fits && t.value == 10);
    ck_assert(numtext_scan("1.50e1", 6, &t) && t.whole && t.value == 15);
    ck_assert(numtext_scan("-0", 2, &t) && t.negative && !t.nonzero && t.whole && t.value == 0);
    ck_assert(numtext_scan("0.000e99999999999999999999", 26, &t) && !t.nonzero && t.whole);
    ck_assert(numtext_scan("1e999999999999", 14, &t) && t.whole && !t.fits);
    ck_assert(numtext_scan("-9223372036854775808", 20, &t) && t.fits && t.value == INT64_MIN);
    ck_assert(numtext_scan("9223372036854775808", 19, &t) && t.whole && !t.fits);
    ck_assert(numtext_scan("+.5", 3, &t) && !t.whole && !t.negative);
    ck_assert(numtext_scan("5.", 2, &t) && t.whole && t.value == 5);
    ck_assert(numtext_scan("0x1p1", 5, &t) && t.hex);
    ck_assert(numtext_scan("-0X.8P1", 7, &t) && t.hex && t.negative);
    const char *bad[] = {"", "-", ".", "e5", "1e", "1e+", "inf", "nan", "1x", " 1", "1 ", "0x", "1..2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(!numtext_scan(bad[i], strlen(bad[i]), &t), "\"%s\" was read", bad[i]);
}
END_TEST

Suite *fileio_suite(void)
{
    Suite *s = suite_create("fileio");
    TCase *tc3 = tcase_create("shown");
    tcase_add_test(tc3, test_escapes_show_every_character);
    tcase_add_test(tc3, test_numtext_reads_the_literal);
    suite_add_tcase(s, tc3);
    return s;
}
