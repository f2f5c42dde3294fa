/* check_safetensors.c: safetensors round trips, every damage the loader must refuse, saves
 * that a SIGKILL cannot half-finish, and Python reading our files. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/core/err.h"
#include "lib/io/safetensors.h"
#include "suites.h"
#include "tests/common/tmpdir.h"

/* ---- a fresh folder per test, under /tmp ------------------------------- */

static char tmp_dir[64];

static void make_tmp_dir(void)
{
    tmpdir_make(tmp_dir, sizeof tmp_dir, "wb-st");
}

static void remove_tmp_dir(void)
{
    tmpdir_remove(tmp_dir);
}

static void path_in(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", tmp_dir, name);
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static unsigned char *read_bytes(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)size + 1);
    ck_assert_int_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *n = (size_t)size;
    return buf;
}

/* Where the string needle first appears in hay (n bytes), or NULL. */
static unsigned char *find_bytes(unsigned char *hay, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(hay + i, needle, k)) return hay + i;
    return NULL;
}

/* A safetensors file from a header text and data_len bytes of data (zeros when
 * data is NULL). With fix_crc the "wb.crc32" digits in the header are set to
 * the file's CRC, as the writer does; otherwise they stay as they are. */
static void write_raw(const char *path, const char *header, size_t header_len, const void *data,
                      size_t data_len, bool fix_crc)
{
    size_t size = 8 + header_len + data_len;
    unsigned char *file = calloc(1, size);
    for (int i = 0; i < 8; i++)
        file[i] = (unsigned char)((uint64_t)header_len >> (8 * i));
    memcpy(file + 8, header, header_len);
    if (data) memcpy(file + 8 + header_len, data, data_len);
    if (fix_crc) {
        unsigned char *digits = find_bytes(file + 8, header_len, "\"wb.crc32\":\"");
        ck_assert_ptr_nonnull(digits);
        digits += strlen("\"wb.crc32\":\"");
        memcpy(digits, "00000000", 8);
        char hex[9];
        snprintf(hex, sizeof hex, "%08x", (unsigned)crc32_z(0, file, size));
        memcpy(digits, hex, 8);
    }
    tmpdir_write(path, file, size);
    free(file);
}

static uint64_t header_len_of(const unsigned char *file)
{
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | file[i];
    return n;
}

/* Replace the first `from` in the header of the file at path with `to`. */
static void edit_header(const char *path, const char *from, const char *to, bool fix_crc)
{
    size_t size;
    unsigned char *file = read_bytes(path, &size);
    size_t n = (size_t)header_len_of(file);
    char *header = malloc(n + strlen(to) + 1), *out = malloc(n + strlen(to) + 1);
    memcpy(header, file + 8, n);
    header[n] = '\0';
    char *at = strstr(header, from);
    ck_assert_msg(at != NULL, "\"%s\" is not in the header %s", from, header);
    size_t before = (size_t)(at - header);
    memcpy(out, header, before);
    strcpy(out + before, to);
    strcat(out, at + strlen(from));
    write_raw(path, out, strlen(out), file + 8 + n, size - 8 - n, fix_crc);
    free(header);
    free(out);
    free(file);
}

/* ---- the sample tensors ------------------------------------------------ */

static const float f32_vals[6] = {1.0f, -2.5f, 3.25f, 0.1f, 1e-7f, -0.0f};
/* -2, 0.333251953125, 65504 (the largest f16), 2^-24 (the smallest subnormal), inf */
static const uint16_t f16_bits[5] = {0xC000, 0x3555, 0x7BFF, 0x0001, 0x7C00};
/* 1, 3.140625, -123.5, 2^-133 (a subnormal) */
static const uint16_t bf16_bits[4] = {0x3F80, 0x4049, 0xC2F7, 0x0001};
static const int32_t i32_vals[4] = {0, -1, INT32_MAX, INT32_MIN};
static const float scalar = 42.5f;
static const int32_t eight_d[2] = {7, 8};

enum { N_SAMPLE = 7 };

/* Several dtypes and shapes, an empty tensor and a scalar. The f16 tensor has
 * an odd length, so without the writer's reordering the tensors after it
 * would be misaligned. */
static void sample(StTensor *t)
{
    memset(t, 0, N_SAMPLE * sizeof *t);
    t[0] = (StTensor){"a.f32", DTYPE_F32, 2, {2, 3}, f32_vals, sizeof f32_vals};
    t[1] = (StTensor){"b.f16", DTYPE_F16, 1, {5}, f16_bits, sizeof f16_bits};
    t[2] = (StTensor){"c.bf16", DTYPE_BF16, 1, {4}, bf16_bits, sizeof bf16_bits};
    t[3] = (StTensor){"d.i32", DTYPE_I32, 2, {2, 2}, i32_vals, sizeof i32_vals};
    t[4] = (StTensor){"e.empty", DTYPE_F32, 2, {0, 5}, NULL, 0};
    t[5] = (StTensor){"f.scalar", DTYPE_F32, 0, {0}, &scalar, sizeof scalar};
    t[6] = (StTensor){"g.8d", DTYPE_I32, 8, {1, 1, 1, 1, 1, 1, 1, 2}, eight_d, sizeof eight_d};
}

static const char *const sample_meta[] = {"epoch",   "7", "note", "h\xc3\xa9llo \"quoted\"\n",
                                          "version", "1"};

static void save_sample(const char *path)
{
    StTensor t[N_SAMPLE];
    sample(t);
    int rc = safetensors_save(path, t, N_SAMPLE, sample_meta, 3);
    ck_assert_msg(rc == ERR_OK, "save failed: %s", err_message());
}

/* Fail unless loading path fails with code and the message "PATH: want". */
static void assert_load_fails(const char *path, int code, const char *want)
{
    SafeTensors *st = (SafeTensors *)1;
    int rc = safetensors_load(path, &st);
    ck_assert_msg(rc == code, "got code %d (%s), expected %d", rc, err_message(), code);
    ck_assert_ptr_null(st);
    char full[1024];
    snprintf(full, sizeof full, "%s: %s", path, want);
    ck_assert_str_eq(err_message(), full);
}

/* ---- round trips -------------------------------------------------------- */

