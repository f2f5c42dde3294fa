/* dist_mpi.c: joining a process group, and its engine: MPI (Open MPI) when the
 * build has it, else a group of one process. The only file of lib that includes
 * mpi.h (dist_engine.h says why). */
#define _GNU_SOURCE /* gethostname, prctl */
#include "lib/dist/dist.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "lib/core/err.h"
#include "lib/device/backend.h"
#include "lib/dist/dist_engine.h"

#ifdef WB_HAVE_MPI
#include <limits.h>

#include <mpi.h>
#endif

static bool g_joined; /* dist_init ran in this process (MPI may be started only once) */

bool dist_mpi_built(void)
{
#ifdef WB_HAVE_MPI
    return true;
#else
    return false;
#endif
}

/* ---- a group of one process (a build without MPI) --------------------------------------- */

#ifndef WB_HAVE_MPI
static int one_barrier(ProcessGroup *pg)
{
    (void)pg;
    return ERR_OK;
}
static int one_broadcast(ProcessGroup *pg, void *p, size_t bytes, int root)
{
    (void)pg, (void)p, (void)bytes, (void)root;
    return ERR_OK; /* the root's values are this process's */
}
static int one_all_reduce(ProcessGroup *pg, float *p, int64_t n)
{
    (void)pg, (void)p, (void)n;
    return ERR_OK; /* the sum of one */
}
static int one_all_reduce_start(ProcessGroup *pg, float *p, int64_t n, void **req)
{
    (void)pg, (void)p, (void)n;
    *req = NULL; /* finished already */
    return ERR_OK;
}
static int one_test(void *req, bool *done)
{
    (void)req;
    *done = true;
    return ERR_OK;
}
static int one_wait(void *req)
{
    (void)req;
    return ERR_OK;
}
static int one_reduce_f64(ProcessGroup *pg, double *v, int n, DistOp op)
{
    (void)pg, (void)v, (void)n, (void)op;
    return ERR_OK;
}
static int one_all_gather(ProcessGroup *pg, const void *mine, size_t bytes, void *all)
{
    (void)pg;
    if (bytes) memcpy(all, mine, bytes);
    return ERR_OK;
}
static void one_finalize(ProcessGroup *pg)
{
    (void)pg;
}

static const DistEngine one_engine = {one_barrier, one_broadcast,  one_all_reduce,
                                      one_all_reduce_start, one_test, one_wait,
                                      one_reduce_f64, one_all_gather, one_finalize};
#endif

/* ---- MPI ---------------------------------------------------------------------------------- */

#ifdef WB_HAVE_MPI
/* MPI counts in int: larger arrays go in pieces of this many elements. */
#define MPI_PIECE (1 << 28)

static int mpi_error(const char *op, int code)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "?");
    return err_set(ERR_IO, "%s: %s (MPI error %d)", op, text, code);
}
#define MPI_TRY(op, call)                                                                          \
    do {                                                                                           \
        int mpi_rc_ = (call);                                                                      \
        if (mpi_rc_ != MPI_SUCCESS) return mpi_error(op, mpi_rc_);                                 \
    } while (0)

