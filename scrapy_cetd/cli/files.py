"""The files the commands read and write: a page read from a file, gzipped or not, or stdin;
whether a path can be written before a long run starts."""

from __future__ import annotations

import gzip
import os
import sys
import tempfile
from pathlib import Path

from scrapy_cetd.cli.errors import CommandError, UsageError


def read(name: str) -> bytes:
    """The bytes of file ``name`` (``-`` is stdin), ungzipped when gzipped. A URL, a file that
    cannot be read and bad gzip data are a :class:`CommandError` naming the file."""
    if "://" in name and not Path(name).exists():
        raise CommandError(
            f"cannot read {name}: URLs are not fetched; save the page to a file and give the "
            "file, with --url URL if the URL matters"
        )
    try:
        data = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    except OSError as error:
        raise CommandError(f"cannot read {name}: {error.strerror or error}") from None
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except (OSError, EOFError) as error:
            raise CommandError(f"cannot read {name}: bad gzip data ({error})") from None
    return data


def check_writable(name: str, option: str) -> None:
    """Raise :class:`UsageError` unless a file can be written at ``name``: an existing file (or
    a device such as ``/dev/stdout``) that may be written, or a new file whose missing folders
    can be made (see :func:`check_new_entry`). Checked before a run, whose hours of work must
    not end on a path that was wrong from the start."""
    if os.path.isdir(name):
        raise UsageError(f"{option} {name}: is a folder")
    if not os.path.exists(name):  # a new file where the name, or the link it is, leads
        check_new_entry(name, option, Path(os.path.realpath(name)))
    elif not os.access(name, os.W_OK):
        raise UsageError(f"{option} {name}: cannot be written")


def check_new_entry(name: str, option: str, path: Path) -> None:
    """Raise :class:`UsageError` unless ``path`` (``name`` as given) can be made with the
    missing folders on its way: its nearest existing ancestor is a folder in which a folder
    can be made."""
    ancestor = path.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise UsageError(f"{option} {name}: {ancestor} is not a folder")
    if not os.access(ancestor, os.W_OK):
        raise UsageError(f"{option} {name}: cannot be written")
    if why := _cannot_create_in(ancestor):
        raise UsageError(f"{option} {name}: cannot be written ({ancestor}: {why})")


def _cannot_create_in(folder: Path) -> str | None:
    """Why nothing can be made in ``folder``, or ``None`` when a folder made there (and removed
    at once) says it can: the permissions alone do not tell, as a file system such as
    ``/proc`` refuses new entries whatever they say, and root passes every check of them."""
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".scrapy-cetd-", dir=folder))
    except OSError as error:
        return error.strerror or str(error)
    return None
