#!/usr/bin/env python3
"""Compare a CSV that CUDASIM_PROFILE wrote with what NAME.profile says it must hold.

usage: check_profile.py [--ncu] EXPECTED.profile WRITTEN.csv
Prints one line per difference (launch, kernel, column, expected, written) and
exits 1 if there is any; the format of EXPECTED is described in its comments.
With --ncu, WRITTEN is what `ncu --csv --metrics ...` printed on a GPU (a row per
launch and metric, after the program's own output): the same values must be there.
"""
import csv
import sys


def read_ncu(path):
    """ncu's rows (ID, Kernel Name, Metric Name, Metric Value) as one row per launch."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        sys.exit(f"{path}: no ncu CSV in it (a line starting with \"ID\")")
    written = {}
    for r in csv.DictReader(lines[start:]):
        name = r["Kernel Name"].split("(", 1)[0]
        name = name[5:] if name.startswith("void ") else name
        row = written.setdefault(r["ID"], {"ID": r["ID"], "Kernel Name": name.strip()})
        row[r["Metric Name"]] = r["Metric Value"].replace(",", "").strip()
    return written


def main():
    args = sys.argv[1:]
    ncu = args[:1] == ["--ncu"]
    if ncu:
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    expected_path, csv_path = args
    columns, rows = None, []
    with open(expected_path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("columns:"):
                columns = line.split()[1:]
                continue
            words = line.split()
            if columns is None or len(words) != len(columns) + 2:
                sys.exit(f"{expected_path}:{n}: expected an ID, a kernel and {len(columns or [])} "
                         f"values after the columns line")
            rows.append((n, words[0], words[1], words[2:]))
    if ncu:
        written = read_ncu(csv_path)
    else:
        with open(csv_path, newline="", encoding="utf-8") as f:
            written = {r["ID"]: r for r in csv.DictReader(f)}
    problems = []
    for n, rid, kernel, values in rows:
        got = written.get(rid)
        if got is None:
            problems.append(f"launch {rid} ({kernel}): no row in {csv_path}")
            continue
        if got.get("Kernel Name") != kernel:
            problems.append(f"launch {rid}: kernel {got.get('Kernel Name')!r}, expected {kernel!r}")
        for col, want in zip(columns, values):
            if want == "-":
                continue
            if col not in got:
                problems.append(f"launch {rid} ({kernel}): no column {col}")
            elif got[col] != want:
                problems.append(f"launch {rid} ({kernel}): {col} = {got[col]!r}, expected {want} "
                                f"({expected_path}:{n})")
    if len(written) != len(rows):
        problems.append(f"{len(written)} rows written, {len(rows)} expected")
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