START_TEST(test_round_trip_dtypes_shapes_and_metadata)
{
    char path[256];
    path_in(path, sizeof path, "sample.safetensors");
    save_sample(path);
    ck_assert_int_eq(count_entries(tmp_dir), 1); /* no temporary file left */

    SafeTensors *st = NULL;
    ck_assert_int_eq(safetensors_load(path, &st), ERR_OK);
    StTensor want[N_SAMPLE];
    sample(want);
    ck_assert_int_eq(safetensors_count(st), N_SAMPLE);
    for (int i = 0; i < N_SAMPLE; i++) {
        const StTensor *t = safetensors_get(st, i);
        ck_assert_str_eq(t->name, want[i].name); /* header order is the given order */
        ck_assert_int_eq(t->dtype, want[i].dtype);
        ck_assert_int_eq(t->ndim, want[i].ndim);
        for (int d = 0; d < t->ndim; d++)
            ck_assert_int_eq(t->shape[d], want[i].shape[d]);
        ck_assert_uint_eq(t->bytes, want[i].bytes);
        ck_assert_ptr_nonnull(t->data);
        if (t->bytes) ck_assert_mem_eq(t->data, want[i].data, t->bytes);
        ck_assert_msg((uintptr_t)t->data % dtype_size(t->dtype) == 0, "%s is misaligned", t->name);
        ck_assert_ptr_eq(safetensors_find(st, want[i].name), t);
    }
    ck_assert_ptr_null(safetensors_get(st, -1));
    ck_assert_ptr_null(safetensors_get(st, N_SAMPLE));
    ck_assert_ptr_null(safetensors_find(st, "a.f3"));
    ck_assert_str_eq(safetensors_meta(st, "epoch"), "7");
    ck_assert_str_eq(safetensors_meta(st, "note"), sample_meta[3]);
    ck_assert_ptr_null(safetensors_meta(st, "missing"));
    const char *crc = safetensors_meta(st, "wb.crc32");
    ck_assert_ptr_nonnull(crc);
    ck_assert_int_eq(strlen(crc), 8);
    ck_assert_int_eq(strspn(crc, "0123456789abcdef"), 8);

    /* The layout: header padded to 8 bytes; the CRC covers the file with its digits zeroed. */
    size_t size;
    unsigned char *file = read_bytes(path, &size);
    uint64_t n = header_len_of(file);
    ck_assert_uint_eq((8 + n) % 8, 0);
    ck_assert_uint_eq(size, 8 + n + 24 + 10 + 8 + 16 + 0 + 4 + 8);
    unsigned char *digits = find_bytes(file, size, crc);
    ck_assert_ptr_nonnull(digits);
    memcpy(digits, "00000000", 8);
    char hex[9];
    snprintf(hex, sizeof hex, "%08x", (unsigned)crc32_z(0, file, size)); /* zlib's CRC-32 */
    ck_assert_str_eq(hex, crc);
    free(file);
    safetensors_free(st);
    safetensors_free(NULL);
    ck_assert_str_eq(safetensors_dtype_name(DTYPE_BF16), "BF16");

    /* Saving again over it replaces it; no tensors at all is a valid file too. */
    ck_assert_int_eq(safetensors_save(path, NULL, 0, NULL, 0), ERR_OK);
    ck_assert_int_eq(safetensors_load(path, &st), ERR_OK);
    ck_assert_int_eq(safetensors_count(st), 0);
    ck_assert_ptr_null(safetensors_meta(st, "epoch"));
    safetensors_free(st);
}
END_TEST

START_TEST(test_files_from_other_tools_load_without_a_checksum)
{
    char path[256];
    path_in(path, sizeof path, "other.safetensors");
    /* Spaces as another writer may put them, data in the opposite order of the header,
     * an empty tensor between the others, no wb.crc32. */
    const char *header =
        "{\n \"__metadata__\": {\"format\": \"pt\"},\n"
        " \"w\": {\"dtype\": \"BF16\", \"shape\": [2], \"data_offsets\": [8, 12]},\n"
        " \"z\": {\"dtype\": \"F32\", \"shape\": [0, 3], \"data_offsets\": [8, 8]},\n"
        " \"v\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}\n}";
    const unsigned char data[12] = {0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0x80, 0x3f, 0x49, 0x40};
    write_raw(path, header, strlen(header), data, sizeof data, false);
    SafeTensors *st = NULL;
    ck_assert_msg(safetensors_load(path, &st) == ERR_OK, "%s", err_message());
    ck_assert_int_eq(safetensors_count(st), 3);
    ck_assert_str_eq(safetensors_meta(st, "format"), "pt");
    ck_assert_ptr_null(safetensors_meta(st, "wb.crc32"));
    const StTensor *v = safetensors_find(st, "v"), *w = safetensors_find(st, "w");
    ck_assert_float_eq(((const float *)v->data)[1], 2.0f);
    ck_assert_int_eq(w->dtype, DTYPE_BF16);
    ck_assert_mem_eq(w->data, data + 8, 4);
    ck_assert_uint_eq(safetensors_find(st, "z")->bytes, 0);
    ck_assert_str_eq(safetensors_get(st, 0)->name, "w");
    safetensors_free(st);

    write_raw(path, "{}", 2, NULL, 0, false);
    ck_assert_int_eq(safetensors_load(path, &st), ERR_OK);
    ck_assert_int_eq(safetensors_count(st), 0);
    safetensors_free(st);
}
END_TEST

/* ---- Python reads our files --------------------------------------------- */

/* A python3 that can import torch, else any python3, else NULL. */
static const char *find_python(bool *has_torch)
{
    static const char *const candidates[] = {"python3", "/usr/bin/python3"};
    char cmd[256];
    for (int want_torch = 1; want_torch >= 0; want_torch--)
        for (int i = 0; i < 2; i++) {
            snprintf(cmd, sizeof cmd, "%s -c 'import %s' >/dev/null 2>&1", candidates[i],
                     want_torch ? "torch" : "json");
            if (system(cmd) == 0) {
                *has_torch = want_torch;
                return candidates[i];
            }
        }
    return NULL;
}

