/* loader.c: mini-batches, shuffled per epoch, prepared ahead in a thread. */
#include "lib/train/loader.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/device/backend.h"
#include "lib/core/err.h"
#include "lib/core/rng.h"

/* Two staging slots: the worker fills one while the caller uses the other.
 * Batch b always goes through slot b % 2, so the order never depends on
 * timing. */
#define SLOTS 2

struct Loader {
    const Tensor *x, *y;   /* the dataset, on the CPU: (n, d) and (n) */
    int64_t n, d, rows, batches;
    Device device;
    LoaderOptions o;
    int32_t *order;        /* this epoch's row order: (n) */
    float *hx[SLOTS];      /* staging: (batch_size, d) column-major */
    int32_t *hy[SLOTS];    /* (batch_size) */
    bool pinned;
    Tensor *bx, *by;       /* the batch handed out, on the device */
    int64_t next;          /* the batch loader_next() hands out next */
    /* The worker (num_workers = 1). */
    pthread_t thread;
    bool started, quit, busy;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t want;          /* the next batch the worker prepares */
    int64_t ready[SLOTS];  /* the batch each slot holds, -1: free */
    long epoch;
    Sampler sampler;       /* where the epochs' rows come from (sampler.rows NULL: itself) */
    int64_t sampled;       /* with a sampler: its length */
};

void loader_order(const LoaderOptions *o, int64_t n, long epoch, int32_t *order)
{
    for (int64_t i = 0; i < n; i++) order[i] = (int32_t)i;
    if (!o->shuffle) return;
    Rng rng;
    rng_seed(&rng, o->seed, (uint64_t)epoch); /* one stream per epoch: no state to carry */
    rng_shuffle_i32(&rng, order, (size_t)n);
}

static int64_t batch_rows(const Loader *l, int64_t b)
{
    int64_t start = b * l->o.batch_size, left = l->rows - start;
    return left < l->o.batch_size ? left : l->o.batch_size;
}

/* Gather batch b's rows into staging slot s (or straight into @p dx, @p dy). */
static void gather(const Loader *l, int64_t b, float *dx, int32_t *dy)
{
    int64_t start = b * l->o.batch_size, rows = batch_rows(l, b);
    const int32_t *idx = l->order + start;
    const float *x = tensor_f32(l->x);
    const int32_t *y = tensor_i32(l->y);
    for (int64_t j = 0; j < l->d; j++) { /* column j of the batch from column j of x */
        const float *col = x + j * l->n;
        float *out = dx + j * rows;
        for (int64_t i = 0; i < rows; i++) out[i] = col[idx[i]];
    }
    for (int64_t i = 0; i < rows; i++) dy[i] = y[idx[i]];
}

/* Staging to the batch tensor: a copy to the GPU, or a memcpy on the CPU. */
static int deliver(void *dst, Device device, const void *src, size_t bytes)
{
    return device_copy(dst, device, src, device_cpu(), bytes);
}

