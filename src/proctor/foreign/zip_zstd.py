"""Zstandard-compressed zip members (method 93), read where the standard library cannot.

Inspect writes its `.eval` logs with Zstandard since April 2026; Python's `zipfile` reads them
from 3.14 on only. Below that, this module finds the member's compressed bytes from its local
file header and inflates them with the `zstandard` package, a bounded piece at a time: the
caller's `budget` callback sees every piece before the next is made, so a zstd bomb stops at
the first byte over its limit and never holds more than one piece (1 MiB) and the window (at
most 128 MiB, zstd's own default limit) in memory. The CRC-32 the archive lists is checked, as
`zipfile` checks it."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from typing import BinaryIO

ZSTD = 93
"""The zip compression method of Zstandard."""
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
_LOCAL_SIGNATURE = b"PK\x03\x04"
_CHUNK = 1 << 20
MAX_WINDOW = 1 << 27
"""The largest back-reference window a frame may ask for (zstd's default limit)."""


class ZstdMemberError(Exception):
    """A member that cannot be read: says why, in words for the user."""


def stdlib_reads_zstd() -> bool:
    return getattr(zipfile, "ZIP_ZSTANDARD", None) == ZSTD


def package_reads_zstd() -> bool:
    try:
        import zstandard  # noqa: F401
    except ImportError:
        return False
    return True


def _raw_member(fp: BinaryIO, info: zipfile.ZipInfo) -> bytes:
    """The member's compressed bytes, found from its local header (as zipfile finds them)."""
    if info.flag_bits & 0x1:
        raise ZstdMemberError("encrypted")
    fp.seek(info.header_offset)
    head = fp.read(_LOCAL_HEADER.size)
    if len(head) != _LOCAL_HEADER.size or head[:4] != _LOCAL_SIGNATURE:
        raise ZstdMemberError("bad local file header")
    fields = _LOCAL_HEADER.unpack(head)
    name_len, extra_len = fields[-2], fields[-1]
    fp.seek(name_len + extra_len, io.SEEK_CUR)
    raw = fp.read(info.compress_size)
    if len(raw) != info.compress_size:
        raise ZstdMemberError("the archive ends inside this member")
    return raw


def inflate_member(
    fp: BinaryIO, info: zipfile.ZipInfo, on_piece: Callable[[int], None]
) -> Iterator[bytes]:
    """Yields the member's inflated bytes piece by piece; `on_piece(len)` runs before each piece
    is yielded (it raises to stop). Raises ZstdMemberError for a corrupt member."""
    import zstandard

    raw = _raw_member(fp, info)
    crc = 0
    try:
        reader = zstandard.ZstdDecompressor(max_window_size=MAX_WINDOW).stream_reader(
            io.BytesIO(raw), read_across_frames=True
        )
        with reader:
            while chunk := reader.read(_CHUNK):
                on_piece(len(chunk))
                crc = zlib.crc32(chunk, crc)
                yield chunk
    except zstandard.ZstdError as e:
        raise ZstdMemberError(f"corrupt Zstandard data: {e}") from None
    if crc != info.CRC:
        raise ZstdMemberError(f"bad CRC-32 ({crc:08x}, the archive lists {info.CRC:08x})")
