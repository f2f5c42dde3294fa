#!/usr/bin/env python3
"""The lessons' figures for the Doxygen site, made on the machine that builds it.

`make docs` runs this before Doxygen. It runs each lesson in its quick form (the
GPU parts on the GPU when there is one, else on the CUDA simulator where a lesson's
figure needs a GPU), keeps the charts the runs drew, and writes build copies of the
pages in which each `<!-- figure: NAME -->` marker of a lesson's README.md becomes
that figure with a caption naming the machine, the date and the exact command. A
figure that could not be made says so in its place, with the reason. Nothing is
copied from elsewhere: every PNG is drawn here, now.

    python3 docs/figures.py --lesson37 build/rel/solutions/lesson37 \\
        [--sim-lesson37 build/rel-sim/solutions/lesson37] [--gpu "NVIDIA H200"] \\
        [--out build/docs] [--doxyfile docs/Doxyfile]

The pages are the Doxyfile's INPUT files under OUT/src/: for build/docs/src/X the
page X is copied there.

Writes OUT/figures/NAME.png, OUT/src/<page> (the pages Doxygen reads), OUT/run/*.log
(each run's output) and OUT/figures.json (what was made, for tests/docs/check_site.py).
"""
import argparse
import datetime
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"^<!-- figure: ([A-Za-z0-9_]+) -->[ \t]*$", re.M)
RUN_TIMEOUT = 600  # seconds a run may take before it counts as failed

# Each run: which lesson37 (native: the build's own flavour; sim: the simulator),
# its options, and the figures it draws (NAME: what the figure shows).
# A run marked gpu needs a GPU: on the GPU when there is one, else the simulator.
RUNS = [
    {"id": "01", "args": ["--part", "1"],
     "figures": {"01_loss_curve": "Lesson 01's network trained on Iris on the CPU: the "
                                  "training loss after each epoch"}},
    {"id": "02", "args": ["--part", "2", "--n-cpu", "1024", "--n-gpu", "2048",
                          "--epochs", "2000", "--no-blas-compare"],
     "figures": {"02_matmul": "An N x N matrix product's time against N: OpenBLAS on "
                              "the CPU, cuBLAS on the GPU (synchronized)"}},
    {"id": "03", "args": ["--part", "3", "--quick"],
     "figures": {
         "03_sync": "demo-sync: Iris with the loss read back every N epochs, time over "
                    "the time of never reading it",
         "03_launch": "demo-launch: what one launch, one sync and one tiny copy cost",
         "03_copy": "demo-copy: copy bandwidth against size, pageable and pinned",
         "03_batch": "demo-batch: time for all inputs against the chunk size",
         "03_fused": "demo-fused: Iris per operation, as a CUDA Graph and as one fused "
                     "kernel, against the CPU"}},
    {"id": "03-timeline", "gpu": True, "args": ["--part", "3", "--demo", "timeline"],
     "figures": {"03_timeline": "demo-timeline: three Iris epochs as two lanes, CPU and "
                                "GPU, with the loss read every epoch (above) and never "
                                "(below)"}},
    {"id": "04", "args": ["--part", "4", "--n", "256"],
     "figures": {"04_call_order": "The module call protocol as the run took it: "
                                  "module_call runs the pre-hooks, forward, then the "
                                  "hooks; forward called directly runs alone"}},
    {"id": "05", "gpu": True, "args": ["--part", "5", "--quick", "--device", "cuda"],
     "figures": {"05_metrics": "The trainer's history: training and validation loss, "
                               "accuracy, learning rate and loss scale per epoch",
                 "05_amp": "Mixed precision, from the history of the float16 run with a "
                           "GradScaler: the losses, and the loss scale with the epochs "
                           "that skipped steps marked"}},
    {"id": "sim-warp", "sim_run": "docs/warp_access.cu",
     "figures": {"sim_sectors": "One warp's 32 float loads against 32-byte sectors, from the "
                                "simulator's record of four kernels' accesses, with its "
                                "profiler's count of sectors",
                 "sim_banks": "One warp reading a column of a 32 x 32 shared tile and of a "
                              "32 x 33 one: the bank of each lane's word, from the simulator's "
                              "record, with its profiler's count of wavefronts"}},
    {"id": "06", "args": ["--part", "6", "--quick"],
     "figures": {"06_scaling": "Data-parallel training on 1, 2 and 4 CPU ranks (4 "
                               "oversubscribed): the scaling efficiency of one step of a "
                               "small and a wide model"}},
]
# A run with "sim_run" is a CUDA program with its own main, run on the simulator by
# make sim-run with its output folder as its argument; it writes data files only.
# Figures drawn from a run's data files here rather than by the lesson itself:
# NAME: (gnuplot script, the data file inside the run's output folder, title).
DRAWN_HERE = {
    "sim_sectors": ("docs/warp_access.gp", "warp_sectors.dat", "sectors"),
    "sim_banks": ("docs/warp_access.gp", "warp_banks.dat", "banks"),
    "05_amp": ("lessons/05_trainer/loss_scale.gp",
               "experiments/lesson05-float16-scaled/metrics.csv",
               "float16 with a GradScaler: the trainer's history"),
}


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    import platform
    return platform.processor() or platform.machine() or "an unknown CPU"


