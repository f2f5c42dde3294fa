/*
 * ex05_5_checkpoint_validate.c: the cases of exercise 05.5, checkpoint_validate:
 * files written with one defect each.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h. Inputs are
 * shared by both halves (outside the #ifdefs); what is expected lives only in
 * the JUDGE halves.
 */
#include "suite.h"

/* ---- ex05.5 checkpoint_validate ---------------------------------------------------------- */

/* The one defect a file is written with. */
enum {
    D_NONE,
    D_MISSING,    /* the last parameter is missing */
    D_SHAPE,      /* fc1.weight is [8, 5], not [7, 5] */
    D_F16,        /* fc1.weight is F16 */
    D_EXTRA,      /* a parameter the model does not have: model.fc9.weight */
    D_TRANSPOSED, /* fc1.weight is [5, 7]: as many values, another shape */
    D_FLAT,       /* fc1.weight is [35]: as many values, one dimension */
    D_LAST_BF16,  /* fc2.bias, the last one, is BF16 */
    D_FULL,       /* none, with an optimizer's and a history's tensors besides */
    D_SHAPE1,     /* fc1.weight is [7, 6], not [7, 5]: the second dimension differs */
    D_EXTRA_FIRST, /* an extra tensor first in the file, and first by name: model.a.weight */
};

#ifdef GRADE_RUNNER
static Module *ckpt_model(void)
{
    Rng rng;
    rng_seed(&rng, 3, 0);
    int64_t hidden[1] = {7};
    Module *m = mlp_new("mlp", 5, hidden, 1, 3, &rng);
    ck_assert_msg(m != NULL, "%s", err_message());
    return m;
}

/* Write the model's parameters to a file with one defect, then validate it;
 * records k.path (before the call) and k.rc. */
static void validate_run(const char *k_in, Module *m, const char *format, const char *version,
                         int defect)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    char path[64];
    snprintf(path, sizeof path, "/tmp/wb-grade05-ckpt-XXXXXX");
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    close(fd);
    ParamRef p[8];
    int n = module_parameters(m, p, 8);
    ck_assert(n == 4);
    StTensor t[12];
    int k_ = 0;
    static float junk[64 * 64];
    if (defect == D_EXTRA_FIRST) {
        StTensor *s = &t[k_++];
        snprintf(s->name, sizeof s->name, "model.a.weight");
        s->dtype = DTYPE_F32, s->ndim = 1, s->shape[0] = 2, s->data = junk, s->bytes = 8;
    }
    for (int i = 0; i < n; i++) {
        if (defect == D_MISSING && i == n - 1) continue;
        StTensor *s = &t[k_++];
        ck_assert(snprintf(s->name, sizeof s->name, "model.%s", p[i].name) < (int)sizeof s->name);
        s->dtype = DTYPE_F32;
        s->ndim = p[i].param->value->ndim;
        for (int j = 0; j < s->ndim; j++) s->shape[j] = p[i].param->value->shape[j];
        if (defect == D_SHAPE && i == 0) s->shape[0] += 1;
        if (defect == D_SHAPE1 && i == 0) s->shape[1] += 1;
        if (defect == D_TRANSPOSED && i == 0) {
            int64_t r = s->shape[0];
            s->shape[0] = s->shape[1], s->shape[1] = r;
        }
        if (defect == D_FLAT && i == 0) s->ndim = 1, s->shape[0] = p[i].param->value->numel;
        if (defect == D_F16 && i == 0) s->dtype = DTYPE_F16;
        if (defect == D_LAST_BF16 && i == n - 1) s->dtype = DTYPE_BF16;
        int64_t numel = 1;
        for (int j = 0; j < s->ndim; j++) numel *= s->shape[j];
        s->data = junk;
        s->bytes = (size_t)numel * dtype_size(s->dtype);
    }
    if (defect == D_EXTRA) {
        StTensor *s = &t[k_++];
        snprintf(s->name, sizeof s->name, "model.fc9.weight");
        s->dtype = DTYPE_F32, s->ndim = 1, s->shape[0] = 2, s->data = junk, s->bytes = 8;
    }
    if (defect == D_FULL) {
        static const char *const more[] = {"optim.fc1.weight.momentum_buffer", "history.val_loss",
                                           "optim.fc2.bias.momentum_buffer"};
        for (int i = 0; i < 3; i++) {
            StTensor *s = &t[k_++];
            snprintf(s->name, sizeof s->name, "%s", more[i]);
            s->dtype = DTYPE_F32, s->ndim = 1, s->shape[0] = 3, s->data = junk, s->bytes = 12;
        }
    }
    const char *meta[4];
    int nm = 0;
    if (format) meta[2 * nm] = "wb.format", meta[2 * nm + 1] = format, nm++;
    if (version) meta[2 * nm] = "wb.version", meta[2 * nm + 1] = version, nm++;
    ck_assert_msg(safetensors_save(path, t, k_, meta, nm) == ERR_OK, "%s", err_message());
    SafeTensors *st = NULL;
    ck_assert_msg(safetensors_load(path, &st) == ERR_OK, "%s", err_message());
    put_str(key("%s.path", k), path);
    err_clear();
    put_rc(key("%s.rc", k), checkpoint_validate(st, m, path));
    safetensors_free(st);
    remove(path);
}