static int mpi_barrier(ProcessGroup *pg)
{
    (void)pg;
    MPI_TRY("MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD));
    return ERR_OK;
}

static int mpi_broadcast(ProcessGroup *pg, void *p, size_t bytes, int root)
{
    (void)pg;
    for (size_t at = 0; at < bytes; at += MPI_PIECE) {
        size_t n = bytes - at < MPI_PIECE ? bytes - at : MPI_PIECE;
        MPI_TRY("MPI_Bcast", MPI_Bcast((char *)p + at, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
    }
    return ERR_OK;
}

static int mpi_all_reduce(ProcessGroup *pg, float *p, int64_t n)
{
    (void)pg;
    for (int64_t at = 0; at < n; at += MPI_PIECE) {
        int64_t k = n - at < MPI_PIECE ? n - at : MPI_PIECE;
        MPI_TRY("MPI_Allreduce",
                MPI_Allreduce(MPI_IN_PLACE, p + at, (int)k, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
    }
    return ERR_OK;
}

static int mpi_all_reduce_start(ProcessGroup *pg, float *p, int64_t n, void **req)
{
    (void)pg;
    *req = NULL;
    if (n > INT_MAX)
        return err_set(ERR_ARG, "dist_all_reduce_start: %lld floats; one request takes at most "
                                "%d (split the bucket)",
                       (long long)n, INT_MAX);
    MPI_Request *r = malloc(sizeof *r);
    if (!r) return err_set(ERR_NOMEM, "dist_all_reduce_start: out of memory");
    int code = MPI_Iallreduce(MPI_IN_PLACE, p, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, r);
    if (code != MPI_SUCCESS) {
        free(r);
        return mpi_error("MPI_Iallreduce", code);
    }
    *req = r;
    return ERR_OK;
}

static int mpi_test(void *req, bool *done)
{
    int flag = 0;
    int code = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS) return mpi_error("MPI_Test", code);
    *done = flag != 0;
    if (*done) free(req);
    return ERR_OK;
}

static int mpi_wait(void *req)
{
    int code = MPI_Wait(req, MPI_STATUS_IGNORE);
    free(req);
    if (code != MPI_SUCCESS) return mpi_error("MPI_Wait", code);
    return ERR_OK;
}

static int mpi_reduce_f64(ProcessGroup *pg, double *v, int n, DistOp op)
{
    (void)pg;
    MPI_Op o = op == DIST_MAX ? MPI_MAX : op == DIST_MIN ? MPI_MIN : MPI_SUM;
    MPI_TRY("MPI_Allreduce", MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, o, MPI_COMM_WORLD));
    return ERR_OK;
}

static int mpi_all_gather(ProcessGroup *pg, const void *mine, size_t bytes, void *all)
{
    (void)pg;
    if (bytes > INT_MAX) return err_set(ERR_ARG, "dist_all_gather: %zu bytes each", bytes);
    MPI_TRY("MPI_Allgather", MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE,
                                           MPI_COMM_WORLD));
    return ERR_OK;
}

static void mpi_finalize(ProcessGroup *pg)
{
    (void)pg;
    int finished = 0;
    MPI_Finalized(&finished);
    if (!finished) MPI_Finalize();
}

static const DistEngine mpi_engine = {mpi_barrier, mpi_broadcast,  mpi_all_reduce,
                                      mpi_all_reduce_start, mpi_test, mpi_wait,
                                      mpi_reduce_f64, mpi_all_gather, mpi_finalize};

/* "Open MPI v4.1.4" from MPI's own description of itself. */
static void mpi_name(char *buf, size_t size)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(v, &len) != MPI_SUCCESS) snprintf(v, sizeof v, "MPI");
    v[strcspn(v, ",\n")] = '\0';
    snprintf(buf, size, "%.100s", v);
}