def rel(path):
    """A path as the reader would type it, from the repository root."""
    p = os.path.relpath(path, ROOT)
    return path if p.startswith("..") else p


def run_one(run, binary, out, log):
    os.makedirs(out, exist_ok=True)
    if run.get("sim_run"):
        # the simulator's own API (cudasim.h: its record of accesses), which no GPU build
        # has: its folder for #include, and no nvcc check
        argv = ["make", "-s", "--no-print-directory", "sim-run", "CU=" + run["sim_run"],
                "ARGS=" + out, "INCLUDE=lib/cudasim", "NVCC="]
        command = "make sim-run CU=%s ARGS=DIR INCLUDE=lib/cudasim NVCC=" % run["sim_run"]
    else:
        argv = [binary] + run["args"] + ["--quiet", "--out", out]
        command = " ".join(rel(a) if os.path.isabs(a) else a for a in argv)
    t0 = time.monotonic()
    try:
        with open(log, "w", encoding="utf-8") as f:
            p = subprocess.run(argv, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT,
                               timeout=RUN_TIMEOUT, check=False)
        status = p.returncode
    except subprocess.TimeoutExpired:
        status = "timeout"
    except OSError as e:
        status = str(e)
    return command, status, time.monotonic() - t0


def last_line(log):
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            lines = [l.strip() for l in f if l.strip()]
        return lines[-1] if lines else "no output"
    except OSError:
        return "no log"


def draw_here(name, out, figures_dir):
    script, data, title = DRAWN_HERE[name]
    data = os.path.join(out, data)
    if not os.path.exists(data):
        return "the run wrote no %s" % rel(data)
    if not shutil.which("gnuplot"):
        return "gnuplot is not installed (make deps installs it)"
    png = os.path.join(out, name + ".png")
    expr = "datafile='%s'; outfile='%s'; title='%s'" % (data.replace("'", "''"),
                                                       png.replace("'", "''"),
                                                       title.replace("'", "''"))
    p = subprocess.run(["gnuplot", "-e", expr, os.path.join(ROOT, script)], cwd=ROOT,
                       capture_output=True, text=True, check=False)
    if p.returncode != 0:
        return "gnuplot failed on %s: %s" % (script, (p.stderr.strip().splitlines() or ["?"])[-1])
    return None


def figure_html(name, fig):
    if fig["made"]:
        return ('<figure class="wb-figure" id="figure-%s">\n'
                '<img src="figures/%s.png" alt="%s"/>\n'
                '<figcaption>%s. <span class="wb-made">Made on %s, %s, by '
                '<code>%s</code>%s.</span></figcaption>\n</figure>' % (
                    name, name, html.escape(fig["about"]), html.escape(fig["about"]),
                    html.escape(fig["machine"]), html.escape(fig["date"]),
                    html.escape(fig["command"]),
                    ", drawn from its <code>%s</code> with <code>%s</code>" % tuple(
                        html.escape(x) for x in fig["drawn"]) if fig.get("drawn") else ""))
    return ('<div class="wb-figure wb-missing" id="figure-%s">\n'
            '<p><b>Figure not made on this machine:</b> %s. %s</p>\n'
            '<p>It would be made by <code>%s</code> (%s, %s).</p>\n</div>' % (
                name, html.escape(fig["about"]), html.escape(fig["why"].rstrip(".") + "."),
                html.escape(fig["command"]), html.escape(fig["machine"]),
                html.escape(fig["date"])))


def doxygen_pages(doxyfile, src_prefix):
    """The pages the Doxyfile reads from src_prefix, as paths from the repository root."""
    with open(doxyfile, encoding="utf-8") as f:
        text = f.read().replace("\\\n", " ")
    m = re.search(r"^INPUT\s*=(.*)$", text, re.M)
    prefix = src_prefix.rstrip("/") + "/"
    pages = [w[len(prefix):] for w in (m.group(1).split() if m else []) if w.startswith(prefix)]
    if not pages:
        sys.exit("docs/figures.py: %s reads no page from %s" % (doxyfile, prefix))
    return pages