START_TEST(test_python_reads_what_we_write)
{
    bool has_torch = false;
    const char *python = find_python(&has_torch);
    if (!python) {
        printf("note: no python3 here, so tests/safetensors_check.py did not run\n");
        return;
    }
    char path[256];
    path_in(path, sizeof path, "py.safetensors");
    save_sample(path);

    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s %s/tests/safetensors_check.py %s 2>&1", python, WB_ROOT, path);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    char out[8192] = "", line[1024];
    bool torch_ran = false;
    while (fgets(line, sizeof line, p)) {
        if (line[0] == '#') { /* which optional checks ran */
            torch_ran |= strstr(line, "# torch ") && strstr(line, "decode the same");
            continue;
        }
        strncat(out, line, sizeof out - strlen(out) - 1);
    }
    int status = pclose(p);
    ck_assert_msg(status == 0, "%s failed (status %d):\n%s", cmd, status, out);

    /* f32 values as C prints them; f16 and bf16 values derived by hand from their bits. */
    char f32_line[256] = "tensor a.f32 F32 [2, 3]";
    for (int i = 0; i < 6; i++)
        snprintf(f32_line + strlen(f32_line), sizeof f32_line - strlen(f32_line), " %.9g",
                 (double)f32_vals[i]);
    char want[2048];
    snprintf(want, sizeof want,
             "crc32 ok\n"
             "meta epoch \"7\"\n"
             "meta note \"h\xc3\xa9llo \\\"quoted\\\"\\n\"\n"
             "meta version \"1\"\n"
             "%s\n"
             "tensor b.f16 F16 [5] -2 0.333251953 65504 5.96046448e-08 inf\n"
             "tensor c.bf16 BF16 [4] 1 3.140625 -123.5 9.18354962e-41\n"
             "tensor d.i32 I32 [2, 2] 0 -1 2147483647 -2147483648\n"
             "tensor e.empty F32 [0, 5]\n"
             "tensor f.scalar F32 [] 42.5\n"
             "tensor g.8d I32 [1, 1, 1, 1, 1, 1, 1, 2] 7 8\n",
             f32_line);
    ck_assert_str_eq(out, want);
    ck_assert_msg(torch_ran == has_torch, "%s can import torch, but the script did not compare",
                  python);

    /* The script is a real check: it refuses a damaged file. */
    size_t size;
    unsigned char *file = read_bytes(path, &size);
    file[size - 1] ^= 1;
    tmpdir_write(path, file, size);
    free(file);
    p = popen(cmd, "r");
    out[0] = '\0';
    while (fgets(line, sizeof line, p))
        strncat(out, line, sizeof out - strlen(out) - 1);
    ck_assert_int_ne(pclose(p), 0);
    ck_assert_ptr_nonnull(strstr(out, "checksum mismatch"));
}
END_TEST

/* ---- damaged files ------------------------------------------------------ */

START_TEST(test_truncated_files_say_so)
{
    char path[256], cut_path[256];
    path_in(path, sizeof path, "good.safetensors");
    path_in(cut_path, sizeof cut_path, "cut.safetensors");
    save_sample(path);
    size_t size;
    unsigned char *file = read_bytes(path, &size);
    size_t n = (size_t)header_len_of(file), data = size - 8 - n;
    size_t cuts[] = {0, 5, 8, 8 + n / 2, 8 + n, 8 + n + data / 2, size - 1};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        size_t cut = cuts[k];
        tmpdir_write(cut_path, file, cut);
        char want[512];
        if (cut < 8)
            snprintf(want, sizeof want,
                     "the file is truncated: it holds %zu bytes, fewer than the "
                     "8-byte header length a safetensors file starts with; an "
                     "interrupted copy?",
                     cut);
        else if (cut < 8 + n)
            snprintf(want, sizeof want,
                     "the file is truncated: the header length is %zu bytes, but "
                     "only %zu bytes follow it; an interrupted copy?",
                     n, cut - 8);
        else
            snprintf(want, sizeof want,
                     "the file is truncated: the header describes %zu bytes of "
                     "tensor data, the file holds %zu; an interrupted copy?",
                     data, cut - 8 - n);
        assert_load_fails(cut_path, ERR_FORMAT, want);
    }
    free(file);
}
END_TEST

START_TEST(test_bit_flips_are_caught)
{
    char path[256], bad[256];
    path_in(path, sizeof path, "good.safetensors");
    path_in(bad, sizeof bad, "bad.safetensors");
    save_sample(path);
    SafeTensors *st;
    ck_assert_int_eq(safetensors_load(path, &st), ERR_OK);
    char stored[9];
    strcpy(stored, safetensors_meta(st, "wb.crc32"));
    safetensors_free(st);
    size_t size;
    unsigned char *file = read_bytes(path, &size);
    size_t n = (size_t)header_len_of(file);
    char want[512];

    /* The length prefix: a high bit makes it absurd, a low one shifts the header's end. */
    file[5] ^= 1;
    tmpdir_write(bad, file, size);
    snprintf(want, sizeof want,
             "the header length is %zu bytes, more than the 100000000 a "
             "safetensors header may have: not a safetensors file, or its "
             "first 8 bytes are damaged",
             n ^ ((size_t)1 << 40));
    assert_load_fails(bad, ERR_FORMAT, want);
    file[5] ^= 1;

    /* Anywhere else: the checksum. Where the digits are, in the file. */
    size_t digits = (size_t)(find_bytes(file, size, stored) - file);
    size_t where[] = {0, 8, 8 + 20, 8 + n - 1, 8 + n, 8 + n + 30, size - 1};
    for (size_t k = 0; k < sizeof where / sizeof where[0]; k++) {
        file[where[k]] ^= 8;
        tmpdir_write(bad, file, size);
        file[where[k]] ^= 8;
        SafeTensors *none = (SafeTensors *)1;
        ck_assert_int_eq(safetensors_load(bad, &none), ERR_FORMAT);
        ck_assert_ptr_null(none);
        snprintf(want, sizeof want, "%s: checksum mismatch (stored %s, computed ", bad, stored);
        ck_assert_msg(strncmp(err_message(), want, strlen(want)) == 0, "flip at %zu: %s", where[k],
                      err_message());
        ck_assert_ptr_nonnull(
            strstr(err_message(), "): the file is corrupted; use another checkpoint"));
    }

    /* A changed digit is a mismatch with the new digits; a non-digit is no checksum at all. */
    unsigned char keep = file[digits];
    file[digits] = keep == '0' ? '1' : '0';
    tmpdir_write(bad, file, size);
    SafeTensors *none;
    ck_assert_int_eq(safetensors_load(bad, &none), ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err_message(), "checksum mismatch (stored "));
    file[digits] = 'g';
    tmpdir_write(bad, file, size);
    char got[16];
    memcpy(got, file + digits, 8);
    got[8] = '\0';
    snprintf(want, sizeof want,
             "__metadata__ \"wb.crc32\" must be 8 lowercase hex digits, got the "
             "string \"%s\"",
             got);
    assert_load_fails(bad, ERR_FORMAT, want);
    file[digits] = keep;

    /* A damaged checksum key is not mistaken for a file without a checksum. */
    unsigned char *key = find_bytes(file, size, "wb.crc32");
    key[7] ^= 1;
    tmpdir_write(bad, file, size);
    key[7] ^= 1;
    assert_load_fails(bad, ERR_FORMAT,
                      "__metadata__ has the key \"wb.crc33\", a damaged "
                      "\"wb.crc32\" (the checksum): the file is corrupted; use "
                      "another checkpoint");

    /* No single-bit flip anywhere in the file loads. */
    for (size_t i = 0; i < size; i++) {
        file[i] ^= (unsigned char)(1u << (i % 8));
        tmpdir_write(bad, file, size);
        file[i] ^= (unsigned char)(1u << (i % 8));
        none = NULL;
        int rc = safetensors_load(bad, &none);
        ck_assert_msg(rc != ERR_OK, "a flip of bit %zu of byte %zu went unnoticed", i % 8, i);
        ck_assert_ptr_null(none);
    }
    tmpdir_write(bad, file, size);
    ck_assert_int_eq(safetensors_load(bad, &none), ERR_OK);
    safetensors_free(none);
    free(file);
}
END_TEST

