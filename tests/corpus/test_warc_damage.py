"""Property tests of the WARC reader (scrapy_cetd.corpus.warc) on damage it was not written
for: bytes changed anywhere in a gzipped, Zstandard or uncompressed WARC, and its end cut off
anywhere. The reader never raises (but for a file whose first record is gone, which is no
WARC), never makes up a record, and loses only the records whose bytes were damaged."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import pytest
from corpuskit import member_offsets, response, story_page, write_warc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapy_cetd.corpus import WarcPage, iter_pages
from scrapy_cetd.corpus.warc import NotAWarcError

RECORDS = 8
OK = "HTTP/1.1 200 OK\nContent-Type: text/html\n"
PAGES = {f"http://a.test/{number}": story_page(number) for number in range(RECORDS)}


def _warc(tmp_path: Path) -> bytes:
    path = tmp_path / "pages.warc.gz"
    if not path.exists():
        write_warc(path, [response(url, OK, body) for url, body in PAGES.items()])
    return path.read_bytes()


EXAMPLES = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
"""Each property's examples: a WARC of a few small records reads in milliseconds."""

Damage = tuple[int, float, int, int]
"""A damage: the record (or member), where in it (a share), how many bytes, the XOR mask."""

DAMAGE = st.lists(
    st.tuples(
        st.integers(0, RECORDS - 1),  # the member
        st.floats(0, 1, exclude_max=True),  # where in it
        st.integers(1, 40),  # how many bytes
        st.integers(1, 255),  # XORed with each
    ),
    max_size=3,
)


def _read(data: bytes) -> list[object]:
    return list(iter_pages(io.BytesIO(data), name="damaged.warc.gz"))


def _damage(data: bytearray, starts: list[int], damage: list[Damage]) -> set[int]:
    """Apply ``damage`` to ``data``, whose records (or members, or frames) begin at ``starts``
    (and the last ends at the last); the records damaged."""
    for member, where, length, mask in damage:
        begin, end = starts[member], starts[member + 1]
        at = begin + int(where * (end - begin))
        for position in range(at, min(at + length, end)):
            data[position] ^= mask
    return {member for member, *_ in damage}


def _check(data: bytes, lost: set[int], *, checksummed: bool = True) -> None:
    """Read ``data``, whose records ``lost`` were damaged: every other record is read as
    written, once; in a gzipped or Zstandard file (whose parts are checksummed,
    ``checksummed``) every page read is a record as written. An uncompressed WARC has no
    checksum the reader checks: a damaged record may be read with its damage. Only a damaged
    first record may make the file no WARC."""
    try:
        items = _read(data)
    except NotAWarcError:
        assert 0 in lost
        return
    pages = [item for item in items if isinstance(item, WarcPage)]
    written = [page for page in pages if PAGES.get(page.url) == page.body]
    if checksummed:
        assert written == pages
    read = [int(page.url.rsplit("/", 1)[1]) for page in written]
    assert set(range(RECORDS)) - lost <= set(read)
    assert len(read) == len(set(read))  # no record twice
    assert len(items) <= RECORDS + len(lost) + 1


@EXAMPLES
@given(damage=DAMAGE)
def test_changed_bytes_lose_only_their_records(tmp_path: Path, damage: list[Damage]) -> None:
    data = bytearray(_warc(tmp_path))
    starts = [*member_offsets(bytes(data)), len(data)]
    lost = _damage(data, starts, damage)
    _check(bytes(data), lost)


@EXAMPLES
@given(where=st.floats(0.02, 1, exclude_max=True))
def test_a_cut_off_end_loses_only_the_records_it_cuts(tmp_path: Path, where: float) -> None:
    data = _warc(tmp_path)
    starts = [*member_offsets(data), len(data)]
    cut = int(where * len(data))
    lost = {member for member in range(RECORDS) if starts[member + 1] > cut}
    _check(data[:cut], lost)


def _plain_warc(tmp_path: Path) -> bytes:
    path = tmp_path / "pages.warc"
    if not path.exists():
        write_warc(path, [response(url, OK, body) for url, body in PAGES.items()], gzipped=False)
    return path.read_bytes()


def _record_offsets(data: bytes) -> list[int]:
    """Where the records of an uncompressed WARC of :func:`write_warc` begin."""
    offsets = [0]
    while (found := data.find(b"\r\n\r\nWARC/1.1\r\n", offsets[-1] + 1)) >= 0:
        offsets.append(found + 4)
    return offsets


@EXAMPLES
@given(damage=DAMAGE)
def test_changed_bytes_of_an_uncompressed_warc_lose_only_their_records(
    tmp_path: Path, damage: list[Damage]
) -> None:
    data = bytearray(_plain_warc(tmp_path))
    starts = [*_record_offsets(bytes(data)), len(data)]
    assert len(starts) == RECORDS + 1
    lost = _damage(data, starts, damage)
    _check(bytes(data), lost, checksummed=False)


@EXAMPLES
@given(damage=DAMAGE)
def test_changed_bytes_of_a_zstandard_warc_lose_only_their_records(
    tmp_path: Path, damage: list[Damage]
) -> None:
    zstandard = pytest.importorskip("zstandard")
    plain = _plain_warc(tmp_path)
    bounds = [*_record_offsets(plain), len(plain)]
    compressor = zstandard.ZstdCompressor(write_checksum=True, write_content_size=True)
    frames = [compressor.compress(plain[begin:end]) for begin, end in itertools.pairwise(bounds)]
    starts = [0, *itertools.accumulate(len(frame) for frame in frames)]
    data = bytearray(b"".join(frames))
    lost = _damage(data, starts, damage)
    _check(bytes(data), lost)
