#!/usr/bin/env python3
"""Write lessons/data/digits.csv: scikit-learn's 8x8 handwritten digits with a split.

1797 images of 8x8 pixels (values 0..16), ten classes, from scikit-learn's
load_digits() (a copy of the test set of the UCI "Optical Recognition of
Handwritten Digits" data). The `split` column records
train_test_split(X, y, test_size=0.2, random_state=42, stratify=y): the 1437
training rows first in X_train's order, then the 360 test rows in X_test's
order. Lesson 05 trains on the first part and validates on the second. Needs
scikit-learn; the CSV it writes is committed, so nobody else has to run it.

usage: python3 lessons/data/make_digits_csv.py [output.csv]
"""
import sys

from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "lessons/data/digits.csv"
    d = load_digits()
    idx = list(range(len(d.target)))
    idx_train, idx_test = train_test_split(idx, test_size=0.2, random_state=42,
                                           stratify=d.target)
    with open(out, "w", newline="\n") as f:
        f.write(",".join("p%d" % i for i in range(64)) + ",digit,split\n")
        for split, rows in (("train", idx_train), ("test", idx_test)):
            for i in rows:
                f.write("%s,%d,%s\n" % (",".join("%d" % v for v in d.data[i]), d.target[i], split))
    print("wrote %s: %d train + %d test rows" % (out, len(idx_train), len(idx_test)))


if __name__ == "__main__":
    main()