START_TEST(test_header_edits)
{
    char path[256];
    path_in(path, sizeof path, "edit.safetensors");

    /* Without a new checksum every edit is corruption, whatever it changed. */
    const char *edits[][2] = {
        {"\"F32\"", "\"F16\""}, {"\"version\":\"1\"", "\"version\":\"2\""}, {"[0,24]", "[0,20]"}};
    for (int k = 0; k < 3; k++) {
        save_sample(path);
        edit_header(path, edits[k][0], edits[k][1], false);
        SafeTensors *st;
        ck_assert_int_eq(safetensors_load(path, &st), ERR_FORMAT);
        ck_assert_ptr_nonnull(strstr(err_message(), "checksum mismatch"));
    }
    /* With the checksum redone (a deliberate edit), the checks behind it still speak. */
    save_sample(path);
    edit_header(path, "\"F32\"", "\"F16\"", true);
    assert_load_fails(path, ERR_FORMAT,
                      "tensor \"a.f32\": data_offsets [0, 24] hold 24 bytes, but "
                      "F16 with shape [2, 3] needs 12");
    save_sample(path);
    edit_header(path, "[0,24]", "[0,20]", true);
    assert_load_fails(path, ERR_FORMAT,
                      "tensor \"a.f32\": data_offsets [0, 20] hold 20 bytes, but "
                      "F32 with shape [2, 3] needs 24");
    save_sample(path);
    edit_header(path, "[0,24]", "[4,28]", true);
    assert_load_fails(path, ERR_FORMAT,
                      "bytes 0 to 4 of the data section belong to no tensor (the "
                      "tensors must cover it without gaps)");
    save_sample(path);
    edit_header(path, "\"version\":\"1\"", "\"version\":\"2\"", true);
    SafeTensors *st;
    ck_assert_int_eq(safetensors_load(path, &st), ERR_OK);
    ck_assert_str_eq(safetensors_meta(st, "version"), "2");
    safetensors_free(st);
}
END_TEST

typedef struct BadHeader {
    const char *header;
    size_t data_len;
    int code;
    const char *message; /* after "PATH: " */
    bool crc;            /* the header has "wb.crc32":"00000000" to be filled in */
} BadHeader;

#define ENTRY(dtype, shape, offsets)                                                               \
    "{\"dtype\":" dtype ",\"shape\":" shape ",\"data_offsets\":" offsets "}"

