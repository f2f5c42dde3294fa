#!/usr/bin/env python3
"""Write tests/fixtures/optim.txt: PyTorch's optimizers, clipping and LR schedulers.

    python3 tests/gen_fixtures_optim.py tests/fixtures     # or: make fixtures

The unit tests (tests/unit/check_optim.c, check_sched.c) run lib's optimizers,
clip_grad_norm and schedulers on the same inputs and compare. The format is
tests/gen_fixtures.py's (its Writer). The parameters are those of a
Linear(5, 7), weight (7, 5) and bias (7), written as one row of 42 values:
the weight row-major, then the bias (`torch.cat([p.flatten() for p in
model.parameters()])`). What is written:

  opt.p0 (42)                     the parameters before step 1
  opt.grads (5, 42)               row k: the gradient given to step k + 1
  <case>.hyper                    the case's hyperparameters (see CASES)
  <case>.lrs (5)                  the learning rate of each step
  <case>.params (5, 42)           row k: the parameters after step k + 1
  <case>.state (S, 42)            the optimizer's state after step 5, one row
                                  per buffer: momentum_buffer, or exp_avg
                                  then exp_avg_sq (absent without state)
  clip_<set>.{g, max_norm, total, out}   clip_grad_norm_'s input and output
  <scheduler>.hyper, .lrs (13)    get_last_lr() after construction and after
                                  each of 12 epochs (stored as float32)

Every hyperparameter is a float32 value (f32 below), so PyTorch's Python
floats and the workbook's C floats hold the same numbers and the results can
agree to the last bit. Inputs are seeded and non-uniform: every element has
its own scale (1e-3 to 10), gradients change size from step to step, some
are exactly zero, so a swapped index, a missed bias correction or a buffer
initialised wrongly changes the result.
"""
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_fixtures import Writer  # noqa: E402

STEPS = 5
EPOCHS = 12


def f32(x):
    """The float32 value nearest x, as a Python float."""
    return float(np.float32(x))


# (name, class, hyperparameters, the lr of each step or None for the first one throughout);
# the hyperparameters of SGD: lr, momentum, weight_decay, nesterov (0 or 1); of Adam: lr,
# beta1, beta2, eps, weight_decay.
CASES = [
    ("sgd_momentum", "SGD", [f32(0.05), f32(0.9), 0.0, 0.0], None),
    ("sgd_nesterov_wd", "SGD", [f32(0.03), f32(0.8), f32(0.01), 1.0], None),
    ("sgd_momentum_wd", "SGD", [f32(0.04), f32(0.5), f32(0.1), 0.0], None),
    ("sgd_wd", "SGD", [f32(0.07), 0.0, f32(0.02), 0.0], None),
    ("adam", "Adam", [f32(0.01), f32(0.9), f32(0.999), f32(1e-8), 0.0], None),
    ("adam_wd", "Adam", [f32(0.003), f32(0.8), f32(0.99), f32(1e-6), f32(0.05)], None),
    # The learning rate changed between steps, as a scheduler does.
    ("adam_lr", "Adam", [f32(0.01), f32(0.9), f32(0.999), f32(1e-8), 0.0],
     [f32(0.01), f32(0.01), f32(0.02), f32(0.005), f32(0.005)]),
]


def make_optimizer(kind, hyper, params):
    if kind == "SGD":
        lr, momentum, wd, nesterov = hyper
        return torch.optim.SGD(params, lr=lr, momentum=momentum, weight_decay=wd,
                               nesterov=bool(nesterov))
    lr, b1, b2, eps, wd = hyper
    return torch.optim.Adam(params, lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd)


def flat(*tensors):
    return torch.cat([t.detach().flatten() for t in tensors])


