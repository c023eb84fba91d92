"""searchRegion [P Alg. 3, 4]: the main region of a tag path sequence, found by splitting it
where its prefix and suffix alphabets are disjoint, the rarer symbols ignored, and keeping the
larger part while it is larger by more than the minimum size gap [P §5.3].
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.tps.options import MIN_SIZE_GAP
from scrapy_cetd.tps.region import TagPathSplit

_EPSILON = 1e-9
"""Float tolerance of threshold comparisons (``docs/algorithms.md`` §0.5)."""


def search_region(
    sequence: Sequence[int],
    *,
    min_size_gap: float = MIN_SIZE_GAP,
    weights: Sequence[int] | None = None,
    protected: Sequence[bool] | None = None,
) -> tuple[int, int, list[TagPathSplit]]:
    """searchRegion on a whole sequence: the final range ``(start, end)``, 1-based inclusive,
    and the accepted splits (``docs/algorithms.md`` §5.2 step 3).

    For each frequency threshold in ascending order [P Def. 3.6], only the symbols at least
    that frequent are read [P Alg. 4]; the scan stops at the first point where every symbol
    seen so far has had its last occurrence (the prefix and suffix alphabets are disjoint).
    That point is a split when the suffix is not empty and ``|n - 2i| / n > min_size_gap``;
    otherwise the next threshold is tried (only the first disjoint point per threshold, S-8).
    The search ends when the filtered alphabet has fewer than two symbols or the thresholds
    are exhausted (S-5, S-9). The paper's recursion is a loop here.

    ``weights`` (one per element, default 1) replace the element counts in the size test and
    in the choice of the side to keep (:attr:`TpsOptions.size` ``"text"``).
    ``protected`` (one flag per element) marks elements no split may remove: a split whose
    removed side holds one fails like one that fails the size test (``guard_main_content``).

    The symbol counts of the current range, their histogram and the sorted thresholds are
    kept up to date as parts are cut off, and a scan allocates only for the symbols it meets,
    so a split costs the length of the scans plus the size of the part removed, not a pass
    over the whole alphabet: a 10,000-deep chain of distinct paths, which splits 10,000 times,
    stays linear. Scans of the thresholds that find no split stop at a few passes over the
    range (see :meth:`_Range.first_split`): a page whose symbols all open early and close late
    at a thousand different frequencies costs a few passes, not a thousand.
    """
    if not 0.0 <= min_size_gap < 1.0:
        raise ValueError(f"min_size_gap must be in [0, 1), not {min_size_gap!r}")
    if weights is not None and len(weights) != len(sequence):
        raise ValueError("weights must have one value per element of the sequence")
    if protected is not None and len(protected) != len(sequence):
        raise ValueError("protected must have one flag per element of the sequence")
    if not sequence:
        return 0, 0, []
    state = _Range(
        sequence,
        min_size_gap,
        _prefix_sums(weights if weights is not None else [1] * len(sequence)),
        _prefix_sums(protected if protected is not None else [0] * len(sequence)),
    )
    splits: list[TagPathSplit] = []
    while True:
        check_deadline("searching the region")
        found = state.first_split()
        lo, hi = state.lo, state.hi
        if found is None:
            return lo + 1, hi + 1, splits
        threshold, i = found
        state.cut(i)
        splits.append(TagPathSplit(lo + 1, hi + 1, threshold, i, state.lo + 1, state.hi + 1))


class _Range:
    """The range ``sequence[lo..hi]`` searchRegion works on, with its symbol counts, their
    histogram and the sorted list of the frequencies present, kept up to date as parts are
    cut off."""

    def __init__(
        self,
        sequence: Sequence[int],
        min_size_gap: float,
        prefix: Sequence[int],
        guarded: Sequence[int],
    ) -> None:
        self.sequence = sequence
        self.min_size_gap = min_size_gap
        self.prefix = prefix
        """Prefix sums of the weights."""
        self.guarded = guarded
        """Prefix sums of the protected flags."""
        self.lo, self.hi = 0, len(sequence) - 1
        self.counts: dict[int, int] = {}
        for symbol in sequence:
            self.counts[symbol] = self.counts.get(symbol, 0) + 1
        self.histogram: dict[int, int] = {}  # frequency -> number of symbols with it
        for frequency in self.counts.values():
            self.histogram[frequency] = self.histogram.get(frequency, 0) + 1
        self.frequencies = sorted(self.histogram)
        """The frequencies of the histogram, ascending: the thresholds [P Def. 3.6]."""
        self.alphabet = len(self.counts)
        """Symbols that occur in the range."""

    def cut(self, i: int) -> None:
        """Cut off the lighter side of a split at ``i`` (the prefix [P Alg. 3 line 41] or the
        suffix [line 43]), updating the counts, histogram and frequencies."""
        lo, hi = self.lo, self.hi
        if _prefix_lighter(self.prefix, lo, hi, i):
            cut = range(lo, lo + i)
            self.lo = lo + i
        else:
            cut = range(lo + i, hi + 1)
            self.hi = lo + i - 1
        sequence, counts, histogram = self.sequence, self.counts, self.histogram
        for p in cut:
            if p & CHECK_EVERY == CHECK_EVERY:
                check_deadline("searching the region")
            symbol = sequence[p]
            frequency = counts[symbol]
            counts[symbol] = frequency - 1
            histogram[frequency] -= 1
            if not histogram[frequency]:
                del histogram[frequency]
                del self.frequencies[bisect.bisect_left(self.frequencies, frequency)]
            if frequency > 1:
                below = histogram.get(frequency - 1, 0)
                histogram[frequency - 1] = below + 1
                if not below:
                    bisect.insort(self.frequencies, frequency - 1)
            else:
                self.alphabet -= 1

    def first_split(self) -> tuple[int, int] | None:
        """The ``(threshold, i)`` of the accepted split of the range, or ``None``.

        For each threshold, the first point where the prefix and suffix alphabets are
        disjoint is the end of the first run of overlapping ``[first, last]`` occurrence
        intervals of the symbols at least that frequent. It is first found by scanning from
        ``lo``, which stops there (cheap when the split comes early, as when a chain of
        wrappers is peeled one at a time); once the scans of this call have read as many
        positions as the range holds, the intervals are indexed (:class:`_Intervals`) and each
        remaining threshold costs only the symbols of its run. Either way a call costs
        at most a few passes over the range, where scanning alone would cost one per
        threshold (quadratic in the number of distinct frequencies).
        """
        lo, hi = self.lo, self.hi
        length = hi - lo + 1
        scanned = 0
        intervals: _Intervals | None = None
        passed = 0  # symbols below the current threshold
        for threshold in self.frequencies:
            alphabet_size = self.alphabet - passed
            passed += self.histogram[threshold]
            if alphabet_size < 2:
                return None
            check_deadline("searching the region")
            if intervals is None and scanned >= length:
                intervals = _Intervals(self.sequence, lo, hi, self.counts, threshold)
            if intervals is not None:
                p, finished = intervals.first_run(threshold)
            else:
                p, finished = self._scan(threshold)
                scanned += p - lo + 1
            i = p - lo + 1
            if (
                finished < alphabet_size
                and _gap(self.prefix, lo, hi, i) > self.min_size_gap + _EPSILON
                and not _cuts_protected(self.prefix, self.guarded, lo, hi, i)
            ):
                return threshold, i
        return None

    def _scan(self, threshold: int) -> tuple[int, int]:
        """The first position where every symbol at least ``threshold`` frequent that has
        been read has had its last occurrence, and the number of those symbols [P Alg. 4]."""
        sequence, counts = self.sequence, self.counts
        used: dict[int, int] = {}
        open_symbols = 0  # seen in the prefix and still occurring after it
        finished = 0  # symbols whose last occurrence has been read
        for p in range(self.lo, self.hi + 1):
            if p & CHECK_EVERY == CHECK_EVERY:
                check_deadline("searching the region")
            symbol = sequence[p]
            total = counts[symbol]
            if total < threshold:
                continue
            seen = used.get(symbol, 0) + 1
            used[symbol] = seen
            if seen == 1:
                open_symbols += 1
            if seen == total:
                open_symbols -= 1
                finished += 1
                if open_symbols == 0:  # prefix and suffix alphabets are disjoint
                    return p, finished
        raise AssertionError("a range with two symbols has a last occurrence")


class _Intervals:
    """The ``[first, last]`` occurrence intervals of the symbols of ``sequence[lo..hi]`` at
    least ``threshold`` frequent, in order of their first occurrence, as a linked list from
    which the symbols below each next threshold are unlinked."""

    def __init__(
        self,
        sequence: Sequence[int],
        lo: int,
        hi: int,
        counts: dict[int, int],
        threshold: int,
    ) -> None:
        index: dict[int, int] = {}
        self.first: list[int] = []
        self.last: list[int] = []
        frequency: list[int] = []
        for p in range(lo, hi + 1):
            if p & CHECK_EVERY == CHECK_EVERY:
                check_deadline("searching the region")
            symbol = sequence[p]
            k = index.get(symbol)
            if k is None:
                total = counts[symbol]
                if total < threshold:
                    continue
                k = index[symbol] = len(self.first)
                self.first.append(p)
                self.last.append(p)
                frequency.append(total)
            else:
                self.last[k] = p
        size = len(self.first)
        self.next = [*range(1, size), -1]
        self.previous = list(range(-1, size - 1))
        self.head = 0 if size else -1
        self.below: dict[int, list[int]] = {}  # frequency -> its symbols, to unlink
        for k, total in enumerate(frequency):
            self.below.setdefault(total, []).append(k)
        self.pending = sorted(self.below, reverse=True)

    def first_run(self, threshold: int) -> tuple[int, int]:
        """The end of the first run of overlapping intervals of the symbols at least
        ``threshold`` frequent (thresholds come in ascending order), and its symbols."""
        while self.pending and self.pending[-1] < threshold:
            for k in self.below[self.pending.pop()]:
                self._unlink(k)
        k = self.head
        end = self.last[k]
        members = 1
        k = self.next[k]
        while k >= 0 and self.first[k] <= end:
            end = max(end, self.last[k])
            members += 1
            k = self.next[k]
        return end, members

    def _unlink(self, k: int) -> None:
        before, after = self.previous[k], self.next[k]
        if before >= 0:
            self.next[before] = after
        else:
            self.head = after
        if after >= 0:
            self.previous[after] = before


def _prefix_sums(values: Sequence[int]) -> list[int]:
    sums = [0]
    for value in values:
        sums.append(sums[-1] + value)
    return sums


def _cuts_protected(
    prefix: Sequence[int], guarded: Sequence[int], lo: int, hi: int, i: int
) -> bool:
    """Whether the side a split at ``i`` removes holds a protected element."""
    if _prefix_lighter(prefix, lo, hi, i):
        return guarded[lo + i] > guarded[lo]
    return guarded[hi + 1] > guarded[lo + i]


def _sizes(prefix: Sequence[int], lo: int, hi: int, i: int) -> tuple[int, int]:
    first = prefix[lo + i] - prefix[lo]
    return first, prefix[hi + 1] - prefix[lo + i]


def _gap(prefix: Sequence[int], lo: int, hi: int, i: int) -> float:
    first, second = _sizes(prefix, lo, hi, i)
    if first + second == 0:
        return 0.0
    return abs(second - first) / (first + second)


def _prefix_lighter(prefix: Sequence[int], lo: int, hi: int, i: int) -> bool:
    first, second = _sizes(prefix, lo, hi, i)
    return first < second
