/*
 * oracle_mlp.h: the judge's own trainer for the whole-lesson cases.
 *
 * A whole-lesson case trains Lesson 01's network (Linear, ReLU, Linear, mean
 * cross-entropy, SGD) from inputs drawn for the grading run (drawn_whole.h), so
 * the curve it must follow cannot be computed in advance: the judge computes
 * it while it judges, with this code. It is written for the judge alone, in
 * double, from the formulas (no lib, no answers, nothing a student wrote), so
 * it can run in the Gradescope package, which holds no answers. A right
 * float32 run differs from it by rounding, which training carries along: a
 * drift of a fraction of an epoch where the loss falls fastest
 * (oracle_curve_fits()), and rarely one step taken on the other side of a ReLU
 * (ORACLE_KINK). The cases choose their tolerances from measurement (the
 * comment at each).
 *
 * Layout: rows are row-major here (x[i * in + k]); the weights are kept as
 * PyTorch prints them, w1 (hidden, in) as w1[h * in + k]. oracle_mlp_set()
 * and oracle_mlp_weight() translate from and to lib's column-major tensors.
 */
#ifndef WB_GRADED_ORACLE_MLP_H
#define WB_GRADED_ORACLE_MLP_H

#include <stdint.h>

/* Linear(in, hidden), ReLU, Linear(hidden, out); every parameter in one array. */
typedef struct OracleMlp {
    int in, hidden, out;
    int64_t size;              /* parameters in all */
    double *p;                 /* w1, b1, w2, b2, one after the other */
    double *w1, *b1, *w2, *b2; /* views into p */
    long near_kinks;           /* see oracle_mlp_grad() */
} OracleMlp;

/* A ReLU input this close to 0, relative to the sum of its terms' sizes, may fall on
 * the other side of 0 in a float32 run of the same training: the runs measured kept
 * their weights within 1e-6 of the run in double (relative), ten times less. */
#define ORACLE_KINK 1e-5

/* How a set of rows fared: the mean cross-entropy, the rows classified right
 * (argmax, the first of equal logits, as lib counts them), and the rows whose
 * two largest logits are within `tie` of each other (a float run may put
 * those either way). */
typedef struct OracleEval {
    double loss;
    int64_t right, near_ties;
} OracleEval;

/* A network of these widths with every parameter 0; -1 when out of memory. */
int oracle_mlp_init(OracleMlp *m, int in, int hidden, int out);
void oracle_mlp_free(OracleMlp *m);

/* The parameters from lib's layout: w1 (hidden, in) and w2 (out, hidden),
 * column-major, as float. */
void oracle_mlp_set(OracleMlp *m, const float *w1, const float *b1, const float *w2,
                    const float *b2);

/* Parameter `which` (0 fc1.weight, 1 fc1.bias, 2 fc2.weight, 3 fc2.bias) at
 * index j of lib's layout; the count of each in oracle_mlp_count(). */
double oracle_mlp_weight(const OracleMlp *m, int which, int64_t j);
int64_t oracle_mlp_count(const OracleMlp *m, int which);

/* The logits of one row x (in values) into z (out values); the hidden layer's
 * largest value after ReLU is returned. */
double oracle_mlp_logits(const OracleMlp *m, const double *x, double *z);

/* Evaluate n rows (x row-major, labels y); `tie` as in OracleEval. */
OracleEval oracle_mlp_eval(const OracleMlp *m, const double *x, const int *y, int64_t n,
                           double tie);

/* The gradient of the mean cross-entropy over n rows into g (a network of the
 * same widths); returns the loss (of the forward pass the gradient is for). Each
 * ReLU input within ORACLE_KINK of 0 is counted in m->near_kinks: there a float run
 * may take ReLU's other branch, and its gradient differs by that row's whole
 * contribution, a step that a tolerance for rounding does not cover. */
double oracle_mlp_grad(OracleMlp *m, const double *x, const int *y, int64_t n, OracleMlp *g);

/* The gradient's Euclidean norm; g *= f; m -= lr * g. */
double oracle_mlp_norm(const OracleMlp *g);
void oracle_mlp_scale(OracleMlp *g, double f);
void oracle_mlp_sgd(OracleMlp *m, const OracleMlp *g, double lr);

/* torch.optim.SGD with momentum (no dampening, no Nesterov): the first step's
 * buffer is the gradient, later ones momentum x buffer + gradient; the step is
 * lr x buffer. */
typedef struct OracleSgd {
    double lr, momentum;
    long steps;
    OracleMlp buf;
} OracleSgd;

int oracle_sgd_init(OracleSgd *s, const OracleMlp *m, double lr, double momentum);
void oracle_sgd_step(OracleSgd *s, OracleMlp *m, const OracleMlp *g);
void oracle_sgd_free(OracleSgd *s);

/* Plain SGD for `epochs` epochs over n rows in batches of `batch` (the last
 * may be short), in the rows' order, every epoch alike: loss[e] (e from 0)
 * gets the mean loss of epoch e + 1's batches, weighted by their rows, each
 * measured before its step, as lib's trainer reports it (NULL: not kept).
 * batch >= n is full-batch gradient descent. -1 when out of memory. */
int oracle_mlp_train(OracleMlp *m, const double *x, const int *y, int64_t n, int64_t batch,
                     double lr, long epochs, double *loss);

/* Whether a float run's loss `got` at epoch e (from 1) fits the curve want
 * (want[k] the loss of epoch k + 1, n of them): within rtol of a value the curve
 * takes between epochs e - shift and e + shift (clipped to 1 .. n). Where the
 * loss falls fastest, a float32 run and the same run in double drift a fraction
 * of an epoch apart (a ReLU unit's input crosses 0 a little earlier in one of
 * them), which is a larger difference in the loss than rounding alone; a wrong
 * learning rate or gradient moves the curve by many epochs. */
int oracle_curve_fits(const double *want, long n, long e, long shift, double rtol, double got);

/* The curve's range over those epochs, for messages: *lo and *hi. */
void oracle_curve_range(const double *want, long n, long e, long shift, double *lo, double *hi);

#endif
