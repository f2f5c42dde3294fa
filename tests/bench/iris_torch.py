#!/usr/bin/env python3
"""The source lesson's CPU training loop in PyTorch, timed the way it times it.

Used by `make bench` to put PyTorch's time beside ours in one run. The data is
the workbook's lessons/data/iris.csv (the source lesson's split) scaled by
MinMax fitted on the training rows, the model is the lesson's 4-10-3 MLP, and
the timed loop is the source's: forward, loss, zero_grad, backward, step,
losses.append(loss.item()) for every epoch. Prints one line:

    seconds=4.81 loss=0.0619 threads=2 torch=1.13.0
"""
import argparse
import csv
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPECIES = ["setosa", "versicolor", "virginica"]


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 10)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(10, 3)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=20000)
    ap.add_argument("--data", default=os.path.join(ROOT, "lessons", "data", "iris.csv"))
    args = ap.parse_args()

    rows = list(csv.DictReader(open(args.data)))
    train = [r for r in rows if r["split"] == "train"]
    x = np.array([[float(r[k]) for k in ("sepal_length", "sepal_width", "petal_length",
                                          "petal_width")] for r in train])
    lo, hi = x.min(axis=0), x.max(axis=0)
    x = (x - lo) / np.where(hi > lo, hi - lo, 1.0)
    X_train = torch.FloatTensor(x)
    y_train = torch.LongTensor([SPECIES.index(r["species"]) for r in train])

    torch.manual_seed(42)
    model = MLP()
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.01)
    losses = []
    start_time = time.time()
    for epoch in range(args.epochs):
        outputs = model.forward(X_train)
        loss = criterion(outputs, y_train)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    seconds = time.time() - start_time
    print("seconds=%.6f loss=%.6f threads=%d torch=%s"
          % (seconds, losses[-1], torch.get_num_threads(), torch.__version__))


if __name__ == "__main__":
    main()
