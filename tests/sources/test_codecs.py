"""Corners of Spark's codec framings that one real Spark run does not write (stored blocks,
concatenated streams, damaged blocks). The streams here are framed by the test after the
formats' sources (lz4-java LZ4BlockOutputStream, snappy-java SnappyOutputStream, compress-lzf
LZFChunk); Spark's own output is read in test_harvest_real.py."""

from __future__ import annotations

import io
import struct

import cramjam
import pytest

from deltaforensics.sources.codecs import (
    LZ4_MAGIC,
    SNAPPY_MAGIC,
    CorruptDataError,
    decoded_pieces,
    lzf_block,
)


def _decode(data: bytes) -> bytes:
    return b"".join(decoded_pieces(io.BytesIO(data)))


def _lz4_block(data: bytes, *, stored: bool = False) -> bytes:
    body = data if stored else bytes(cramjam.lz4.compress_block(data, store_size=False))
    token = (0x10 if stored else 0x20) | 6
    return struct.pack("<8sBiii", LZ4_MAGIC, token, len(body), len(data), 0) + body


def _lz4_end() -> bytes:
    return struct.pack("<8sBiii", LZ4_MAGIC, 0x10 | 6, 0, 0, 0)


def _snappy_stream(*chunks: bytes) -> bytes:
    out = SNAPPY_MAGIC + struct.pack(">ii", 1, 1)
    for chunk in chunks:
        body = bytes(cramjam.snappy.compress_raw(chunk))
        out += struct.pack(">i", len(body)) + body
    return out


def test_lz4_stored_and_compressed_blocks_and_concatenated_streams() -> None:
    one, two = b'{"Event":"A"}\n' * 50, b'{"Event":"B"}\n' * 3
    stream = _lz4_block(one) + _lz4_end() + _lz4_block(two, stored=True) + _lz4_end()
    assert _decode(stream) == one + two


def test_lz4_damaged_block_and_length_mismatch() -> None:
    good = _lz4_block(b"x" * 1000)
    damaged = good[:21] + b"\xff" * (len(good) - 21)
    with pytest.raises(CorruptDataError):
        _decode(damaged)
    wrong_length = good[:13] + struct.pack("<i", 999) + good[17:]
    with pytest.raises(CorruptDataError, match="lz4"):
        _decode(wrong_length)


def test_snappy_chunks_and_a_second_stream_header() -> None:
    first, second = b"line one\n" * 20, b"line two\n" * 20
    assert _decode(_snappy_stream(first) + _snappy_stream(second)) == first + second


def test_snappy_truncated_chunk() -> None:
    data = _snappy_stream(b"abc" * 100)
    with pytest.raises(CorruptDataError, match="truncated"):
        _decode(data[:-3])


def test_lzf_literal_runs_and_back_references() -> None:
    assert lzf_block(b"\x02abc\x80\x02", 9) == b"abcabcabc"  # an overlapping copy
    long_run = b"\x00a" + bytes([0xE0, 11, 0x00])  # length 7 + 11 more + 2: 20 bytes back 1
    assert lzf_block(long_run, 21) == b"a" * 21
    with pytest.raises(CorruptDataError):
        lzf_block(b"\x20\x05", 2)  # a reference before the block


def test_lzf_chunks_stored_and_compressed() -> None:
    stored = b"ZV\x00" + struct.pack(">H", 4) + b"text"
    compressed = b"ZV\x01" + struct.pack(">HH", 6, 9) + b"\x02abc\x80\x02"
    assert _decode(stored + compressed) == b"textabcabcabc"
    with pytest.raises(CorruptDataError):
        _decode(stored + b"ZX\x00")


def test_plain_text_passes_through() -> None:
    assert _decode(b'{"Event":"SparkListenerLogStart"}\n') == b'{"Event":"SparkListenerLogStart"}\n'
