"""What TPS finds on a page: the tag path sequence, its main region and the splits that led to
it (:class:`TagPathRegion`, :class:`TagPathSplit`).

Numbers and strings only, no reference to the tree: a region pickles, and can be printed or
logged to see why it was chosen.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TagPathSplit:
    """One accepted split of searchRegion [P Alg. 3]: the range it split, how, what it kept.

    Positions are 1-based preorder positions of the body's elements (``<body>`` is 1), as in
    the paper's Figure 2.
    """

    start: int
    """First position of the range that was split."""
    end: int
    """Last position of the range that was split (inclusive)."""
    threshold: int
    """The frequency threshold whose filtered alphabet gave the split [P Def. 3.6, Alg. 4]."""
    at: int
    """``i``: the split falls after the ``i``-th element of the range [P Alg. 3 line 30]."""
    kept_start: int
    """First position of the part kept: the suffix when ``i < n/2``, else the prefix."""
    kept_end: int
    """Last position of the part kept (inclusive)."""


@dataclass(frozen=True)
class TagPathRegion:
    """The tag path sequence of a page and the main region searchRegion found in it.

    Holds only numbers and strings (no reference to the tree), so it pickles and can be
    printed or logged to see why a region was chosen: :attr:`splits` replays every accepted
    split, :attr:`paths` names every code.
    """

    sequence: tuple[int, ...]
    """The TPS: the tag path code of each element of ``<body>`` in preorder (position ``p``
    is ``sequence[p - 1]``); codes are numbered 1, 2, 3, ... in order of first appearance
    [P Def. 3.3, Alg. 2]. Empty when the page has no body."""
    steps: tuple[str, ...]
    """``steps[c - 1]`` is the last step of code ``c``'s tag path, ``tag.class1.class2[style=...]``
    (classes sorted; the style normalised)."""
    step_parents: tuple[int, ...]
    """``step_parents[c - 1]`` is the code of the path code ``c`` extends (0 for ``body``'s
    own). Paths are kept as these (parent, step) pairs, so the sequence costs memory linear in
    the page even when it nests thousands deep; :meth:`path` spells one out."""
    start: int
    """First position of the main region (1-based; 0 when the sequence is empty)."""
    end: int
    """Last position of the main region (inclusive; 0 when the sequence is empty)."""
    splits: tuple[TagPathSplit, ...]
    """The accepted splits, in order; empty when nothing was split off."""
    invert: bool
    """Whether the pruning keeps the complement of the region [P §6.3, Alg. 6]."""
    kept_count: int
    """Elements the pruned page keeps: the kept positions and their ancestors (shells); the
    elements that ``keep_positions`` empties instead of removing are not counted."""

    reason: str | None = None
    """Why the page was not searched, ``"<limit> exceeded: <detail>"`` (see
    :func:`search_tag_path_region`); ``None`` when it was. The sequence is then empty."""

    def path(self, code: int) -> str:
        """The tag path of ``code``: its steps joined by ``/`` from ``body``'s."""
        if not 0 < code <= len(self.steps):
            raise ValueError(f"code must be in 1..{len(self.steps)}, not {code!r}")
        steps: list[str] = []
        while code:
            steps.append(self.steps[code - 1])
            code = self.step_parents[code - 1]
        return "/".join(reversed(steps))

    @property
    def paths(self) -> tuple[str, ...]:
        """Every code's :meth:`path`: ``paths[c - 1]`` is the tag path of code ``c``. Built on
        each access; on a page that nests ``d`` deep it holds ``d``-step strings, so read
        :attr:`steps` and :attr:`step_parents` instead where that matters."""
        return tuple(self.path(code) for code in range(1, len(self.steps) + 1))

    @property
    def node_count(self) -> int:
        """Elements in the sequence (the body's elements after pre-processing)."""
        return len(self.sequence)

    @property
    def removed_share(self) -> float:
        """The share of the sequence's elements that pruning removes (0.0 for an empty one)."""
        if not self.sequence:
            return 0.0
        return 1.0 - self.kept_count / len(self.sequence)

    def region(self) -> tuple[int, ...]:
        """The main region's codes, ``sequence[start - 1 : end]``."""
        return self.sequence[self.start - 1 : self.end] if self.sequence else ()
