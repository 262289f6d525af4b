"""Writes a zip archive whose members are Zstandard-compressed (method 93), as Inspect writes its
`.eval` logs, on any Python (3.11's zipfile reads such an archive's listing but cannot write
one). Each member is given as chunks, compressed as a stream: a bomb of many MiB never sits in
memory whole."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable
from pathlib import Path

ZSTD = 93
_VERSION = 63  # the zip spec version that names Zstandard
_DOS_TIME, _DOS_DATE = 0, (2026 - 1980) << 9 | 4 << 5 | 1


def write_zstd_zip(
    path: Path, members: Iterable[tuple[str, Iterable[bytes]]], *, crc_offset: int = 0
) -> Path:
    """`crc_offset` is added to every listed CRC-32 (a corrupt archive, for the tests)."""
    import zstandard

    central: list[bytes] = []
    with path.open("wb") as out:
        for name, chunks in members:
            crc, size = 0, 0
            compressor = zstandard.ZstdCompressor(level=3).compressobj()
            packed = bytearray()
            for chunk in chunks:
                crc, size = zlib.crc32(chunk, crc), size + len(chunk)
                packed += compressor.compress(chunk)
            packed += compressor.flush()
            crc = (crc + crc_offset) & 0xFFFFFFFF
            offset = out.tell()
            raw_name = name.encode()
            out.write(
                struct.pack(
                    "<4s5H3L2H",
                    b"PK\x03\x04",
                    _VERSION,
                    0,
                    ZSTD,
                    _DOS_TIME,
                    _DOS_DATE,
                    crc,
                    len(packed),
                    size,
                    len(raw_name),
                    0,
                )
                + raw_name
            )
            out.write(packed)
            central.append(
                struct.pack(
                    "<4s6H3L5H2L",
                    b"PK\x01\x02",
                    _VERSION,
                    _VERSION,
                    0,
                    ZSTD,
                    _DOS_TIME,
                    _DOS_DATE,
                    crc,
                    len(packed),
                    size,
                    len(raw_name),
                    0,
                    0,
                    0,
                    0,
                    0,
                    offset,
                )
                + raw_name
            )
        start = out.tell()
        for entry in central:
            out.write(entry)
        out.write(
            struct.pack(
                "<4s4H2LH",
                b"PK\x05\x06",
                0,
                0,
                len(central),
                len(central),
                out.tell() - start,
                start,
                0,
            )
        )
    return path
