"""Make WARC files with FastWARC: the bundled example site's crawl, and WARCs of many pages.

``python -m benchmarks.make_warc`` serves ``example_project/site`` on 127.0.0.1 (a free port),
crawls it as the example spider does (``robots.txt``, then ``index.html`` and every link of the
index that stays on the site) and writes every HTTP exchange as it went over the wire: a
``warcinfo`` record, then for each URL a ``request`` and a ``response`` record, each record its
own gzip member as in Common Crawl's files. The result is committed as
``tests/data/example-site.warc.gz``, the WARC of the corpus tests and of the corpus page's example
(the pages are WCXB pages under CC BY 4.0, see ``example_project/site/ATTRIBUTION.md``).

:class:`WarcFile` and :func:`response_block` are also what ``benchmarks/corpus.py`` uses to
build large WARCs from the shared pages.

Usage: ``python -m benchmarks.make_warc [--out tests/data/example-site.warc.gz]``.
"""

from __future__ import annotations

import argparse
import http.client
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO
from urllib.parse import urljoin, urlsplit

import lxml.html
from fastwarc import GzipWriter, WarcRecord, WarcRecordType

from example_project.demo import serve

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "example_project" / "site"
DEFAULT_OUT = ROOT / "tests" / "data" / "example-site.warc.gz"
USER_AGENT = "scrapy-cetd-make-warc (+https://github.com/scrapy-cetd)"


class WarcFile:
    """A WARC/1.1 file being written, gzipped one member per record when the name ends in
    ``.gz``; a context manager."""

    def __init__(self, path: Path) -> None:
        self._file: IO[bytes] = path.open("wb")
        self._gzip = GzipWriter(self._file) if path.name.endswith(".gz") else None

    def __enter__(self) -> WarcFile:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def write(
        self,
        record_type: WarcRecordType,
        block: bytes,
        *,
        url: str | None = None,
        content_type: str,
        extra: Sequence[tuple[str, str]] = (),
    ) -> str:
        """Write one record (FastWARC adds the date, the record id and the block digest);
        returns its ``WARC-Record-ID``."""
        record = WarcRecord()
        record.init_headers(record_type, content_length=len(block))
        if url is not None:
            record.headers.append("WARC-Target-URI", url)
        record.headers.append("Content-Type", content_type)
        for name, value in extra:
            record.headers.append(name, value)
        record.set_bytes_content(block)
        if self._gzip is None:
            record.write(self._file, checksum_data=True)
        else:
            record.write(self._gzip, checksum_data=True)
            self._gzip.finish()  # one gzip member per record
        record_id = record.record_id
        assert isinstance(record_id, str)
        return record_id

    def warcinfo(self, fields: dict[str, str]) -> str:
        """Write the ``warcinfo`` record that opens a file."""
        block = "".join(f"{name}: {value}\r\n" for name, value in fields.items()).encode()
        return self.write(WarcRecordType.warcinfo, block, content_type="application/warc-fields")

    def exchange(self, url: str, request: bytes, response: bytes) -> str:
        """Write a ``request`` and its ``response`` record; returns the response's id."""
        request_id = self.write(
            WarcRecordType.request,
            request,
            url=url,
            content_type="application/http; msgtype=request",
            extra=[("WARC-IP-Address", "127.0.0.1")],
        )
        return self.write(
            WarcRecordType.response,
            response,
            url=url,
            content_type="application/http; msgtype=response",
            extra=[("WARC-IP-Address", "127.0.0.1"), ("WARC-Concurrent-To", request_id)],
        )

    def close(self) -> None:
        if self._gzip is not None:
            self._gzip.close()
        self._file.close()


def request_block(url: str) -> bytes:
    """The HTTP/1.1 GET request this crawler sends for ``url``."""
    parts = urlsplit(url)
    return (
        f"GET {parts.path or '/'}{'?' + parts.query if parts.query else ''} HTTP/1.1\r\n"
        f"Host: {parts.netloc}\r\nUser-Agent: {USER_AGENT}\r\nAccept-Encoding: identity\r\n\r\n"
    ).encode()


def response_block(
    status: int, reason: str, headers: Sequence[tuple[str, str]], body: bytes, version: int = 11
) -> bytes:
    """An HTTP response message: status line, headers, blank line, body."""
    head = f"HTTP/{version // 10}.{version % 10} {status} {reason}\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers)
    return head.encode("latin-1") + b"\r\n" + body


def fetch(url: str) -> tuple[bytes, bytes, bytes]:
    """GET ``url``; returns the request sent, the response as received, and its body."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.netloc, timeout=30)
    try:
        request = request_block(url)
        connection.putrequest("GET", parts.path or "/", skip_host=True, skip_accept_encoding=True)
        for line in request.decode().split("\r\n")[1:]:
            if line:
                name, _, value = line.partition(": ")
                connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        body = response.read()
        block = response_block(
            response.status, response.reason, response.getheaders(), body, response.version
        )
        return request, block, body
    finally:
        connection.close()


def crawl(base_url: str) -> Iterator[tuple[str, bytes, bytes]]:
    """``robots.txt``, the index, then every same-site link of the index, once each, in order:
    ``(url, request, response)`` per URL."""
    index = urljoin(base_url, "index.html")
    robots_request, robots_response, _ = fetch(urljoin(base_url, "robots.txt"))
    yield urljoin(base_url, "robots.txt"), robots_request, robots_response
    request, response, body = fetch(index)
    yield index, request, response
    seen = {index}
    hrefs = lxml.html.fromstring(body).xpath("//a/@href")
    assert isinstance(hrefs, list)
    for href in hrefs:
        url = urljoin(index, str(href)).split("#", 1)[0]
        if urlsplit(url).netloc == urlsplit(base_url).netloc and url not in seen:
            seen.add(url)
            yield url, *fetch(url)[:2]


def main(argv: Sequence[str] | None = None) -> int:
    """Crawl the example site into ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the WARC file to write")
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with serve(SITE) as base_url, WarcFile(args.out) as warc:
        warc.warcinfo(
            {
                "software": "scrapy-cetd benchmarks/make_warc.py (FastWARC)",
                "format": "WARC File Format 1.1",
                "description": "crawl of the scrapy-cetd example site (example_project/site)",
                "robots": "obey",
            }
        )
        for url, request, response in crawl(base_url):
            warc.exchange(url, request, response)
            count += 1
    print(f"{args.out}: {count} exchanges, {args.out.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
