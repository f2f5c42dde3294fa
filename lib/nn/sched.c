/* sched.c: StepLR and CosineAnnealingLR, computed as torch.optim.lr_scheduler does. */
#include "lib/nn/sched.h"

#include <math.h>
#include <stdlib.h>

#include "lib/core/err.h"

/* Python's math.pi (strict C11 has no M_PI). */
static const double PI = 3.141592653589793;

static Scheduler *sched_alloc(Optimizer *opt, SchedKind kind)
{
    Scheduler *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(ERR_NOMEM, "scheduler: out of memory");
        return NULL;
    }
    s->kind = kind;
    s->opt = opt;
    /* PyTorch's constructor takes step 0: last_epoch 0, the rate unchanged. */
    s->state.base_lr = opt->lr;
    s->state.lr = opt->lr;
    return s;
}

Scheduler *sched_step_new(Optimizer *opt, int step_size, float gamma)
{
    if (step_size < 1 || !(gamma > 0.0f) || !isfinite(gamma)) {
        err_set(ERR_ARG, "StepLR: step_size %d must be 1 or more and gamma %g positive and "
                         "finite (try step_size=30, gamma=0.1)",
                step_size, (double)gamma);
        return NULL;
    }
    Scheduler *s = sched_alloc(opt, SCHED_STEP);
    if (s) {
        s->state.step_size = step_size;
        s->state.gamma = gamma;
    }
    return s;
}

Scheduler *sched_cosine_new(Optimizer *opt, int t_max, float eta_min)
{
    if (t_max < 1 || !(eta_min >= 0.0f) || !isfinite(eta_min)) {
        err_set(ERR_ARG, "CosineAnnealingLR: t_max %d must be 1 or more and eta_min %g finite, "
                         "0 or more (try t_max = the number of epochs, eta_min=0)",
                t_max, (double)eta_min);
        return NULL;
    }
    Scheduler *s = sched_alloc(opt, SCHED_COSINE);
    if (s) {
        s->state.t_max = t_max;
        s->state.eta_min = eta_min;
    }
    return s;
}

void sched_free(Scheduler *s) { free(s); }

const char *sched_name(const Scheduler *s)
{
    return s->kind == SCHED_STEP ? "StepLR" : "CosineAnnealingLR";
}

/* CosineAnnealingLR.get_lr() at epoch e >= 1 from the previous rate lr,
 * expression for expression (Python evaluates * and / left to right). */
static double cosine_lr(const Scheduler *s, int64_t e, double lr)
{
    double t_max = s->state.t_max, base = s->state.base_lr, eta_min = s->state.eta_min;
    int64_t period = 2 * (int64_t)s->state.t_max;
    /* (e - 1 - T_max) % (2 T_max) == 0 with Python's %, which is never negative */
    if (((e - 1 - s->state.t_max) % period + period) % period == 0)
        return lr + (base - eta_min) * (1 - cos(PI / t_max)) / 2;
    return (1 + cos(PI * (double)e / t_max)) / (1 + cos(PI * (double)(e - 1) / t_max)) *
               (lr - eta_min) +
           eta_min;
}

int sched_step(Scheduler *s)
{
    /* PyTorch goes on from group['lr']; if someone changed the rate, so do we. */
    if ((float)s->state.lr != s->opt->lr) s->state.lr = s->opt->lr;
    int64_t e = ++s->state.last_epoch;
    double lr = s->state.lr;
    if (s->kind == SCHED_STEP)
        lr = e % s->state.step_size == 0 ? lr * s->state.gamma : lr;
    else
        lr = cosine_lr(s, e, lr);
    TRY(optim_set_lr(s->opt, (float)lr));
    s->state.lr = lr;
    return ERR_OK;
}

float sched_lr(const Scheduler *s) { return (float)s->state.lr; }

void sched_state(const Scheduler *s, SchedState *out) { *out = s->state; }

int sched_restore(Scheduler *s, const SchedState *state)
{
    if (state->last_epoch < 0 || !(state->lr >= 0.0) || !isfinite(state->lr) ||
        !(state->base_lr >= 0.0) || !isfinite(state->base_lr))
        return err_set(ERR_ARG, "%s: cannot restore epoch %lld with rate %g and base rate %g "
                                "(an epoch and rates of 0 or more are needed)",
                       sched_name(s), (long long)state->last_epoch, state->lr, state->base_lr);
    if (s->kind == SCHED_STEP && (state->step_size < 1 || !(state->gamma > 0.0) ||
                                  !isfinite(state->gamma)))
        return err_set(ERR_ARG, "StepLR: cannot restore step_size %d and gamma %g (step_size 1 "
                                "or more and gamma positive and finite are needed)",
                       state->step_size, state->gamma);
    if (s->kind == SCHED_COSINE && (state->t_max < 1 || !(state->eta_min >= 0.0) ||
                                    !isfinite(state->eta_min)))
        return err_set(ERR_ARG, "CosineAnnealingLR: cannot restore T_max %d and eta_min %g "
                                "(T_max 1 or more and eta_min finite, 0 or more, are needed)",
                       state->t_max, state->eta_min);
    TRY(optim_set_lr(s->opt, (float)state->lr));
    s->state = *state;
    return ERR_OK;
}

bool sched_past_end(const Scheduler *s, int64_t epoch)
{
    return s->kind == SCHED_COSINE && epoch > s->state.t_max;
}