static const BadHeader bad_headers[] = {
    {"[1,2]", 0, ERR_FORMAT, "the header must be a JSON object, got an array of 2 items", false},
    /* Syntax errors: jansson's message at jansson's line and column. */
    {"{\"a\":", 0, ERR_FORMAT, "header:1:5: invalid JSON: unexpected token near end of file",
     false},
    {"", 0, ERR_FORMAT, "header:1:1: invalid JSON: unexpected token near end of file", false},
    {"{\"\xff\":1}", 0, ERR_FORMAT,
     "header:1:2: invalid JSON: unable to decode byte 0xff near '\"'", false},
    /* As the reference implementation, no byte-order mark. */
    {"\xEF\xBB\xBF{}", 0, ERR_FORMAT,
     "header:1:1: invalid JSON: the text starts with a byte-order mark (EF BB BF); save it as "
     "UTF-8 without one",
     false},
    {"{\"w\":3}", 0, ERR_FORMAT,
     "tensor \"w\" must be an object with \"dtype\", \"shape\" and "
     "\"data_offsets\", got the number 3",
     false},
    {"{\"w\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, ERR_FORMAT,
     "tensor \"w\" has no \"dtype\" (each tensor needs \"dtype\", \"shape\" and \"data_offsets\")",
     false},
    {"{\"w\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4, ERR_FORMAT,
     "tensor \"w\" has no \"shape\" (each tensor needs \"dtype\", \"shape\" and \"data_offsets\")",
     false},
    {"{\"w\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, ERR_FORMAT,
     "tensor \"w\" has no \"data_offsets\" (each tensor needs \"dtype\", \"shape\" and "
     "\"data_offsets\")",
     false},
    {"{\"w\":" ENTRY("3", "[1]", "[0,4]") "}", 4, ERR_FORMAT,
     "tensor \"w\": \"dtype\" must be a string such as \"F32\", got the number 3", false},
    {"{\"w\":" ENTRY("\"F36\"", "[1]", "[0,4]") "}", 4, ERR_FORMAT,
     "tensor \"w\": unknown dtype \"F36\" (expected F32, F16, BF16 or I32; did you mean \"F32\"?)",
     false},
    {"{\"w\":" ENTRY("\"complex\"", "[1]", "[0,4]") "}", 4, ERR_FORMAT,
     "tensor \"w\": unknown dtype \"complex\" (expected F32, F16, BF16 or I32)", false},
    {"{\"w\":" ENTRY("\"F64\"", "[1]", "[0,8]") "}", 8, ERR_UNSUPPORTED,
     "tensor \"w\": dtype \"F64\" is valid safetensors but not supported here (expected F32, F16, "
     "BF16 or I32)",
     false},
    {"{\"w\":" ENTRY("\"F32\"", "\"2x3\"", "[0,24]") "}", 24, ERR_FORMAT,
     "tensor \"w\": \"shape\" must be an array of sizes, got the string \"2x3\"", false},
    {"{\"w\":" ENTRY("\"F32\"", "[2,-3]", "[0,24]") "}", 24, ERR_FORMAT,
     "tensor \"w\": shape[1] must be a whole number >= 0, got the number -3", false},
    {"{\"w\":" ENTRY("\"F32\"", "[2.5]", "[0,8]") "}", 8, ERR_FORMAT,
     "tensor \"w\": shape[0] must be a whole number >= 0, got the number 2.5", false},
    /* As the reference implementation: sizes are integers, "2.0" and "2e0" are not. */
    {"{\"w\":" ENTRY("\"F32\"", "[2.0]", "[0,8]") "}", 8, ERR_FORMAT,
     "tensor \"w\": shape[0] must be a whole number >= 0 written as an integer (safetensors has "
     "no fraction or exponent here), got the number 2.0",
     false},
    {"{\"w\":" ENTRY("\"F32\"", "[2]", "[0,8e0]") "}", 8, ERR_FORMAT,
     "tensor \"w\": data_offsets[1] must be a whole number >= 0 written as an integer "
     "(safetensors has no fraction or exponent here), got the number 8.0",
     false},
    {"{\"w\":" ENTRY("\"F32\"", "[1,1,1,1,1,1,1,1,1]", "[0,4]") "}", 4, ERR_UNSUPPORTED,
     "tensor \"w\" has 9 dimensions; at most 8 are supported", false},
    {"{\"w\":" ENTRY("\"F32\"", "[1]", "[0]") "}", 4, ERR_FORMAT,
     "tensor \"w\": \"data_offsets\" must be [begin, end], got an array of 1 item", false},
    {"{\"w\":" ENTRY("\"F32\"", "[1]", "{}") "}", 4, ERR_FORMAT,
     "tensor \"w\": \"data_offsets\" must be [begin, end], got an empty object", false},
    {"{\"w\":" ENTRY("\"F32\"", "[1]", "[0,\"4\"]") "}", 4, ERR_FORMAT,
     "tensor \"w\": data_offsets[1] must be a whole number >= 0, got the string \"4\"", false},
    {"{\"w\":" ENTRY("\"F32\"", "[1]", "[-1,4]") "}", 4, ERR_FORMAT,
     "tensor \"w\": data_offsets[0] must be a whole number >= 0, got the number -1", false},
    {"{\"w\":" ENTRY("\"F32\"", "[1]", "[8,4]") "}", 8, ERR_FORMAT,
     "tensor \"w\": data_offsets [8, 4] end before they begin", false},
    {"{\"w\":" ENTRY("\"F32\"", "[2,3]", "[0,20]") "}", 20, ERR_FORMAT,
     "tensor \"w\": data_offsets [0, 20] hold 20 bytes, but F32 with shape [2, 3] needs 24", false},
    /* A valid checksum does not hide the problem. */
    {"{\"__metadata__\":{\"wb.crc32\":\"00000000\"},\"w\":" ENTRY("\"F32\"", "[2,3]", "[0,20]") "}",
     20, ERR_FORMAT,
     "tensor \"w\": data_offsets [0, 20] hold 20 bytes, but F32 with shape [2, 3] needs 24", true},
    {"{\"w\":" ENTRY("\"F32\"", "[2]", "[0,8]") "}", 4, ERR_FORMAT,
     "the file is truncated: the header describes 8 bytes of tensor data, the file holds 4; an "
     "interrupted copy?",
     false},
    {"{\"a\":" ENTRY("\"F32\"", "[2]", "[0,8]") ",\"b\":" ENTRY("\"F32\"", "[2]", "[4,12]") "}", 12,
     ERR_FORMAT, "tensors \"a\" and \"b\" overlap (data_offsets [0, 8] and [4, 12])", false},
    {"{\"a\":" ENTRY("\"F32\"", "[1]", "[0,4]") ",\"b\":" ENTRY("\"F32\"", "[1]", "[8,12]") "}", 12,
     ERR_FORMAT,
     "bytes 4 to 8 of the data section belong to no tensor (the tensors must cover it "
     "without gaps)",
     false},
    {"{\"a\":" ENTRY("\"F32\"", "[1]", "[0,4]") "}", 10, ERR_FORMAT,
     "the data section holds 10 bytes, but the tensors cover 4; the 6 bytes after them belong to "
     "no tensor",
     false},
    {"{\"a\":" ENTRY("\"F32\"", "[1]", "[0,4]") ",\"a\":" ENTRY("\"F32\"", "[1]", "[4,8]") "}", 8,
     ERR_FORMAT, "header:1:57: invalid JSON: duplicate object key near '\"a\"'", false},
    {"{\"a\\u0000b\":" ENTRY("\"F32\"", "[1]", "[0,4]") "}", 4, ERR_FORMAT,
     "header:1:11: invalid JSON: NUL byte in object key not supported near '\"a\\u0000b\"'", false},
    {"{\"__metadata__\":{\"k\":\"a\\u0000b\"}}", 0, ERR_FORMAT,
     "header:1:31: invalid JSON: a string holds \\u0000 (a NUL character), which is refused here",
     false},
    {"{\"__metadata__\":[\"x\"]}", 0, ERR_FORMAT,
     "\"__metadata__\" must be an object of strings, got an array of 1 item", false},
    {"{\"__metadata__\":{\"epoch\":3}}", 0, ERR_FORMAT,
     "__metadata__ \"epoch\" must be a string, got the number 3", false},
    {"{\"__metadata__\":{\"wb.crc32\":\"xyz\"}}", 0, ERR_FORMAT,
     "__metadata__ \"wb.crc32\" must be 8 lowercase hex digits, got the string \"xyz\"", false},
    {"{\"__metadata__\":{\"wb.crc32\":\"\\u00300000000\"}}", 0, ERR_FORMAT,
     "__metadata__ \"wb.crc32\" must be 8 lowercase hex digits, got the string \"00000000\"",
     false},
};

