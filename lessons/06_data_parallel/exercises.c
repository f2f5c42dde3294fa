/*
 * Lesson 06 exercises: data-parallel training.
 *
 * Each function is a hole in the workbook's library, declared with its
 * contract in lib/dist/sampler.h (06.1), lib/dist/bucket.h (06.2, 06.3) and
 * lib/dist/dist.h (06.4). Replace a body (including its `return
 * exercise_todo(...)` line) and return 0; report an error with
 * `return err_set(...)`.
 *
 *   make grade LESSON=06          grade these exercises (two of them run as 2 and 3 ranks)
 *   make hint EX=06.3             a longer hint for one exercise
 *   make lesson37 PART=6 IMPL=lessons    watch your code train on two ranks
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/core/err.h"
#include "lib/dist/bucket.h"
#include "lib/dist/dist.h"
#include "lib/dist/sampler.h"
#include "lib/nn/module.h"

#define HERE "lessons/06_data_parallel/exercises.c"

/* ex06.1 The sampler's shard of an epoch -----------------------------------------------
 * TODO(ex06.1): len = dist_shard_len(n, world, drop_last) rows for this rank:
 * positions rank, rank + world, rank + 2 world, ... of the order, where the
 * order continues from its start when it runs out (position i is order[i % n]).
 * Hint: bad arguments (n < 0, world < 1, rank < 0 or rank >= world) are an
 * ERR_ARG; n = 0 gives nothing. About 6 lines.
 */
int dist_shard(const int32_t *order, int64_t n, int world, int rank, bool drop_last,
               int32_t *shard)
{
    (void)order, (void)n, (void)world, (void)rank, (void)drop_last, (void)shard;
    return exercise_todo("06.1", "dist_shard", HERE);
}

/* ex06.2 Gradients into a bucket and back -----------------------------------------------
 * TODO(ex06.2): for each entry of the bucket, copy its parameter's gradient
 * (numel floats) to the flat tensor at the entry's offset; unflatten copies
 * the same floats back.
 * Hint: device_copy(dst, dst_device, src, src_device, bytes), with
 * tensor_f32(b->flat) + offset: the memory may be a GPU's. About 8 lines each.
 */
int bucket_flatten(Bucket *b)
{
    (void)b;
    return exercise_todo("06.2", "bucket_flatten", HERE);
}

int bucket_unflatten(const Bucket *b)
{
    (void)b;
    return exercise_todo("06.2", "bucket_unflatten", HERE);
}

/* ex06.3 Averaging after the all-reduce ---------------------------------------------------
 * TODO(ex06.3): sum the flat tensor over the ranks, then divide by the world size.
 * Hint: dist_all_reduce_sum, then dist_scale with 1.0f / pg->world. Every rank
 * must make the same calls. About 2 lines.
 */
int bucket_average(ProcessGroup *pg, Bucket *b)
{
    (void)pg, (void)b;
    return exercise_todo("06.3", "bucket_average", HERE);
}

/* ex06.4 The broadcast at the start ----------------------------------------------------------
 * TODO(ex06.4): every parameter's value from rank root to every rank, in the
 * order module_parameters gives (the same order on every rank).
 * Hint: module_parameters(model, NULL, 0) counts them; malloc the ParamRefs;
 * dist_broadcast(pg, ref.param->value, root). A bad root is an ERR_ARG.
 * About 12 lines.
 */
int dist_broadcast_parameters(ProcessGroup *pg, Module *model, int root)
{
    (void)pg, (void)model, (void)root;
    return exercise_todo("06.4", "dist_broadcast_parameters", HERE);
}