def write_pages(pages, figures, src_dir):
    """Copy each page to src_dir (same relative path), markers replaced."""
    used = {}
    for page in pages:
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            text = f.read()

        def replace(m):
            name = m.group(1)
            if name not in figures:
                sys.exit("docs/figures.py: %s: <!-- figure: %s --> names no figure (known: %s)"
                         % (page, name, ", ".join(sorted(figures))))
            used.setdefault(name, []).append(page)
            return "\\htmlonly[block]\n%s\n\\endhtmlonly" % figure_html(name, figures[name])

        text = MARKER.sub(replace, text)
        dst = os.path.join(src_dir, page)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w", encoding="utf-8") as f:
            f.write(text)
    return used


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lesson37", required=True, help="lesson37 as this machine builds it")
    ap.add_argument("--sim-lesson37", help="lesson37 built with SIM=1 (without a GPU)")
    ap.add_argument("--gpu", default="", help="the GPU's name, when there is one")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "docs"))
    ap.add_argument("--doxyfile", default=os.path.join(ROOT, "docs", "Doxyfile"),
                    help="the pages to write are its INPUT files under OUT/src/")
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    pages = doxygen_pages(a.doxyfile, os.path.relpath(os.path.join(out, "src"), ROOT))
    figures_dir, run_dir, src_dir = (os.path.join(out, d) for d in ("figures", "run", "src"))
    for d in (figures_dir, run_dir, src_dir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    cpu = cpu_model()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    figures = {}
    t_all = time.monotonic()
    for run in RUNS:
        sim = run.get("gpu") and not a.gpu
        binary = a.sim_lesson37 if sim else a.lesson37
        if run.get("sim_run"):
            machine = "the CUDA simulator on %s (counts, which need no GPU)" % cpu
        elif sim:
            machine = "the CUDA simulator on %s (no GPU here: a simulated GPU, not a GPU's timing)" % cpu
        elif run.get("gpu") or (a.gpu and run["id"] in ("02", "03")):
            machine = "%s with %s" % (cpu, a.gpu)
        else:
            machine = cpu + ("" if a.gpu else " (no GPU on this machine)")
        out_run = os.path.join(run_dir, run["id"])
        log = os.path.join(run_dir, run["id"] + ".log")
        if not run.get("sim_run") and (not binary or not os.path.exists(binary)):
            command, status, secs = " ".join(["lesson37"] + run["args"]), "no binary", 0.0
            why = ("No GPU on this machine, and the simulator's lesson37 was not built"
                   if sim else "lesson37 was not built")
        else:
            command, status, secs = run_one(run, os.path.abspath(binary), out_run, log)
            why = None
            if status != 0:
                why = "The run failed (%s): %s" % (
                    "timed out after %d s" % RUN_TIMEOUT if status == "timeout"
                    else "exit status %s" % status, last_line(log))
        print("  docs: %s: %.1f s%s" % (command if run.get("sim_run") else
                                        "lesson37 " + " ".join(run["args"]), secs,
                                                 "" if status == 0 else " (FAILED: see %s)" % rel(log)))
        for name, about in run["figures"].items():
            fig = {"about": about, "machine": machine, "date": date, "command": command,
                   "run": run["id"], "made": False}
            reason = why
            if not reason and name in DRAWN_HERE:
                reason = draw_here(name, out_run, figures_dir)
                fig["drawn"] = [DRAWN_HERE[name][1], DRAWN_HERE[name][0]]
            png = os.path.join(out_run, name + ".png")
            drawn = os.path.exists(png) and os.path.getsize(png) > 0
            if drawn and status != 0 and name not in DRAWN_HERE:
                reason = None  # drawn by this run (its folder starts empty) before a later part failed
            elif not reason and not drawn:
                reason = "The run drew no %s.png (%s)" % (name, last_line(log))
            if reason:
                fig["why"] = reason
            else:
                shutil.copyfile(png, os.path.join(figures_dir, name + ".png"))
                fig["made"] = True
            figures[name] = fig
    used = write_pages(pages, figures, src_dir)
    for name, fig in figures.items():
        fig["pages"] = used.get(name, [])
    with open(os.path.join(out, "figures.json"), "w", encoding="utf-8") as f:
        json.dump({"date": date, "cpu": cpu, "gpu": a.gpu, "figures": figures}, f, indent=1)
    made = sum(f["made"] for f in figures.values())
    unplaced = sorted(n for n, f in figures.items() if not f["pages"])
    print("  docs: %d of %d figures made on this machine in %.0f s%s" % (
        made, len(figures), time.monotonic() - t_all,
        "; not placed on any page: " + ", ".join(unplaced) if unplaced else ""))
    if unplaced:
        return 1
    missing = sorted(n for n, f in figures.items() if not f["made"])
    if missing and os.environ.get("DOCS_ALL_FIGURES") == "1":
        # CI: every figure can be made without a GPU (the simulator stands in)
        print("docs/figures.py: DOCS_ALL_FIGURES=1, but not made: %s" % ", ".join(
            "%s (%s)" % (n, figures[n].get("why", "")) for n in missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
