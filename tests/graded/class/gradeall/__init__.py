"""make grade-all and make grade-report: a class graded in parallel, and its report."""
