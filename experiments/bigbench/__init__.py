"""BIG-bench in the online evaluation: a pinned sample of public tasks, read as they are written.

The `bigbench` package's source distribution on PyPI ships every task's `task.json`
(Apache-2.0; Srivastava et al. 2022, "Beyond the Imitation Game", arXiv:2206.04615). The
repository keeps a small, reproducible sample of the development families only
(`experiments/data/bigbench/`, with its licence and attribution), so tests and CI need no
358 MB download:

- `experiments.bigbench.sample` builds the sample from the sdist (`python -m experiments.bigbench
  rebuild --sdist PATH` checks the pinned sha256 and writes byte-identical files);
- `experiments.bigbench.suite` reads it into `Task`s: multiple choice posed as lettered options,
  exact-match targets as given;
- `experiments.bigbench.checks` scores an answer for each task format, any accepted target right.

The rest of BIG-bench is held out by the product owner: the builder opens only the families in
`DEVELOPMENT_FAMILIES`, and nothing here samples or runs anything else.
"""