START_TEST(test_bad_headers_name_the_tensor_field_and_problem)
{
    const BadHeader *c = &bad_headers[_i];
    char path[256];
    path_in(path, sizeof path, "bad.safetensors");
    write_raw(path, c->header, strlen(c->header), NULL, c->data_len, c->crc);
    assert_load_fails(path, c->code, c->message);
}
END_TEST

START_TEST(test_long_names_and_missing_files)
{
    char path[256], header[1024], name[301];
    path_in(path, sizeof path, "long.safetensors");
    memset(name, 'n', 300);
    name[300] = '\0';
    snprintf(header, sizeof header, "{\"%s\":" ENTRY("\"F32\"", "[1]", "[0,4]") "}", name);
    write_raw(path, header, strlen(header), NULL, 4, false);
    char want[256];
    snprintf(want, sizeof want,
             "tensor \"%.60s...\" has a name of 300 bytes; at most 255 are "
             "supported",
             name);
    assert_load_fails(path, ERR_UNSUPPORTED, want);

    SafeTensors *st = (SafeTensors *)1;
    ck_assert_int_eq(safetensors_load("/nonexistent/x.safetensors", &st), ERR_IO);
    ck_assert_ptr_null(st);
    ck_assert_str_eq(err_message(),
                     "/nonexistent/x.safetensors: cannot open: No such file or directory");
    ck_assert_int_eq(safetensors_load(tmp_dir, &st), ERR_IO);
    ck_assert_ptr_nonnull(strstr(err_message(), ": cannot read it as a checkpoint: it is a "
                                                "directory, not a regular file"));
}
END_TEST

/* A file that is not a checkpoint, given by mistake, is refused from its first 8 bytes: a
 * 64 GB (sparse) archive is not read into memory first. */
START_TEST(test_a_huge_file_is_refused_from_its_first_bytes)
{
    char path[256];
    path_in(path, sizeof path, "archive.zip");
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fwrite("PK\x03\x04\x14\x00\x00\x00", 1, 8, f), 8);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(truncate(path, (off_t)1 << 33), 0);
    SafeTensors *st = (SafeTensors *)1;
    ck_assert_int_eq(safetensors_load(path, &st), ERR_FORMAT);
    ck_assert_ptr_null(st);
    ck_assert_ptr_nonnull(strstr(err_message(), path));
    ck_assert_ptr_nonnull(strstr(err_message(), "not a safetensors file"));
    /* Past ST_MAX_FILE, the size alone refuses it. */
    ck_assert_int_eq(truncate(path, (off_t)1 << 36), 0);
    ck_assert_int_eq(safetensors_load(path, &st), ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err_message(), ": 68719476736 bytes, more than the 17179869184 "
                                                "bytes a checkpoint may have"));
}
END_TEST

/* ---- atomic saves ------------------------------------------------------- */

static size_t kill_at;
static int reached_fd = -1;

/* In the child: once kill_at bytes are written, tell the parent and wait for
 * its SIGKILL, a kill from outside as a crash or an OOM killer would deliver. */
static void stop_when_reached(size_t written)
{
    if (written < kill_at) return;
    if (write(reached_fd, "k", 1) != 1) _exit(4);
    for (;;)
        pause();
}

enum { BIG = 8 << 20 };

START_TEST(test_sigkill_during_save_keeps_the_old_file)
{
    /* After the length prefix, halfway, and after the last byte (before the rename). */
    const size_t points[] = {8, BIG / 2, BIG};
    char path[256];
    path_in(path, sizeof path, "ckpt.safetensors");
    const float old_vals[4] = {1, 2, 3, 4};
    StTensor old = {"w", DTYPE_F32, 1, {4}, old_vals, sizeof old_vals};
    const char *const meta[] = {"epoch", "1"};
    ck_assert_int_eq(safetensors_save(path, &old, 1, meta, 1), ERR_OK);

    float *big = malloc(BIG);
    for (int i = 0; i < BIG / 4; i++)
        big[i] = (float)i;
    StTensor t = {"w", DTYPE_F32, 1, {BIG / 4}, big, BIG};
    fflush(stdout);
    fflush(stderr);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        reached_fd = fds[1];
        kill_at = points[_i];
        safetensors_set_write_hook(stop_when_reached);
        ck_assert_int_eq(safetensors_save(path, &t, 1, NULL, 0), ERR_OK);
        _exit(3); /* not reached when the hook fires */
    }
    close(fds[1]);
    char c;
    if (read(fds[0], &c, 1) == 1) kill(pid, SIGKILL);
    close(fds[0]);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
                  "the child was not killed in the save (status %d)", status);
    SafeTensors *st = NULL;
    ck_assert_msg(safetensors_load(path, &st) == ERR_OK, "%s", err_message());
    ck_assert_int_eq(safetensors_count(st), 1);
    ck_assert_uint_eq(safetensors_get(st, 0)->bytes, sizeof old_vals);
    ck_assert_mem_eq(safetensors_get(st, 0)->data, old_vals, sizeof old_vals);
    ck_assert_str_eq(safetensors_meta(st, "epoch"), "1");
    safetensors_free(st);

    /* The child did get into the save: its temporary file is there, PATH.tmp-PID-XXXXXXXX. */
    char tmp[400], prefix[300];
    snprintf(prefix, sizeof prefix, "ckpt.safetensors.tmp-%ld-", (long)pid);
    DIR *d = opendir(tmp_dir);
    ck_assert_ptr_nonnull(d);
    tmp[0] = '\0';
    for (struct dirent *e; (e = readdir(d));)
        if (!strncmp(e->d_name, prefix, strlen(prefix)) && strlen(e->d_name) == strlen(prefix) + 8)
            snprintf(tmp, sizeof tmp, "%s/%s", tmp_dir, e->d_name);
    closedir(d);
    ck_assert_msg(tmp[0], "no temporary file %s* left by the killed save", prefix);
    struct stat sb;
    ck_assert_int_eq(stat(tmp, &sb), 0);
    ck_assert_int_lt(sb.st_size, BIG + 200);

    /* The leftover does not get in the way of the next save, which removes it,
     * since its process is gone. The temporary file of a process that is still
     * running (a save going on elsewhere, in another program or in this one)
     * stays. */
    char mine[300], alive[300];
    snprintf(mine, sizeof mine, "%s.tmp-%ld-0badf00d", path, (long)getpid());
    tmpdir_write(mine, "junk", 4);
    pid_t sleeper = fork();
    ck_assert_int_ge(sleeper, 0);
    if (sleeper == 0) {
        for (;;)
            pause();
    }
    snprintf(alive, sizeof alive, "%s.tmp-%ld-0badf00d", path, (long)sleeper);
    tmpdir_write(alive, "busy", 4);
    ck_assert_int_eq(safetensors_save(path, &t, 1, meta, 1), ERR_OK);
    /* This process is running: its file stays, as another save of it could be writing it. */
    ck_assert_int_eq(access(mine, F_OK), 0);
    unlink(mine);
    ck_assert_msg(access(tmp, F_OK) != 0, "the killed save's %s is still there", tmp);
    ck_assert_msg(access(alive, F_OK) == 0, "a running process's %s was removed", alive);
    kill(sleeper, SIGKILL);
    waitpid(sleeper, &status, 0);
    unlink(alive);
    ck_assert_int_eq(safetensors_load(path, &st), ERR_OK);
    ck_assert_mem_eq(safetensors_get(st, 0)->data, big, BIG);
    safetensors_free(st);
    free(big);
}
END_TEST

