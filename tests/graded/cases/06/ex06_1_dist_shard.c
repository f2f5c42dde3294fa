/*
 * ex06_1_dist_shard.c: the cases of exercise 06.1, dist_shard: the distributed
 * sampler's shard of an epoch.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out and what the harness saw) and a JUDGE half (in the judge: decide),
 * see ../graded.h.
 */
#include "suite.h"

/* ---- ex06.1 dist_shard -------------------------------------------------------------- */

/* An epoch's order of n rows: a Fisher-Yates shuffle driven by a small LCG. */
static void make_order(int32_t *order, int64_t n, uint32_t seed)
{
    uint32_t s = seed * 2654435761u + 12345u;
    for (int64_t i = 0; i < n; i++) order[i] = (int32_t)(i * 7 % 1000) + (int32_t)i;
    for (int64_t i = n - 1; i > 0; i--) {
        s = s * 1664525u + 1013904223u;
        int64_t j = (int64_t)(s >> 8) % (i + 1);
        int32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* PyTorch's num_samples, worked out again. */
static int64_t shard_len(int64_t n, int world, bool drop)
{
    if (n <= 0) return 0;
    return drop ? n / world : (n + world - 1) / world;
}

/* The shards graded: rows, ranks, drop_last. */
static const struct {
    int64_t n;
    int world;
    bool drop;
} shard_cfg[] = {{10, 3, false}, {10, 3, true}, {12, 4, false}, {23, 5, false},
                 {23, 5, true},  {7, 1, false}, {9, 2, false}};
#define N_SHARD_CFG ((int)(sizeof shard_cfg / sizeof shard_cfg[0]))

#ifdef GRADE_RUNNER
static void put_shard(const char *k, const int32_t *order, int64_t n, int world, int rank,
                      bool drop, int64_t len)
{
    /* int32 rows go through a float buffer with guards: exact below 2^24 */
    float *g = guarded_new(len, -7.0f);
    int32_t *shard = malloc(sizeof *shard * (size_t)(len + 1));
    ck_assert_ptr_nonnull(shard);
    for (int64_t i = 0; i <= len; i++) shard[i] = -7;
    err_clear();
    put_rc(k, dist_shard(order, n, world, rank, drop, shard));
    for (int64_t i = 0; i < len; i++) g[i] = (float)shard[i];
    put_guarded(key("%s.shard", k), g);
    put_i64(key("%s.past", k), shard[len]); /* the int after the shard */
    guarded_free(g);
    free(shard);
}

RUN(shard_interleaves)
{
    for (int c = 0; c < N_SHARD_CFG; c++) {
        int64_t n = shard_cfg[c].n;
        int32_t order[32];
        make_order(order, n, (uint32_t)c + 1);
        int32_t before[32];
        memcpy(before, order, sizeof order);
        for (int r = 0; r < shard_cfg[c].world; r++)
            put_shard(key("c%d.r%d", c, r), order, n, shard_cfg[c].world, r, shard_cfg[c].drop,
                      shard_len(n, shard_cfg[c].world, shard_cfg[c].drop));
        put_i64(key("c%d.order_kept", c), memcmp(before, order, sizeof order) == 0);
    }
}

RUN(shard_edges)
{
    int32_t order[8];
    make_order(order, 8, 99);
    put_shard("few", order, 2, 5, 3, false, 1);  /* fewer rows than ranks: order[3 % 2] */
    put_shard("drop", order, 5, 2, 1, true, 2);  /* order[1], order[3] */
    put_shard("empty", order, 0, 2, 1, false, 0);
    put_shard("world0", order, 8, 0, 0, false, 0);
    put_shard("rank_neg", order, 8, 2, -1, false, 0);
    put_shard("rank_big", order, 8, 2, 2, false, 0);
    put_shard("n_neg", order, -1, 2, 0, false, 0);
}
#endif

#ifdef GRADE_JUDGE
static void expect_shard(const char *k, const int32_t *order, int64_t n, int world, int rank,
                         bool drop, const char *what)
{
    expect_ok(k, "dist_shard");
    int64_t len = shard_len(n, world, drop);
    const float *got = got_guarded(key("%s.shard", k), what, len);
    for (int64_t i = 0; i < len; i++) {
        int32_t want = order[(rank + i * world) % n];
        if (got[i] != (float)want)
            ck_abort_msg("%s: row %lld of rank %d's shard is %g, expected %d (position %lld of "
                         "the epoch's order: rank r takes positions r, r + world, r + 2 world, "
                         "...%s)",
                         what, (long long)i, rank, (double)got[i], want,
                         (long long)(rank + i * world),
                         rank + i * world >= n ? ", continuing from the order's start" : "");
    }
    ck_assert_msg(got_i64(key("%s.past", k)) == -7,
                  "%s: the shard holds %lld rows, but the int after them was written",
                  what, (long long)len);
}

JUDGE(shard_interleaves)
{
    for (int c = 0; c < N_SHARD_CFG; c++) {
        int64_t n = shard_cfg[c].n;
        int32_t order[32];
        make_order(order, n, (uint32_t)c + 1);
        for (int r = 0; r < shard_cfg[c].world; r++) {
            char what[96];
            snprintf(what, sizeof what, "%lld rows, %d ranks%s", (long long)n,
                     shard_cfg[c].world, shard_cfg[c].drop ? ", drop_last" : "");
            expect_shard(key("c%d.r%d", c, r), order, n, shard_cfg[c].world, r,
                         shard_cfg[c].drop, what);
        }
        ck_assert_msg(got_i64(key("c%d.order_kept", c)), "dist_shard changed the order it was "
                                                          "given (it must only read it)");
    }
}

JUDGE(shard_edges)
{
    int32_t order[8];
    make_order(order, 8, 99);
    expect_shard("few", order, 2, 5, 3, false, "2 rows, 5 ranks");
    expect_shard("drop", order, 5, 2, 1, true, "5 rows, 2 ranks, drop_last");
    expect_shard("empty", order, 0, 2, 1, false, "an empty epoch");
    static const char *const bad[] = {"world0", "rank_neg", "rank_big", "n_neg"};
    static const char *const says[] = {"a world of 0 ranks", "rank -1", "rank 2 of 2",
                                       "n = -1 rows"};
    for (int i = 0; i < 4; i++) {
        expect_written(bad[i], "dist_shard");
        ck_assert_msg(got_rc(bad[i]) == ERR_ARG,
                      "dist_shard with %s returned %d, expected ERR_ARG (%d)", says[i],
                      got_rc(bad[i]), ERR_ARG);
        got_guarded(key("%s.shard", bad[i]), says[i], 0);
        ck_assert_msg(got_i64(key("%s.past", bad[i])) == -7,
                      "dist_shard with %s wrote to the shard before refusing", says[i]);
    }
}
#endif
