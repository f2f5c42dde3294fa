/* numtext.c: a number literal read exactly, before any rounding. */
#include "lib/core/numtext.h"

#include <string.h>

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_hex_digit(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Exponents are kept within +-EXP_CAP: past it every digit is far from the point. */
#define EXP_CAP 1000000000000000LL

bool numtext_scan(const char *s, size_t len, NumText *out)
{
    memset(out, 0, sizeof *out);
    size_t i = 0;
    bool negative = i < len && s[i] == '-';
    if (i < len && (s[i] == '-' || s[i] == '+')) i++;
    if (i + 1 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        size_t j = i + 2;
        if (j < len && s[j] == '.') j++;
        if (j >= len || !is_hex_digit(s[j])) return false;
        out->negative = negative;
        out->hex = true;
        return true;
    }
    size_t int_at = i;
    while (i < len && is_digit(s[i])) i++;
    size_t int_len = i - int_at, frac_at = i, frac_len = 0;
    if (i < len && s[i] == '.') {
        frac_at = ++i;
        while (i < len && is_digit(s[i])) i++;
        frac_len = i - frac_at;
    }
    if (int_len + frac_len == 0) return false;
    long long exp = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool exp_negative = i < len && s[i] == '-';
        if (i < len && (s[i] == '-' || s[i] == '+')) i++;
        if (i >= len || !is_digit(s[i])) return false;
        for (; i < len && is_digit(s[i]); i++)
            if (exp < EXP_CAP) exp = exp * 10 + (s[i] - '0');
        if (exp_negative) exp = -exp;
    }
    if (i != len) return false;

    /* The digits d[0..n) (the whole part, then the fraction), with the point after
     * `point` of them once the exponent is applied. */
    size_t n = int_len + frac_len;
#define DIGIT(k) ((k) < int_len ? s[int_at + (k)] : s[frac_at + (k) - int_len])
    long long point = (long long)int_len + exp;
    size_t first = 0, last = 0;
    bool any = false;
    for (size_t k = 0; k < n; k++)
        if (DIGIT(k) != '0') {
            if (!any) first = k;
            last = k, any = true;
        }
    out->negative = negative;
    out->nonzero = any;
    if (!any) {
        out->whole = out->fits = true;
        return true;
    }
    /* Digit k stands for d[k] * 10^(point - 1 - k): whole when every nonzero one has k < point. */
    out->whole = (long long)last < point;
    if (!out->whole || point - (long long)first > 19) return true;
    uint64_t v = 0, limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (long long k = (long long)first; k < point; k++) {
        unsigned d = (size_t)k < n ? (unsigned)(DIGIT((size_t)k) - '0') : 0;
        if (v > (limit - d) / 10) return true; /* beyond int64_t */
        v = v * 10 + d;
    }
#undef DIGIT
    out->fits = true;
    out->value = negative ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return true;
}