START_TEST(test_failed_saves_touch_nothing)
{
    const float vals[4] = {1, 2, 3, 4};
    StTensor t = {"w", DTYPE_F32, 1, {4}, vals, sizeof vals};
    char path[320], dir[256], want[1400];

    /* A folder that does not exist. */
    path_in(dir, sizeof dir, "no/such");
    snprintf(path, sizeof path, "%s/x.safetensors", dir);
    ck_assert_int_eq(safetensors_save(path, &t, 1, NULL, 0), ERR_IO);
    snprintf(want, sizeof want,
             "%s: cannot save: cannot create a temporary file in %s: "
             "No such file or directory (does the folder exist?)",
             path, dir);
    ck_assert_str_eq(err_message(), want);
    ck_assert_int_eq(count_entries(tmp_dir), 0);

    /* A file where a folder should be. */
    path_in(dir, sizeof dir, "plain");
    tmpdir_write(dir, "x", 1);
    snprintf(path, sizeof path, "%s/x.safetensors", dir);
    ck_assert_int_eq(safetensors_save(path, &t, 1, NULL, 0), ERR_IO);
    ck_assert_ptr_nonnull(strstr(err_message(), ": Not a directory (does the folder exist?)"));
    unlink(dir);

    /* The target is a folder: refused before anything is written. */
    path_in(path, sizeof path, "target.safetensors");
    ck_assert_int_eq(mkdir(path, 0755), 0);
    ck_assert_int_eq(safetensors_save(path, &t, 1, NULL, 0), ERR_IO);
    snprintf(want, sizeof want,
             "%s: cannot save: it is a directory, not a regular file; a save replaces only a "
             "regular file (remove it, or save the checkpoint elsewhere)",
             path);
    ck_assert_str_eq(err_message(), want);
    ck_assert_int_eq(count_entries(tmp_dir), 1);
    rmdir(path);

    /* A write that fails half way (here: past the file size limit) removes the
     * temporary file and keeps the old one. In a child, for the limit. */
    path_in(path, sizeof path, "full.safetensors");
    ck_assert_int_eq(safetensors_save(path, &t, 1, NULL, 0), ERR_OK);
    enum { BIG_SAVE = 1 << 20 };
    float *big = calloc(1, BIG_SAVE);
    StTensor large = {"w", DTYPE_F32, 1, {BIG_SAVE / 4}, big, BIG_SAVE};
    fflush(stdout);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        struct rlimit lim = {4096, 4096};
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(2);
        int rc = safetensors_save(path, &large, 1, NULL, 0);
        bool told = strstr(err_message(), ": cannot save: writing ") &&
                    strstr(err_message(), " failed: File too large");
        if (rc != ERR_IO || !told) {
            fprintf(stderr, "save past the size limit: %d, %s\n", rc, err_message());
            _exit(1);
        }
        _exit(0);
    }
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child said %d", status);
    free(big);
    SafeTensors *kept;
    ck_assert_int_eq(safetensors_load(path, &kept), ERR_OK);
    ck_assert_mem_eq(safetensors_get(kept, 0)->data, vals, sizeof vals);
    safetensors_free(kept);
    ck_assert_int_eq(count_entries(tmp_dir), 1);
    unlink(path);

    /* A read-only folder keeps its old file (root writes anywhere, so only as a user). */
    path_in(dir, sizeof dir, "ro");
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/x.safetensors", dir);
    ck_assert_int_eq(safetensors_save(path, &t, 1, NULL, 0), ERR_OK);
    ck_assert_int_eq(chmod(dir, 0555), 0);
    if (geteuid() != 0) {
        const float other[4] = {5, 6, 7, 8};
        StTensor t2 = {"w", DTYPE_F32, 1, {4}, other, sizeof other};
        ck_assert_int_eq(safetensors_save(path, &t2, 1, NULL, 0), ERR_IO);
        ck_assert_ptr_nonnull(
            strstr(err_message(), ": Permission denied (is the folder writable?)"));
        SafeTensors *st;
        ck_assert_int_eq(safetensors_load(path, &st), ERR_OK);
        ck_assert_mem_eq(safetensors_get(st, 0)->data, vals, sizeof vals);
        safetensors_free(st);
    } else {
        printf("note: running as root, so the read-only-folder save was not tried\n");
    }
    tmpdir_remove(dir);
}
END_TEST

