/* oracle_mlp.c: Linear, ReLU, Linear and mean cross-entropy in double, for the judge. */
#include "oracle_mlp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int oracle_mlp_init(OracleMlp *m, int in, int hidden, int out)
{
    memset(m, 0, sizeof *m);
    m->in = in, m->hidden = hidden, m->out = out;
    m->size = (int64_t)hidden * in + hidden + (int64_t)out * hidden + out;
    m->p = calloc((size_t)m->size, sizeof *m->p);
    if (!m->p) return -1;
    m->w1 = m->p;
    m->b1 = m->w1 + (int64_t)hidden * in;
    m->w2 = m->b1 + hidden;
    m->b2 = m->w2 + (int64_t)out * hidden;
    return 0;
}

void oracle_mlp_free(OracleMlp *m)
{
    free(m->p);
    memset(m, 0, sizeof *m);
}

void oracle_mlp_set(OracleMlp *m, const float *w1, const float *b1, const float *w2,
                    const float *b2)
{
    for (int h = 0; h < m->hidden; h++) {
        m->b1[h] = b1[h];
        for (int k = 0; k < m->in; k++) m->w1[h * m->in + k] = w1[h + k * m->hidden];
    }
    for (int o = 0; o < m->out; o++) {
        m->b2[o] = b2[o];
        for (int h = 0; h < m->hidden; h++) m->w2[o * m->hidden + h] = w2[o + h * m->out];
    }
}

int64_t oracle_mlp_count(const OracleMlp *m, int which)
{
    switch (which) {
    case 0:
        return (int64_t)m->hidden * m->in;
    case 1:
        return m->hidden;
    case 2:
        return (int64_t)m->out * m->hidden;
    default:
        return m->out;
    }
}

double oracle_mlp_weight(const OracleMlp *m, int which, int64_t j)
{
    switch (which) {
    case 0: /* (hidden, in) column-major: j = h + k * hidden */
        return m->w1[(j % m->hidden) * m->in + j / m->hidden];
    case 1:
        return m->b1[j];
    case 2:
        return m->w2[(j % m->out) * m->hidden + j / m->out];
    default:
        return m->b2[j];
    }
}

/* a (hidden) after ReLU, z (out); returns the largest value of a. ReLU inputs within
 * ORACLE_KINK of 0 are counted in *kinks (when not NULL). */
static double forward(const OracleMlp *m, const double *x, double *a, double *z, long *kinks)
{
    double top = 0;
    for (int h = 0; h < m->hidden; h++) {
        double s = m->b1[h], size = fabs(s);
        for (int k = 0; k < m->in; k++) {
            s += m->w1[h * m->in + k] * x[k];
            size += fabs(m->w1[h * m->in + k] * x[k]);
        }
        if (kinks && fabs(s) <= ORACLE_KINK * size) ++*kinks;
        a[h] = s > 0 ? s : 0;
        if (a[h] > top) top = a[h];
    }
    for (int o = 0; o < m->out; o++) {
        double s = m->b2[o];
        for (int h = 0; h < m->hidden; h++) s += m->w2[o * m->hidden + h] * a[h];
        z[o] = s;
    }
    return top;
}

double oracle_mlp_logits(const OracleMlp *m, const double *x, double *z)
{
    double *a = malloc(sizeof *a * (size_t)m->hidden);
    if (!a) return NAN;
    double top = forward(m, x, a, z, NULL);
    free(a);
    return top;
}

/* -log softmax(z)[label], and softmax(z) into p when p is not NULL. */
static double cross_entropy(const double *z, int c, int label, double *p)
{
    double top = z[0];
    for (int o = 1; o < c; o++)
        if (z[o] > top) top = z[o];
    double sum = 0;
    for (int o = 0; o < c; o++) sum += exp(z[o] - top);
    if (p)
        for (int o = 0; o < c; o++) p[o] = exp(z[o] - top) / sum;
    return log(sum) + top - z[label];
}

OracleEval oracle_mlp_eval(const OracleMlp *m, const double *x, const int *y, int64_t n,
                           double tie)
{
    OracleEval ev = {0, 0, 0};
    double *a = malloc(sizeof *a * (size_t)(m->hidden + m->out));
    if (!a) {
        ev.loss = NAN;
        return ev;
    }
    double *z = a + m->hidden;
    for (int64_t i = 0; i < n; i++) {
        forward(m, x + i * m->in, a, z, NULL);
        ev.loss += cross_entropy(z, m->out, y[i], NULL);
        int best = 0;
        for (int o = 1; o < m->out; o++)
            if (z[o] > z[best]) best = o;
        ev.right += best == y[i];
        for (int o = 0; o < m->out; o++)
            if (o != best && z[best] - z[o] <= tie) {
                ev.near_ties++;
                break;
            }
    }
    ev.loss = n ? ev.loss / (double)n : NAN;
    free(a);
    return ev;
}