RUN(validate_checkpoints)
{
    Module *m = ckpt_model();
    validate_run("good", m, CHECKPOINT_FORMAT, "1", D_NONE);
    validate_run("weights", m, CHECKPOINT_WEIGHTS_FORMAT, "1", D_NONE);
    validate_run("noformat", m, NULL, "1", D_NONE);
    validate_run("pytorch", m, "pytorch", "1", D_NONE);
    validate_run("v2", m, CHECKPOINT_FORMAT, "2", D_NONE);
    validate_run("noversion", m, CHECKPOINT_FORMAT, NULL, D_NONE);
    validate_run("missing", m, CHECKPOINT_FORMAT, "1", D_MISSING);
    validate_run("shape", m, CHECKPOINT_FORMAT, "1", D_SHAPE);
    validate_run("f16", m, CHECKPOINT_FORMAT, "1", D_F16);
    validate_run("extra", m, CHECKPOINT_FORMAT, "1", D_EXTRA);
    module_free(m);
}

RUN(validate_lookalikes)
{
    Module *m = ckpt_model();
    ParamRef p[8];
    int n = module_parameters(m, p, 8);
    ck_assert(n == 4);
    for (int i = 0; i < n; i++)
        put_f32(key("before.%d", i), tensor_f32(p[i].param->value), p[i].param->value->numel);
    validate_run("full", m, CHECKPOINT_FORMAT, "1", D_FULL);
    validate_run("transposed", m, CHECKPOINT_FORMAT, "1", D_TRANSPOSED);
    validate_run("flat", m, CHECKPOINT_FORMAT, "1", D_FLAT);
    validate_run("bf16", m, CHECKPOINT_WEIGHTS_FORMAT, "1", D_LAST_BF16);
    validate_run("v10", m, CHECKPOINT_FORMAT, "10", D_NONE);
    validate_run("v1.5", m, CHECKPOINT_FORMAT, "1.5", D_NONE);
    validate_run("longer", m, CHECKPOINT_FORMAT "-old", "1", D_NONE);
    validate_run("shorter", m, "workbook", "1", D_NONE);
    validate_run("shape1", m, CHECKPOINT_FORMAT, "1", D_SHAPE1);
    validate_run("extrafirst", m, CHECKPOINT_FORMAT, "1", D_EXTRA_FIRST);
    for (int i = 0; i < n; i++)
        put_f32(key("after.%d", i), tensor_f32(p[i].param->value), p[i].param->value->numel);
    module_free(m);
}
#endif

