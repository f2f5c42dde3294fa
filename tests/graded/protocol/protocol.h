/*
 * protocol.h: what a runner hands back to the judge.
 *
 * A graded case runs in two processes. The runner (tests/graded/runner/runner.c,
 * that loads the student's exercises) builds the case's inputs, calls the
 * student's code and writes what came out as a stream of records: named
 * integers, doubles, float arrays and strings, then an END record. The judge
 * (tests/graded/judge/judge.c, which never links or runs student code) reads the
 * stream and decides. A record carries data, never a verdict: the worst a
 * forged record can do is fail its case, because the judge compares every
 * value with what it expects itself.
 *
 * On the wire a record is a 16-byte header (kind, name length, payload
 * length, all little-endian as the machine writes them; runner and judge run
 * on the same machine), the name, then the payload. The reader checks every
 * length against what is left, so a truncated or hostile stream is refused,
 * never read past.
 */
#ifndef WB_GRADED_PROTOCOL_H
#define WB_GRADED_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

typedef enum RecordKind {
    REC_I64 = 0x49,  /* one int64 */
    REC_F64 = 0x44,  /* one double */
    REC_F32S = 0x46, /* n floats */
    REC_STR = 0x53,  /* a string (bytes, no terminator on the wire) */
    REC_FAIL = 0x58, /* the runner's own check failed: the payload says why */
    REC_END = 0x45,  /* the case ran to its end */
    REC_CASE = 0x43, /* in a file of several cases: the next records are this case's */
} RecordKind;

/* Guard zones around the float buffers a case hands to student code: GUARD
 * floats before and after, so a write past either end shows in what the runner
 * sends back. The floats alternate between a quiet NaN nobody computes by
 * accident and an ordinary number, the ordinary one next to the data: a NaN
 * survives `+=` unchanged, so an off-by-one that adds to the element past the
 * end would go unseen with NaN alone. guard_float(d) is the one at distance d
 * (1 .. GUARD) from the data. */
#define GUARD 16
#define GUARD_NAN_BITS 0x7fc0deadu
#define GUARD_NUMBER_BITS 0x4640e6b7u /* 12345.679 */
static inline float guard_float(int d)
{
    union {
        unsigned int u;
        float f;
    } g = {d % 2 ? GUARD_NUMBER_BITS : GUARD_NAN_BITS};
    return g.f;
}

#define REC_NAME_MAX 96
#define REC_PAYLOAD_MAX ((uint64_t)256 << 20) /* no case sends more than this */

typedef struct Record {
    RecordKind kind;
    char name[REC_NAME_MAX + 1];
    int64_t i64;
    double f64;
    const float *f32; /* REC_F32S: n floats (aligned copy owned by the set) */
    int64_t n;
    const char *str; /* REC_STR, REC_FAIL: NUL-terminated copy */
} Record;

/* The records of one case, parsed and owned. */
typedef struct RecordSet {
    Record *recs;
    int n, cap;
    int ended;                    /* an END record was seen */
    char twice[REC_NAME_MAX + 1]; /* the first name recorded twice, or "" */
    const char *why;              /* first REC_FAIL message, or NULL */
} RecordSet;

/* Encode a record into a freshly malloc'ed buffer (*len bytes). */
void *record_encode(RecordKind kind, const char *name, const void *payload, uint64_t bytes,
                    size_t *len);

/* Parse a byte stream of records; returns 0, or -1 with a reason in err (size bytes)
 * for a malformed stream. A file of several cases (the reference runs) has a
 * REC_CASE record before each case's records: with `only` set, the records after
 * the REC_CASE record of that name are kept, up to the next REC_CASE. */
int records_parse(const unsigned char *buf, size_t len, RecordSet *out, const char *only, char *err,
                  size_t size);

/* The record called name, or NULL. (A set with a name recorded twice is refused
 * by the judge: a runner records each name once, so a second one is forged.) */
const Record *records_find(const RecordSet *set, const char *name);

void records_free(RecordSet *set);

/* Record names with a number in them: key("loss.%d", epoch). The result lives
 * until 16 more keys have been made: copy it before passing it to code that makes
 * keys of its own. */
const char *key(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The seed of this grading run: a number the judge draws when it starts (from
 * /dev/urandom) and hands to the runners it starts, and they to their ranks, in
 * the environment (GRADE_SEED; set it by hand to repeat a run). Cases whose
 * inputs a student's code must not be able to predict draw them from it: the
 * student's code cannot read the environment (check_student.pl refuses the
 * calls), and the judge knows the seed without asking the runner. 0 when it
 * is not set. */
uint64_t grade_seed(void);

/* In a runner: the seed the judge handed over on a descriptor (a runner's environment
 * is the sandbox's, without GRADE_SEED). */
void grade_seed_set(uint64_t seed);

/* In the judge, before it starts a runner: draw the seed when GRADE_SEED is not
 * already set. Returns 0, or -1 when the environment cannot be set. */
int grade_seed_choose(void);

#endif
