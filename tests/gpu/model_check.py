#!/usr/bin/env python3
"""The time model against a GPU: model_check's modelled and measured lines side by side.

usage: model_check.py MODELLED.txt [MEASURED.txt]

Each file holds model_check's lines "case,seconds,how" (tests/gpu/model_check.cu):
MODELLED from the simulator's build (how = modelled), MEASURED from nvcc's on a GPU
(how = measured). Prints one row per case, the model's error where both are there
((modelled - measured) / measured), and the cases whose error is beyond a factor of
two, which are where a constant of the GPU's file (lib/cudasim/profile/gpus/) wants checking.
Without MEASURED (no GPU here), prints the modelled column alone and says so.
"""
import sys


def read(path, how):
    rows = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if "," not in line:
                continue  # what make printed while it built the program
            parts = line.split(",")
            if len(parts) != 3 or parts[2] != how:
                sys.exit(f"{path}:{n}: expected 'case,seconds,{how}', found {line!r}")
            rows[parts[0]] = float(parts[1])
    return rows


def fmt(s):
    if s is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    modelled = read(sys.argv[1], "modelled")
    measured = read(sys.argv[2], "measured") if len(sys.argv) == 3 else {}
    print(f"  {'case':<18} {'modelled':>12} {'measured':>12} {'model error':>12}")
    off = []
    for case, m in modelled.items():
        g = measured.get(case)
        err = (m - g) / g if g else None
        print(f"  {case:<18} {fmt(m):>12} {fmt(g):>12} "
              f"{'-' if err is None else f'{100 * err:+.0f}%':>12}")
        if err is not None and (m > 2 * g or g > 2 * m):
            off.append(case)
    if not measured:
        print("  (no GPU here: the modelled column alone, not measured; make gpu-check on a GPU "
              "measures the same cases)")
    elif off:
        print(f"  beyond a factor of two: {', '.join(off)}: check the GPU's file "
              "(lib/cudasim/profile/gpus/), whose figures these times come from")
    else:
        print("  every case within a factor of two of its measurement")


if __name__ == "__main__":
    main()