#ifdef GRADE_JUDGE
static void expect_accepted(const char *k_in, const char *what)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    expect_written(key("%s.rc", k), "checkpoint_validate");
    ck_assert_msg(got_rc(key("%s.rc", k)) == ERR_OK, "%s was refused: %s", what,
                  got_rc_msg(key("%s.rc", k)));
}

static void expect_refused(const char *k_in, const char *what, const char *words,
                           const char *words2)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    expect_written(key("%s.rc", k), "checkpoint_validate");
    int rc = got_rc(key("%s.rc", k));
    ck_assert_msg(rc == ERR_FORMAT, "%s: checkpoint_validate returned %s, expected ERR_FORMAT",
                  what, err_name((ErrCode)rc));
    const char *msg = got_rc_msg(key("%s.rc", k)), *path = got_str(key("%s.path", k));
    ck_assert_msg(strstr(msg, path) && strstr(msg, words),
                  "%s: the message should name the file and say \"%s\"; it was: %s", what, words,
                  msg);
    if (words2)
        ck_assert_msg(strstr(msg, words2),
                      "%s: the message should say \"%s\"; it was: %s", what, words2, msg);
}

JUDGE(validate_checkpoints)
{
    expect_accepted("good", "a good checkpoint");
    expect_accepted("weights", "a good weights file");
    expect_refused("noformat", "no wb.format", "not a checkpoint of this workbook", NULL);
    expect_refused("pytorch", "another format", "not a checkpoint of this workbook", NULL);
    expect_refused("v2", "version 2", "version 2", NULL);
    expect_refused("noversion", "no version", "version", NULL);
    expect_refused("missing", "a missing tensor", "missing tensor \"model.fc2.bias\"", NULL);
    expect_refused("shape", "another shape", "shape [8, 5]", NULL);
    expect_refused("f16", "float16 weights", "F16", NULL);
    expect_refused("extra", "an extra tensor", "model.fc9.weight", NULL);
}

JUDGE(validate_lookalikes)
{
    expect_accepted("full", "a good checkpoint with optimizer (\"optim.\") and history "
                            "(\"history.\") tensors besides the model's");
    expect_refused("transposed", "fc1.weight stored as [5, 7] (as many values as [7, 5])",
                   "shape [5, 7]", "model.fc1.weight");
    expect_refused("flat", "fc1.weight stored as [35] (as many values as [7, 5])", "shape [35]",
                   "model.fc1.weight");
    expect_refused("bf16", "the last tensor, fc2.bias, in bfloat16", "BF16", "model.fc2.bias");
    expect_refused("v10", "version 10", "version 10", NULL);
    expect_refused("v1.5", "version 1.5 (not 1, although atoi reads 1)", "version 1.5", NULL);
    expect_refused("longer", "wb.format \"" CHECKPOINT_FORMAT "-old\"",
                   "not a checkpoint of this workbook", NULL);
    expect_refused("shorter", "wb.format \"workbook\"", "not a checkpoint of this workbook", NULL);
    expect_refused("shape1", "fc1.weight stored as [7, 6] (the second dimension differs)",
                   "shape [7, 6]", "model.fc1.weight");
    expect_refused("extrafirst", "an extra tensor, first in the file", "model.a.weight", NULL);
    for (int i = 0; i < 4; i++) {
        int64_t nb;
        const float *before = got_f32_n(key("before.%d", i), &nb);
        const float *after = got_f32(key("after.%d", i), nb);
        for (int64_t j = 0; j < nb; j++)
            ck_assert_msg(memcmp(&before[j], &after[j], sizeof(float)) == 0,
                          "checkpoint_validate changed the model's %s at [%lld] (%.7g became "
                          "%.7g): it must only check, touching nothing",
                          PARAMS[i], (long long)j, (double)before[j], (double)after[j]);
    }
}
#endif