typedef struct BadSave {
    StTensor t[2];
    int n;
    const char *meta[4];
    int n_meta;
    int code;
    const char *message; /* after "PATH: cannot save: " */
} BadSave;

static const float four[4] = {1, 2, 3, 4};

static const BadSave bad_saves[] = {
    {{{"w", DTYPE_F32, 1, {4}, four, 16}, {"w", DTYPE_F32, 1, {4}, four, 16}},
     2,
     {0},
     0,
     ERR_ARG,
     "two tensors are called \"w\" (0 and 1)"},
    {{{"w", DTYPE_F32, 1, {4}, four, 12}},
     1,
     {0},
     0,
     ERR_SHAPE,
     "tensor \"w\" has 12 bytes, but F32 with shape [4] needs 16"},
    {{{"w", DTYPE_F32, 1, {-4}, four, 16}},
     1,
     {0},
     0,
     ERR_ARG,
     "tensor \"w\" has shape [-4], with a negative size"},
    {{{"w", DTYPE_F32, 9, {1, 1, 1, 1, 1, 1, 1, 4}, four, 16}},
     1,
     {0},
     0,
     ERR_ARG,
     "tensor \"w\" has 9 dimensions, expected 0 to 8"},
    {{{"w", DTYPE_F32, 1, {4}, NULL, 16}}, 1, {0}, 0, ERR_ARG, "tensor \"w\" has no data"},
    {{{"w", (DType)99, 1, {4}, four, 16}},
     1,
     {0},
     0,
     ERR_ARG,
     "tensor \"w\" has dtype 99, not one of F32, F16, BF16, I32"},
    {{{"", DTYPE_F32, 1, {4}, four, 16}}, 1, {0}, 0, ERR_ARG, "tensor 0 has an empty name"},
    {{{"__metadata__", DTYPE_F32, 1, {4}, four, 16}},
     1,
     {0},
     0,
     ERR_ARG,
     "tensor 0 is called \"__metadata__\", the format's name for the metadata"},
    {{{"w\xff", DTYPE_F32, 1, {4}, four, 16}},
     1,
     {0},
     0,
     ERR_ARG,
     "the name of tensor 0 is not UTF-8 text: \"w\\xff\""},
    {{{"w", DTYPE_F32, 1, {4}, four, 16}},
     1,
     {"k", "caf\xe9"},
     1,
     ERR_ARG,
     "the metadata value of \"k\" is not UTF-8 text: \"caf\\xe9\""},
    {{{"w", DTYPE_F32, 1, {4}, four, 16}},
     1,
     {"ok", "1", "\xc0\xaf", "2"},
     2,
     ERR_ARG,
     "metadata key 1 is not UTF-8 text: \"\\xc0\\xaf\""},
    {{{"w", DTYPE_F32, 1, {4}, four, 16}},
     1,
     {"wb.crc32", "0"},
     1,
     ERR_ARG,
     "the metadata key \"wb.crc32\" is the writer's own (it holds the checksum)"},
    {{{"w", DTYPE_F32, 1, {4}, four, 16}},
     1,
     {"k", "1", "k", "2"},
     2,
     ERR_ARG,
     "the metadata key \"k\" appears twice"},
    {{{"w", DTYPE_F32, 1, {4}, four, 16}},
     1,
     {"k", NULL},
     1,
     ERR_ARG,
     "metadata pair 0 has a NULL value"},
};

START_TEST(test_bad_arguments_are_refused_before_writing)
{
    const BadSave *c = &bad_saves[_i];
    char path[256];
    path_in(path, sizeof path, "keep.safetensors");
    save_sample(path);
    size_t size, size2;
    unsigned char *before = read_bytes(path, &size);
    ck_assert_int_eq(safetensors_save(path, c->t, c->n, c->meta, c->n_meta), c->code);
    char want[512];
    snprintf(want, sizeof want, "%s: cannot save: %s", path, c->message);
    ck_assert_str_eq(err_message(), want);
    unsigned char *after = read_bytes(path, &size2);
    ck_assert_uint_eq(size, size2);
    ck_assert_mem_eq(before, after, size);
    ck_assert_int_eq(count_entries(tmp_dir), 1);
    free(before);
    free(after);
}
END_TEST

Suite *safetensors_suite(void)
{
    Suite *s = suite_create("safetensors");
    TCase *tc2 = tcase_create("files");
    tcase_add_checked_fixture(tc2, make_tmp_dir, remove_tmp_dir);
    /* Python's start (torch's import) and valgrind's pace need more than the default. */
    tcase_set_timeout(tc2, 120);
    tcase_add_test(tc2, test_round_trip_dtypes_shapes_and_metadata);
    tcase_add_test(tc2, test_files_from_other_tools_load_without_a_checksum);
    tcase_add_test(tc2, test_python_reads_what_we_write);
    tcase_add_test(tc2, test_truncated_files_say_so);
    tcase_add_test(tc2, test_bit_flips_are_caught);
    tcase_add_test(tc2, test_header_edits);
    tcase_add_loop_test(tc2, test_bad_headers_name_the_tensor_field_and_problem, 0,
                        (int)(sizeof bad_headers / sizeof bad_headers[0]));
    tcase_add_test(tc2, test_long_names_and_missing_files);
    tcase_add_test(tc2, test_a_huge_file_is_refused_from_its_first_bytes);
    suite_add_tcase(s, tc2);

    TCase *tc3 = tcase_create("atomic_save");
    tcase_add_checked_fixture(tc3, make_tmp_dir, remove_tmp_dir);
    tcase_set_timeout(tc3, 120);
    tcase_add_loop_test(tc3, test_sigkill_during_save_keeps_the_old_file, 0, 3);
    tcase_add_test(tc3, test_failed_saves_touch_nothing);
    tcase_add_loop_test(tc3, test_bad_arguments_are_refused_before_writing, 0,
                        (int)(sizeof bad_saves / sizeof bad_saves[0]));
    suite_add_tcase(s, tc3);
    return s;
}
