"""Main content of every HTML page in WARC archives: ``scrapy-cetd corpus`` and its Dask twin.

Web-as-corpus work starts from crawl archives (WARC files, as Common Crawl publishes them), not
from a live crawl. This package reads them, keeps the HTML responses, runs a registered extractor
on each and writes one row per page. Its modules, by role:

* :mod:`~scrapy_cetd.corpus.warc` reads WARC files (:func:`iter_pages`), through
  :mod:`~scrapy_cetd.corpus.streams` (a compressed file read part by part, going on after
  damage);
* :mod:`~scrapy_cetd.corpus.schema` names the columns (:data:`FIELDS`);
* :mod:`~scrapy_cetd.corpus.settings` holds the run's :class:`CorpusSettings`;
* :mod:`~scrapy_cetd.corpus.records` holds *the per-record function* :func:`extract_page`,
  which undoes a response's codings (:mod:`~scrapy_cetd.corpus.codings`) and extracts;
* :mod:`~scrapy_cetd.corpus.writers` writes rows as JSON Lines or Parquet;
* :mod:`~scrapy_cetd.corpus.summary` counts what a run did;
* :mod:`~scrapy_cetd.corpus.workers` is what the worker processes run;
* :mod:`~scrapy_cetd.corpus.run` is the command, :func:`run_corpus`;
* :mod:`~scrapy_cetd.corpus.dask_bag` is the same rows on a Dask cluster, :func:`to_dask_bag`.

:func:`run_corpus` (the command) uses a process pool in one of two ways. With at least as many
files to do as workers, each worker reads, extracts and writes whole files, so this process
only waits; that is the scalable case, as reading costs about a fifth of extracting. With fewer
files, this process reads and ships batches of pages to the workers, which call
:func:`extract_page`, and writes the rows in file order. Either way the output is the same.

Bad records never stop a run, and damage loses only the damaged part: each record without a
row is counted under a reason (:data:`SKIP_REASONS`), and the summary reports the counts.

**Resuming.** :func:`run_corpus` writes one part per input file into ``OUT.parts/`` (the part
is renamed into place when complete, then a small ``.json`` marker with its counts is written),
and assembles ``OUT`` from the parts at the end. A part's name holds a digest of the input's
absolute path, size and modification time and of the settings, so a rerun skips the input files
already done with the same settings and redoes those that changed; an interrupted run loses at
most the files it was in the middle of. Parts that belong to no input of the current run are
deleted.
"""

try:
    import fastwarc  # noqa: F401 - the corpus extra's reader, which every module here needs
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "scrapy_cetd.corpus needs the corpus extra: pip install -e '.[corpus]' in "
        "scrapy-cetd's checkout"
    ) from error

from scrapy_cetd.corpus.dask_bag import to_dask_bag
from scrapy_cetd.corpus.records import Outcome, extract_file, extract_page
from scrapy_cetd.corpus.run import checked_jobs, default_jobs, run_corpus
from scrapy_cetd.corpus.schema import FIELDS, Row
from scrapy_cetd.corpus.settings import CorpusSettings
from scrapy_cetd.corpus.summary import CorpusSummary, FileSummary
from scrapy_cetd.corpus.warc import (
    DEFAULT_MAX_BYTES,
    SKIP_REASONS,
    WARC_SUFFIXES,
    Skipped,
    WarcPage,
    find_warc_files,
    iter_pages,
)
from scrapy_cetd.corpus.writers import FORMATS, output_format

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FIELDS",
    "FORMATS",
    "SKIP_REASONS",
    "WARC_SUFFIXES",
    "CorpusSettings",
    "CorpusSummary",
    "FileSummary",
    "Outcome",
    "Row",
    "Skipped",
    "WarcPage",
    "checked_jobs",
    "default_jobs",
    "extract_file",
    "extract_page",
    "find_warc_files",
    "iter_pages",
    "output_format",
    "run_corpus",
    "to_dask_bag",
]
