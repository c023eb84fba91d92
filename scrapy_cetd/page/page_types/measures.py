"""How counts become features: the logarithm of a count (a page of 2,000 links is not a
hundred times one of 20) and a part's share of a whole, at most 1."""

from __future__ import annotations

import math


def log_count(count: float) -> float:
    """``count`` on a logarithmic scale (``log(1 + count)``)."""
    return math.log1p(count)


def share_of(part: float, whole: float) -> float:
    """``part`` over ``whole``, at most 1; 0 when ``whole`` is empty."""
    return min(1.0, part / whole) if whole > 0 else 0.0
