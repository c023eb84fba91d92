"""Scoring extractors against gold text: the datasets, the metrics and the evaluation runs.

Nothing at run time (extraction, crawling, the corpus command) imports this package: it is for
the ``evaluate`` command, the benchmarks and the tests.
"""
