/* bucket.c: gradient buckets, assigned as PyTorch's DistributedDataParallel does. */
#include "lib/dist/bucket.h"

#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"

void buckets_free(Bucket *b, int n)
{
    if (!b) return;
    for (int i = 0; i < n; i++) {
        free(b[i].entries);
        tensor_free(b[i].flat);
        int rc = dist_wait(b[i].work); /* (a bucket freed with its sum in flight) */
        (void)rc;
    }
    free(b);
}

int buckets_make(Module *model, size_t cap_bytes, Bucket **out, int *n)
{
    *out = NULL;
    *n = 0;
    if (cap_bytes == 0) return err_set(ERR_ARG, "buckets: a cap of 0 bytes holds nothing");
    int np = module_parameters(model, NULL, 0);
    if (np == 0) return ERR_OK;
    ParamRef *refs = malloc(sizeof *refs * (size_t)np);
    Bucket *b = calloc((size_t)np, sizeof *b); /* at most one bucket per parameter */
    int nb = 0, rc = ERR_OK;
    if (!refs || !b) TRY_OR_DONE(err_set(ERR_NOMEM, "buckets: out of memory"));
    module_parameters(model, refs, np);
    Device device = refs[0].param->grad->device;
    size_t cap = cap_bytes / sizeof(float);
    for (int i = np - 1; i >= 0; i--) { /* the reverse of parameters(): backward's order */
        Param *p = refs[i].param;
        if (p->grad->dtype != DTYPE_F32 || !device_equal(p->grad->device, device))
            TRY_OR_DONE(err_set(ERR_DEVICE, "buckets: %s is not a float32 gradient on the "
                                            "device of the others",
                                refs[i].name));
        int64_t k = p->grad->numel;
        Bucket *cur = nb ? &b[nb - 1] : NULL;
        if (!cur || (cur->numel > 0 && (size_t)(cur->numel + k) > cap)) cur = &b[nb++];
        BucketEntry *e = realloc(cur->entries, sizeof *e * (size_t)(cur->n_entries + 1));
        if (!e) TRY_OR_DONE(err_set(ERR_NOMEM, "buckets: out of memory"));
        cur->entries = e;
        e[cur->n_entries].param = p;
        e[cur->n_entries].offset = cur->numel;
        cur->n_entries++;
        cur->numel += k;
    }
    for (int i = 0; i < nb; i++) {
        int64_t shape[1] = {b[i].numel};
        if (!(b[i].flat = tensor_new(DTYPE_F32, device, 1, shape))) TRY_OR_DONE(err_code());
    }
done:
    free(refs);
    if (rc) {
        buckets_free(b, nb);
        return err_context("making the gradient buckets");
    }
    *out = b;
    *n = nb;
    return ERR_OK;
}

int buckets_reduce(ProcessGroup *pg, Bucket *b, int n)
{
    for (int i = 0; i < n; i++) {
        EXERCISE("06.2", bucket_flatten, &b[i]);
        EXERCISE("06.3", bucket_average, pg, &b[i]);
        EXERCISE("06.2", bucket_unflatten, &b[i]);
    }
    return ERR_OK;
}