double oracle_mlp_grad(OracleMlp *m, const double *x, const int *y, int64_t n, OracleMlp *g)
{
    int in = m->in, hid = m->hidden, c = m->out;
    memset(g->p, 0, sizeof *g->p * (size_t)g->size);
    double *a = malloc(sizeof *a * (size_t)(2 * hid + 2 * c));
    if (!a) return NAN;
    double *z = a + hid, *dz = z + c, *da = dz + c;
    double loss = 0;
    for (int64_t i = 0; i < n; i++) {
        const double *xi = x + i * in;
        forward(m, xi, a, z, &m->near_kinks);
        loss += cross_entropy(z, c, y[i], dz);
        dz[y[i]] -= 1.0;
        for (int o = 0; o < c; o++) dz[o] /= (double)n; /* the mean's gradient */
        for (int h = 0; h < hid; h++) da[h] = 0;
        for (int o = 0; o < c; o++) {
            g->b2[o] += dz[o];
            for (int h = 0; h < hid; h++) {
                g->w2[o * hid + h] += dz[o] * a[h];
                da[h] += dz[o] * m->w2[o * hid + h];
            }
        }
        for (int h = 0; h < hid; h++) {
            if (!(a[h] > 0)) continue; /* ReLU passes nothing back at 0 and below */
            g->b1[h] += da[h];
            for (int k = 0; k < in; k++) g->w1[h * in + k] += da[h] * xi[k];
        }
    }
    free(a);
    return n ? loss / (double)n : NAN;
}

double oracle_mlp_norm(const OracleMlp *g)
{
    double s = 0;
    for (int64_t j = 0; j < g->size; j++) s += g->p[j] * g->p[j];
    return sqrt(s);
}

void oracle_mlp_scale(OracleMlp *g, double f)
{
    for (int64_t j = 0; j < g->size; j++) g->p[j] *= f;
}

void oracle_mlp_sgd(OracleMlp *m, const OracleMlp *g, double lr)
{
    for (int64_t j = 0; j < m->size; j++) m->p[j] -= lr * g->p[j];
}

int oracle_sgd_init(OracleSgd *s, const OracleMlp *m, double lr, double momentum)
{
    s->lr = lr, s->momentum = momentum, s->steps = 0;
    return oracle_mlp_init(&s->buf, m->in, m->hidden, m->out);
}

void oracle_sgd_step(OracleSgd *s, OracleMlp *m, const OracleMlp *g)
{
    for (int64_t j = 0; j < m->size; j++) {
        double b = s->steps ? s->momentum * s->buf.p[j] + g->p[j] : g->p[j];
        s->buf.p[j] = b;
        m->p[j] -= s->lr * b;
    }
    s->steps++;
}

void oracle_sgd_free(OracleSgd *s)
{
    oracle_mlp_free(&s->buf);
}

int oracle_mlp_train(OracleMlp *m, const double *x, const int *y, int64_t n, int64_t batch,
                     double lr, long epochs, double *loss)
{
    OracleMlp g;
    if (oracle_mlp_init(&g, m->in, m->hidden, m->out) != 0) return -1;
    if (batch > n) batch = n;
    for (long e = 0; e < epochs; e++) {
        double sum = 0;
        for (int64_t at = 0; at < n; at += batch) {
            int64_t rows = n - at < batch ? n - at : batch;
            sum += oracle_mlp_grad(m, x + at * m->in, y + at, rows, &g) * (double)rows;
            oracle_mlp_sgd(m, &g, lr);
        }
        if (loss) loss[e] = sum / (double)n;
    }
    oracle_mlp_free(&g);
    return 0;
}

void oracle_curve_range(const double *want, long n, long e, long shift, double *lo, double *hi)
{
    *lo = INFINITY, *hi = -INFINITY;
    for (long k = e - shift; k <= e + shift; k++) {
        if (k < 1 || k > n) continue;
        *lo = want[k - 1] < *lo ? want[k - 1] : *lo;
        *hi = want[k - 1] > *hi ? want[k - 1] : *hi;
    }
}

int oracle_curve_fits(const double *want, long n, long e, long shift, double rtol, double got)
{
    double lo, hi;
    oracle_curve_range(want, n, e, shift, &lo, &hi);
    return isfinite(got) && got >= lo - rtol * fabs(lo) && got <= hi + rtol * fabs(hi);
}