def inputs(w, g):
    # Per-element scales from 1e-3 to 10 (log-spaced, shuffled), so no two
    # elements look alike and Adam's eps matters for the smallest.
    scale_w = torch.logspace(-3, 1, 35)[torch.randperm(35, generator=g)].reshape(7, 5)
    scale_b = torch.logspace(-3, 1, 7)[torch.randperm(7, generator=g)]
    p0w = torch.randn(7, 5, generator=g) * torch.linspace(0.5, 2.0, 5) + 0.25
    p0b = torch.randn(7, generator=g) * 2.0
    w.put("opt.p0", flat(p0w, p0b))
    grads = []
    for k, size in enumerate([1.0, 0.3, 2.5, 0.05, 1.2], start=1):
        gw = torch.randn(7, 5, generator=g) * scale_w * size
        gb = torch.randn(7, generator=g) * scale_b * size
        if k == 2:  # exact zeros: the buffers must still decay
            gw[1, 3] = 0.0
            gb[4] = 0.0
        grads.append((gw, gb))
    w.put("opt.grads", torch.stack([flat(gw, gb) for gw, gb in grads]))
    return p0w, p0b, grads


def optimizer_cases(w, p0w, p0b, grads):
    for name, kind, hyper, lrs in CASES:
        lrs = lrs or [hyper[0]] * STEPS
        pw = p0w.clone().requires_grad_(True)
        pb = p0b.clone().requires_grad_(True)
        opt = make_optimizer(kind, hyper, [pw, pb])
        after = []
        for k in range(STEPS):
            for group in opt.param_groups:
                group["lr"] = lrs[k]
            pw.grad = grads[k][0].clone()
            pb.grad = grads[k][1].clone()
            opt.step()
            after.append(flat(pw, pb))
        w.put(name + ".hyper", hyper)
        w.put(name + ".lrs", lrs)
        w.put(name + ".params", torch.stack(after))
        state = [flat(opt.state[pw][key], opt.state[pb][key])
                 for key in ("momentum_buffer", "exp_avg", "exp_avg_sq")
                 if opt.state[pw].get(key) is not None]
        if state:
            w.put(name + ".state", torch.stack(state))


def clip_cases(w, g):
    # under: total about 1.1, max 10 (unchanged); over: total about 36, max 5;
    # inf and nan: a non-finite gradient (PyTorch scales by 0, or by NaN).
    sets = [("under", 0.1, f32(10.0), None), ("over", 2.5, f32(5.0), None),
            ("inf", 1.0, f32(1.0), math.inf), ("nan", 1.0, f32(1.0), math.nan)]
    for name, size, max_norm, bad in sets:
        gw = torch.randn(7, 5, generator=g) * torch.linspace(0.2, 3.0, 5) * size
        gb = torch.randn(7, generator=g) * size
        if bad is not None:
            gw[3, 2] = bad
        pw = torch.zeros(7, 5, requires_grad=True)
        pb = torch.zeros(7, requires_grad=True)
        pw.grad = gw.clone()
        pb.grad = gb.clone()
        total = torch.nn.utils.clip_grad_norm_([pw, pb], max_norm)
        prefix = "clip_" + name
        w.put(prefix + ".g", flat(gw, gb))
        w.put(prefix + ".max_norm", max_norm)
        w.put(prefix + ".total", total)
        w.put(prefix + ".out", flat(pw.grad, pb.grad))


def scheduler_cases(w):
    cases = [
        ("steplr", f32(0.1), lambda o: torch.optim.lr_scheduler.StepLR(o, 3, f32(0.1)),
         [3, f32(0.1)]),
        ("cosine", f32(0.1),
         lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 5, f32(0.001)), [5, f32(0.001)]),
        ("cosine0", f32(0.05),
         lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 3, 0.0), [3, 0.0]),
    ]
    for name, base, make, hyper in cases:
        p = torch.zeros(3, requires_grad=True)
        opt = torch.optim.SGD([p], lr=base)
        sched = make(opt)
        lrs = [sched.get_last_lr()[0]]
        for _ in range(EPOCHS):
            p.grad = torch.ones(3)
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr()[0])
        w.put(name + ".hyper", [base] + hyper)
        w.put(name + ".lrs", np.array(lrs, dtype=np.float32))


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "fixtures")
    os.makedirs(out_dir, exist_ok=True)
    w = Writer(os.path.join(out_dir, "optim.txt"))
    w.f.write("# (optim.txt: by tests/gen_fixtures_optim.py)\n")
    g = torch.Generator().manual_seed(537)
    p0w, p0b, grads = inputs(w, g)
    optimizer_cases(w, p0w, p0b, grads)
    clip_cases(w, g)
    scheduler_cases(w)
    w.close()
    print("optim.txt written to %s" % out_dir)


if __name__ == "__main__":
    main()
