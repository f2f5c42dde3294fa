/*
 * whole_lesson.c: the case of Lesson 02 as a whole: Iris trained on the
 * device from inputs drawn for the grading run, against the judge's own training.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h. The
 * inputs are in tables and formulas both halves share; what they should give
 * is only in the JUDGE halves.
 */
#include "suite.h"

/* ---- all of them: Iris on the device ---------------------------------------------------- */

/* Lesson 01's network trained on the device, full-batch SGD with lr 0.01, from the
 * inputs drawn for this grading run (drawn_whole.h); its loss read at these epochs. */
#define IRIS_EPOCHS 1000
static const int iris_epochs[] = {1, 250, 500, 750, 1000};
#define N_IRIS_EPOCHS ((int)(sizeof iris_epochs / sizeof iris_epochs[0]))

#ifdef GRADE_RUNNER
RUN(iris_on_device)
{
    /* Lesson 01's network on "cuda" (your device_parse), moved with your
     * copy_kind, checked by your tensor_same_device, with your ReLU kernel; the
     * judge trains the same network on the same drawn inputs itself. */
    DrawnIris d;
    drawn_iris("02", &d);
    IrisTensors t;
    drawn_iris_tensors(&d, &t);
    Module *model = drawn_iris_model(&d);
    Loss *loss = loss_cross_entropy_new();
    quiet_device();
    Device g = {(DeviceKind)POISON_KIND, POISON_INDEX};
    err_clear();
    int rc = device_from_string("cuda", &g);
    put_rc("device", rc);
    put_i64("device.kind", (int64_t)g.kind);
    put_i64("device.index", g.index);
    if (rc != ERR_OK || g.kind != DEVICE_CUDA) return;
    err_clear();
    rc = module_to(model, g);
    put_rc("model_to", rc);
    if (rc != ERR_OK) return;
    Param *w = module_find_param(model, "fc1.weight");
    ck_assert_ptr_nonnull(w);
    put_i64("weight.kind", (int64_t)w->value->device.kind);
    put_i64("weight.index", w->value->device.index);
    Tensor *gx = NULL, *gy = NULL;
    err_clear();
    rc = tensor_to(t.x_train, g, &gx);
    put_rc("x_to", rc);
    if (rc != ERR_OK) return;
    put_i64("x.kind", (int64_t)gx->device.kind);
    put_i64("x.index", gx->device.index);
    err_clear();
    rc = tensor_to(t.y_train, g, &gy);
    put_rc("y_to", rc);
    if (rc != ERR_OK) return;
    Optimizer *opt = optim_sgd_new(model, 0.01f);
    long long before = launches();
    for (int e = 1, k = 0; e <= IRIS_EPOCHS; e++) {
        float v;
        err_clear();
        rc = train_step(model, loss, opt, gx, gy, &v);
        if (rc != ERR_OK) {
            put_rc("step", rc);
            put_i64("failed_epoch", e);
            return;
        }
        if (k < N_IRIS_EPOCHS && e == iris_epochs[k]) put_f64(key("loss.%d", e), v), k++;
    }
    put_launches("launches", before);
}
#endif

#ifdef GRADE_JUDGE
/* The judge's run in double (oracle_mlp.h) against the device's in float32: as in
 * Lesson 01's whole-lesson case (../01/whole_lesson.c, where it was measured), a float32 run may
 * drift a fraction of an epoch from the run in double where the loss falls fastest, so
 * a loss must lie within IRIS_SHIFT epochs of the curve and IRIS_RTOL of a value it
 * takes there. */
#define IRIS_SHIFT 2
#define IRIS_RTOL 2e-5

JUDGE(iris_on_device)
{
    char got[64];
    ck_assert_msg(got_rc("device") == ERR_OK, "device \"cuda\": %s", got_rc_msg("device"));
    int64_t kind = got_i64("device.kind"), index = got_i64("device.index");
    ck_assert_msg(kind == DEVICE_CUDA && index == 0,
                  "device \"cuda\" (device_parse) gave %s, expected cuda:0",
                  device_name(kind, index, got, sizeof got));
    ck_assert_msg(got_rc("model_to") == ERR_OK, "model.to(cuda): %s", got_rc_msg("model_to"));
    kind = got_i64("weight.kind"), index = got_i64("weight.index");
    ck_assert_msg(kind == DEVICE_CUDA && index == 0,
                  "after model.to(cuda), fc1.weight is on %s, expected cuda:0",
                  device_name(kind, index, got, sizeof got));
    ck_assert_msg(got_rc("x_to") == ERR_OK, "X_train.to(cuda): %s", got_rc_msg("x_to"));
    kind = got_i64("x.kind"), index = got_i64("x.index");
    ck_assert_msg(kind == DEVICE_CUDA && index == 0, "X_train.to(cuda) is on %s, expected cuda:0",
                  device_name(kind, index, got, sizeof got));
    ck_assert_msg(got_rc("y_to") == ERR_OK, "y_train.to(cuda): %s", got_rc_msg("y_to"));
    const char *note = drawn_whole_note("02", DRAWN_IRIS_SHAPE);
    if (got_has("failed_epoch"))
        ck_abort_msg("epoch %lld on the device: %s, %s", (long long)got_i64("failed_epoch"),
                     got_rc_msg("step"), note);
    DrawnIris d;
    drawn_iris("02", &d);
    OracleIris data;
    OracleMlp m;
    static double want[IRIS_EPOCHS + IRIS_SHIFT];
    oracle_iris_start(&d, &data, &m);
    ck_assert_msg(oracle_mlp_train(&m, data.x_train, data.y_train, IRIS_TRAIN, IRIS_TRAIN,
                                   (double)0.01f, IRIS_EPOCHS + IRIS_SHIFT, want) == 0,
                  "grader: out of memory");
    oracle_mlp_free(&m);
    for (int k = 0; k < N_IRIS_EPOCHS; k++) {
        int e = iris_epochs[k];
        double vg = got_f64(key("loss.%d", e)), lo, hi;
        oracle_curve_range(want, IRIS_EPOCHS + IRIS_SHIFT, e, IRIS_SHIFT, &lo, &hi);
        ck_assert_msg(oracle_curve_fits(want, IRIS_EPOCHS + IRIS_SHIFT, e, IRIS_SHIFT, IRIS_RTOL,
                                        vg),
                      "epoch %d: loss %.7f on the device; the same network trained in double "
                      "on the CPU gives %.7f (%.7f to %.7f within %d epochs, relative tolerance "
                      "%.0e), %s",
                      e, vg, want[e - 1], lo, hi, IRIS_SHIFT, IRIS_RTOL, note);
    }
    if (got_has("launches"))
        ck_assert_msg(got_i64("launches") > 0, "1000 epochs on the device launched no kernel");
}
#endif