/* Started by a launcher (mpirun), not alone. */
static bool under_launcher(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

/* MPI_Init and the group's numbers. */
static int mpi_join(ProcessGroup *pg)
{
#ifdef __linux__
    /* A rank whose launcher is killed (a time limit) goes with it, instead of waiting
     * in a collective for ever: a launcher kill -9'd cannot stop its ranks itself. */
    if (under_launcher()) prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    int code = MPI_Init(NULL, NULL);
    if (code != MPI_SUCCESS) return mpi_error("MPI_Init", code);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_TRY("MPI_Comm_rank", MPI_Comm_rank(MPI_COMM_WORLD, &pg->rank));
    MPI_TRY("MPI_Comm_size", MPI_Comm_size(MPI_COMM_WORLD, &pg->world));
    /* The ranks that share this machine's memory: the local rank picks the GPU. */
    MPI_Comm local;
    MPI_TRY("MPI_Comm_split_type", MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED,
                                                       pg->rank, MPI_INFO_NULL, &local));
    MPI_Comm_rank(local, &pg->local_rank);
    MPI_Comm_size(local, &pg->local_world);
    MPI_Comm_free(&local);
    char host[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    if (MPI_Get_processor_name(host, &len) == MPI_SUCCESS)
        snprintf(pg->host, sizeof pg->host, "%.63s", host);
    mpi_name(pg->engine, sizeof pg->engine);
    pg->ops = &mpi_engine;
    return ERR_OK;
}
#endif

/* ---- joining ------------------------------------------------------------------------------ */

/* Where this rank trains: "cpu", "cuda" (by local rank) or "cuda:N". */
static int pick_device(const char *text, int local_rank, Device *out)
{
    if (!text || strcmp(text, "cpu") == 0) {
        *out = device_cpu();
        return ERR_OK;
    }
    if (strcmp(text, "cuda") == 0) {
        int count = 0;
        TRY(device_count(&count));
        *out = device_cuda(local_rank % count);
        return ERR_OK;
    }
    return device_from_string(text, out);
}

/* On a device with its own collective engine (NCCL): rank 0 makes the id, MPI carries it
 * to the others, and every rank joins the device's communicator. */
static int join_device_engine(ProcessGroup *pg)
{
    const BackendOps *ops = backend_of(pg->device);
    if (device_is_host(pg->device)) return ERR_OK;
    if (!ops->comm_init) {
        pg->staged = true;
        return ERR_OK;
    }
    unsigned char id[512];
    uint64_t len = 0;
    if (pg->rank == 0) {
        size_t got = 0;
        TRY(ops->comm_id(id, sizeof id, &got));
        len = got;
    }
    TRY(pg->ops->broadcast(pg, &len, sizeof len, 0));
    if (len > sizeof id) return err_set(ERR_FORMAT, "dist_init: a %llu-byte communicator id",
                                        (unsigned long long)len);
    TRY(pg->ops->broadcast(pg, id, (size_t)len, 0));
    TRY(ops->comm_init(pg->device, id, (size_t)len, pg->world, pg->rank, &pg->device_comm));
    char name[64];
    size_t at = strlen(pg->engine);
    snprintf(pg->engine + at, sizeof pg->engine - at, "; %s between the GPUs",
             ops->comm_engine ? ops->comm_engine(name, sizeof name) : "the device's engine");
    return ERR_OK;
}

int dist_init(const char *device, ProcessGroup **out)
{
    *out = NULL;
    if (g_joined)
        return err_set(ERR_ARG, "dist_init: this process has joined its group already (MPI "
                                "starts once per process)");
    ProcessGroup *pg = calloc(1, sizeof *pg);
    if (!pg) return err_set(ERR_NOMEM, "dist_init: out of memory");
    pg->world = pg->local_world = 1;
    int rc = ERR_OK;
#ifdef WB_HAVE_MPI
    g_joined = true;
    TRY_OR_DONE(mpi_join(pg));
#else
    g_joined = true;
    gethostname(pg->host, sizeof pg->host - 1);
    snprintf(pg->engine, sizeof pg->engine, "one process (this build has no MPI)");
    pg->ops = &one_engine;
#endif
    TRY_OR_DONE(pick_device(device, pg->local_rank, &pg->device));
    TRY_OR_DONE(join_device_engine(pg));
done:
    if (rc) {
        err_context("dist_init (rank %d of %d)", pg->rank, pg->world);
        free(pg); /* MPI stays started: the process should end, and mpirun then ends the rest */
        return rc;
    }
    *out = pg;
    return ERR_OK;
}

void dist_finalize(ProcessGroup *pg)
{
    if (!pg) return;
    if (pg->device_comm) backend_of(pg->device)->comm_free(pg->device_comm);
    if (pg->ops) pg->ops->finalize(pg);
    free(pg->stage);
    free(pg);
}
