#!/usr/bin/env python3
"""Write lessons/data/iris.csv: the Iris data with the split of the source lesson.

The source lesson splits with scikit-learn's
train_test_split(X, y, test_size=0.2, random_state=42). This script records that
split in a `split` column, training rows first in X_train's order, then the test
rows in X_test's order, so a C program that reads the file sees exactly the arrays
the Python lesson trains on. Needs scikit-learn; the CSV it writes is committed, so
nobody else has to run it.

usage: python3 lessons/data/make_iris_csv.py [output.csv]
"""
import sys

from sklearn.datasets import load_iris
from sklearn.model_selection import train_test_split


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "lessons/data/iris.csv"
    iris = load_iris()
    idx = list(range(len(iris.target)))
    idx_train, idx_test = train_test_split(idx, test_size=0.2, random_state=42)
    names = list(iris.target_names)
    with open(out, "w", newline="\n") as f:
        f.write("sepal_length,sepal_width,petal_length,petal_width,species,split\n")
        for split, rows in (("train", idx_train), ("test", idx_test)):
            for i in rows:
                feats = ",".join("%g" % v for v in iris.data[i])
                f.write("%s,%s,%s\n" % (feats, names[iris.target[i]], split))
    print("wrote %s: %d train + %d test rows" % (out, len(idx_train), len(idx_test)))


if __name__ == "__main__":
    main()