static void *worker(void *arg)
{
    Loader *l = arg;
    pthread_mutex_lock(&l->mu);
    for (;;) {
        while (!l->quit && (l->want >= l->batches || l->ready[l->want % SLOTS] != -1))
            pthread_cond_wait(&l->cv, &l->mu);
        if (l->quit) break;
        int64_t b = l->want;
        int s = (int)(b % SLOTS);
        l->busy = true;
        pthread_mutex_unlock(&l->mu);
        gather(l, b, l->hx[s], l->hy[s]);
        pthread_mutex_lock(&l->mu);
        l->busy = false;
        l->ready[s] = b;
        l->want = b + 1;
        pthread_cond_broadcast(&l->cv);
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

static int host_alloc(Loader *l, size_t bytes, void **p)
{
    if (l->pinned) return backend_of(l->device)->host_alloc(l->device, bytes, p);
    *p = malloc(bytes ? bytes : 1);
    return *p ? ERR_OK : err_set(ERR_NOMEM, "loader: out of memory for a %zu-byte batch", bytes);
}

static void host_free(const Loader *l, void *p)
{
    if (l->pinned)
        backend_of(l->device)->host_free(l->device, p);
    else
        free(p);
}

/* loader_new() and loader_new_sampled(): @p sampler may be NULL. */
static int loader_make(const Tensor *x, const Tensor *y, Device device, const LoaderOptions *o,
                       const Sampler *sampler, Loader **out)
{
    *out = NULL;
    TRY(tensor_check_2d(x, DTYPE_F32, 0, 0, "loader", "x"));
    if (!device_is_host(x->device) || !y || !device_is_host(y->device) ||
        y->dtype != DTYPE_I32 || y->ndim != 1 || y->shape[0] != x->shape[0])
        return err_set(ERR_SHAPE, "loader: the dataset must be x (n, d) f32 and y (n) int32 on "
                                  "the CPU, with the same n");
    if (o->batch_size < 1)
        return err_set(ERR_ARG, "loader: batch_size is %lld, must be at least 1",
                       (long long)o->batch_size);
    if (o->num_workers < 0 || o->num_workers > 1)
        return err_set(ERR_ARG, "loader: num_workers is %d; this loader has 0 (batches made "
                                "when asked) or 1 (one batch prepared ahead in a thread)",
                       o->num_workers);
    if (o->pin_memory && device_is_host(device))
        return err_set(ERR_ARG, "loader: pin_memory only helps copies to a CUDA device, and "
                                "the device is the CPU");
    if (x->shape[0] > INT32_MAX) return err_set(ERR_ARG, "loader: more than 2^31 rows");
    int64_t epoch_rows = x->shape[0];
    if (sampler) {
        if (!sampler->len || !sampler->rows)
            return err_set(ERR_ARG, "loader: a sampler needs both its len and rows functions");
        if (o->shuffle)
            return err_set(ERR_ARG, "loader: a sampler and shuffle exclude each other (the "
                                    "sampler decides the order; PyTorch says the same)");
        epoch_rows = sampler->len(sampler->self);
        if (epoch_rows < 0 || epoch_rows > INT32_MAX)
            return err_set(ERR_ARG, "loader: the sampler gives %lld rows per epoch",
                           (long long)epoch_rows);
    }
    Loader *l = calloc(1, sizeof *l);
    if (!l) return err_set(ERR_NOMEM, "loader: out of memory");
    l->x = x, l->y = y, l->n = x->shape[0], l->d = x->shape[1];
    l->device = device;
    l->o = *o;
    l->pinned = o->pin_memory;
    if (sampler) l->sampler = *sampler, l->sampled = epoch_rows;
    l->rows = o->drop_last ? epoch_rows / o->batch_size * o->batch_size : epoch_rows;
    l->batches = (l->rows + o->batch_size - 1) / o->batch_size;
    l->ready[0] = l->ready[1] = -1;
    l->want = l->batches; /* nothing to prepare before loader_begin */
    int64_t cap = o->batch_size < epoch_rows ? o->batch_size : (epoch_rows ? epoch_rows : 1);
    int64_t xs[2] = {cap, l->d};
    int64_t order_len = epoch_rows > l->n ? epoch_rows : l->n;
    int rc = ERR_OK;
    if (!(l->order = malloc(sizeof *l->order * (size_t)(order_len ? order_len : 1))))
        TRY_OR_DONE(err_set(ERR_NOMEM, "loader: out of memory"));
    for (int s = 0; s < SLOTS; s++) {
        TRY_OR_DONE(host_alloc(l, sizeof(float) * (size_t)(cap * l->d), (void **)&l->hx[s]));
        TRY_OR_DONE(host_alloc(l, sizeof(int32_t) * (size_t)cap, (void **)&l->hy[s]));
    }
    if (!(l->bx = tensor_new(DTYPE_F32, device, 2, xs))) TRY_OR_DONE(err_code());
    if (!(l->by = tensor_new(DTYPE_I32, device, 1, xs))) TRY_OR_DONE(err_code());
    if (o->num_workers == 1) {
        pthread_mutex_init(&l->mu, NULL);
        pthread_cond_init(&l->cv, NULL);
        if (pthread_create(&l->thread, NULL, worker, l) != 0)
            TRY_OR_DONE(err_set(ERR_NOMEM, "loader: cannot start the worker thread"));
        l->started = true;
    }
done:
    if (rc) {
        loader_free(l);
        return rc;
    }
    *out = l;
    return ERR_OK;
}

int loader_new(const Tensor *x, const Tensor *y, Device device, const LoaderOptions *o,
               Loader **out)
{
    return loader_make(x, y, device, o, NULL, out);
}

int loader_new_sampled(const Tensor *x, const Tensor *y, Device device, const LoaderOptions *o,
                       Sampler sampler, Loader **out)
{
    *out = NULL;
    return loader_make(x, y, device, o, &sampler, out);
}

/* Epoch @p epoch's order: the sampler's rows, each checked, or the loader's own order. */
static int epoch_order(Loader *l, long epoch)
{
    if (!l->sampler.rows) {
        loader_order(&l->o, l->n, epoch, l->order);
        return ERR_OK;
    }
    int64_t len = l->sampler.len(l->sampler.self);
    if (len != l->sampled)
        return err_set(ERR_ARG, "loader: the sampler's length changed from epoch to epoch");
    TRY(l->sampler.rows(l->sampler.self, epoch, l->order));
    for (int64_t i = 0; i < len; i++)
        if (l->order[i] < 0 || l->order[i] >= l->n)
            return err_set(ERR_ARG, "loader: the sampler gave row %ld (position %lld of epoch "
                                    "%ld); the dataset has rows 0 to %lld",
                           (long)l->order[i], (long long)i, epoch, (long long)l->n - 1);
    return ERR_OK;
}

void loader_free(Loader *l)
{
    if (!l) return;
    if (l->started) {
        pthread_mutex_lock(&l->mu);
        l->quit = true;
        pthread_cond_broadcast(&l->cv);
        pthread_mutex_unlock(&l->mu);
        pthread_join(l->thread, NULL);
        pthread_mutex_destroy(&l->mu);
        pthread_cond_destroy(&l->cv);
    }
    for (int s = 0; s < SLOTS; s++) {
        host_free(l, l->hx[s]);
        host_free(l, l->hy[s]);
    }
    tensor_free(l->bx);
    tensor_free(l->by);
    free(l->order);
    free(l);
}

int64_t loader_batches(const Loader *l) { return l->batches; }

int64_t loader_rows(const Loader *l) { return l->rows; }

uint64_t loader_seed(const Loader *l) { return l->o.seed; }

int loader_begin(Loader *l, long epoch)
{
    if (epoch < 1) return err_set(ERR_ARG, "loader_begin: epochs count from 1, got %ld", epoch);
    if (l->started) { /* the worker must not read the order while it changes */
        pthread_mutex_lock(&l->mu);
        l->want = l->batches;
        while (l->busy) pthread_cond_wait(&l->cv, &l->mu);
    }
    int rc = epoch_order(l, epoch);
    l->epoch = rc == ERR_OK ? epoch : 0; /* a refused order leaves no epoch to take batches of */
    l->next = 0;
    if (l->started) {
        l->ready[0] = l->ready[1] = -1;
        l->want = rc == ERR_OK ? 0 : l->batches;
        pthread_cond_broadcast(&l->cv);
        pthread_mutex_unlock(&l->mu);
    }
    return rc;
}

int loader_next(Loader *l, Batch *batch, bool *done)
{
    *done = false;
    if (!l->epoch) return err_set(ERR_ARG, "loader_next before loader_begin");
    if (l->next >= l->batches) {
        *done = true;
        return ERR_OK;
    }
    int64_t b = l->next, rows = batch_rows(l, b);
    int s = (int)(b % SLOTS);
    int64_t xs[2] = {rows, l->d};
    TRY(tensor_resize(l->bx, 2, xs));
    TRY(tensor_resize(l->by, 1, xs));
    size_t xbytes = sizeof(float) * (size_t)(rows * l->d), ybytes = sizeof(int32_t) * (size_t)rows;
    int rc = ERR_OK;
    if (!l->started && device_is_host(l->device)) {
        gather(l, b, tensor_f32(l->bx), tensor_i32(l->by)); /* no staging needed */
    } else {
        if (l->started) {
            pthread_mutex_lock(&l->mu);
            while (l->ready[s] != b) pthread_cond_wait(&l->cv, &l->mu);
            pthread_mutex_unlock(&l->mu);
        } else {
            gather(l, b, l->hx[s], l->hy[s]);
        }
        rc = deliver(l->bx->data, l->device, l->hx[s], xbytes);
        if (rc == ERR_OK) rc = deliver(l->by->data, l->device, l->hy[s], ybytes);
        if (l->started) { /* the slot is free for batch b + 2 */
            pthread_mutex_lock(&l->mu);
            l->ready[s] = -1;
            pthread_cond_broadcast(&l->cv);
            pthread_mutex_unlock(&l->mu);
        }
    }
    if (rc) return err_context("loader: batch %lld of epoch %ld", (long long)b, l->epoch);
    l->next = b + 1;
    batch->x = l->bx;
    batch->y = l->by;
    batch->index = b;
    return ERR_OK;
}
