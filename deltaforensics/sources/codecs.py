"""Spark's event-log codecs, decoded as a stream of pieces: never a whole file in memory.

Spark compresses an event log with its ``CompressionCodec`` (``spark.eventLog.compression
.codec``), which wraps a Java stream whose framing the usual Python frame decoders do not read.
The framing is decoded here; the blocks inside go to block decoders (``cramjam``):

- ``zstd``: standard Zstandard frames (zstd-jni); ``zstandard``'s streaming reader, across frames.
- ``lz4``: net.jpountz ``LZ4BlockOutputStream``. Each block: the magic ``LZ4Block`` (8 bytes), a
  token (high nibble: 0x10 stored, 0x20 LZ4-compressed; low nibble: log2 of the block size - 10),
  the compressed and decompressed lengths and an xxhash32 checksum, each a little-endian int32,
  then the block. An empty block ends a stream; Spark reads concatenated streams on, so do we.
  The checksum is not verified (a wrong block fails the LZ4 decoder or its stated length).
- ``snappy``: xerial snappy-java ``SnappyOutputStream``. A 16-byte header (``\\x82SNAPPY\\x00``,
  version and compatible version, big-endian int32), then chunks: a big-endian int32 length and
  a raw Snappy block. A header may start again at a chunk boundary (concatenated streams).
- ``lzf``: ning compress-lzf ``LZFOutputStream`` chunks: ``ZV``, a type byte (0 stored, 1
  compressed), the big-endian uint16 length (and, compressed, the uint16 decompressed length),
  then the chunk; LZF itself is decoded in Python here (no LZF block decoder is a dependency:
  slow, but Spark's default is zstd and lzf is rare).
- gzip (Databricks' rotated parts, ``.gz``) and plain text.

The format is recognised from the first bytes (magic numbers), not from the name. A block that
cannot be decoded raises :class:`CorruptDataError` after every good piece before it was yielded.
Sources of the formats (read for semantics): lz4-java ``LZ4BlockOutputStream``, snappy-java
``SnappyOutputStream``/``SnappyCodec``, compress-lzf ``LZFChunk``/``ChunkDecoder``, Spark's
``CompressionCodec.scala``.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from collections.abc import Iterator
from typing import IO

import cramjam
import zstandard

PIECE = 1 << 20

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
LZ4_MAGIC = b"LZ4Block"
SNAPPY_MAGIC = b"\x82SNAPPY\x00"
LZF_MAGIC = b"ZV"
GZIP_MAGIC = b"\x1f\x8b"

_LZ4_HEADER = struct.Struct("<8sBiii")
_SNAPPY_HEADER = 16


class CorruptDataError(ValueError):
    """A compressed stream that cannot be decoded past some point (truncated or damaged);
    ``truncated``: it only stops early (as a running application's file does)."""

    def __init__(self, message: str, *, truncated: bool = False) -> None:
        super().__init__(message)
        self.truncated = truncated


def detect(head: bytes) -> str:
    """``zstd``, ``lz4``, ``snappy``, ``lzf``, ``gzip`` or ``text`` from a file's first bytes."""
    if head.startswith(ZSTD_MAGIC):
        return "zstd"
    if head.startswith(LZ4_MAGIC):
        return "lz4"
    if head.startswith(SNAPPY_MAGIC):
        return "snappy"
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(LZF_MAGIC) and len(head) > 2 and head[2] in (0, 1):
        return "lzf"
    return "text"


class _Peeked:
    """A stream with its first bytes read already (to recognise the format) put back in front."""

    def __init__(self, head: bytes, stream: IO[bytes]) -> None:
        self._head = head
        self._stream = stream

    def read(self, size: int = -1) -> bytes:
        if self._head:
            if size < 0:
                out, self._head = self._head + self._stream.read(), b""
                return out
            out, self._head = self._head[:size], self._head[size:]
            if len(out) < size:
                out += self._stream.read(size - len(out))
            return out
        return self._stream.read(size)


def decoded_pieces(stream: IO[bytes], piece: int = PIECE) -> Iterator[bytes]:
    """The decompressed bytes of ``stream`` in pieces of about ``piece`` bytes."""
    head = stream.read(16)
    codec = detect(head)
    source = _Peeked(head, stream)
    if codec == "zstd":
        yield from _zstd(source, piece)
    elif codec == "lz4":
        yield from _lz4(source)
    elif codec == "snappy":
        yield from _snappy(source)
    elif codec == "lzf":
        yield from _lzf(source)
    elif codec == "gzip":
        yield from _gzip(source, piece)
    else:
        while chunk := source.read(piece):
            yield chunk


def _zstd(source: _Peeked, piece: int) -> Iterator[bytes]:
    reader = zstandard.ZstdDecompressor().stream_reader(source, read_across_frames=True)  # type: ignore[arg-type]
    while True:
        try:
            chunk = reader.read(piece)
        except zstandard.ZstdError as exc:
            raise CorruptDataError(f"zstd: {exc}") from None
        if not chunk:
            return
        yield chunk


def _gzip(source: _Peeked, piece: int) -> Iterator[bytes]:
    with gzip.GzipFile(fileobj=source, mode="rb") as reader:  # type: ignore[call-overload]
        while True:
            try:
                chunk = reader.read(piece)
            except (EOFError, OSError, zlib.error) as exc:
                raise CorruptDataError(f"gzip: {exc}") from None
            if not chunk:
                return
            yield chunk


def _exactly(source: _Peeked, size: int, what: str) -> bytes:
    data = source.read(size)
    if len(data) != size:
        raise CorruptDataError(f"{what}: {len(data)} of {size} bytes (truncated)", truncated=True)
    return data


def _lz4(source: _Peeked) -> Iterator[bytes]:
    while True:
        header = source.read(_LZ4_HEADER.size)
        if not header:
            return
        if len(header) < _LZ4_HEADER.size:
            raise CorruptDataError("lz4: truncated block header", truncated=True)
        magic, token, compressed, length, _checksum = _LZ4_HEADER.unpack(header)
        method = token & 0xF0
        if magic != LZ4_MAGIC or method not in (0x10, 0x20) or compressed < 0 or length < 0:
            raise CorruptDataError("lz4: not an LZ4Block header")
        if length == 0:
            continue  # end of one stream; another may follow
        block = _exactly(source, compressed, "lz4 block")
        if method == 0x10:
            if compressed != length:
                raise CorruptDataError("lz4: stored block with two lengths")
            yield block
            continue
        try:
            out = bytes(cramjam.lz4.decompress_block(block, output_len=length))
        except cramjam.DecompressionError as exc:
            raise CorruptDataError(f"lz4: {exc}") from None
        if len(out) != length:
            raise CorruptDataError(f"lz4: block decoded to {len(out)} bytes, header says {length}")
        yield out


def _snappy(source: _Peeked) -> Iterator[bytes]:
    _exactly(source, _SNAPPY_HEADER, "snappy header")
    while True:
        prefix = source.read(4)
        if not prefix:
            return
        if len(prefix) < 4:
            raise CorruptDataError("snappy: truncated chunk length", truncated=True)
        if prefix == SNAPPY_MAGIC[:4]:  # a concatenated stream's header
            rest = _exactly(source, _SNAPPY_HEADER - 4, "snappy header")
            if prefix + rest[:4] != SNAPPY_MAGIC:
                raise CorruptDataError("snappy: damaged stream header")
            continue
        (size,) = struct.unpack(">i", prefix)
        if size < 0:
            raise CorruptDataError("snappy: negative chunk length")
        block = _exactly(source, size, "snappy chunk")
        try:
            yield bytes(cramjam.snappy.decompress_raw(block))
        except cramjam.DecompressionError as exc:
            raise CorruptDataError(f"snappy: {exc}") from None


def _lzf(source: _Peeked) -> Iterator[bytes]:
    while True:
        head = source.read(5)
        if not head:
            return
        if len(head) < 5 and LZF_MAGIC.startswith(head[:2]):
            raise CorruptDataError("lzf: truncated chunk header", truncated=True)
        if head[:2] != LZF_MAGIC or head[2] not in (0, 1):
            raise CorruptDataError("lzf: not a ZV chunk header")
        size = (head[3] << 8) | head[4]
        if head[2] == 0:
            yield _exactly(source, size, "lzf chunk")
            continue
        extra = _exactly(source, 2, "lzf chunk header")
        length = (extra[0] << 8) | extra[1]
        yield lzf_block(_exactly(source, size, "lzf chunk"), length)


def lzf_block(src: bytes, length: int) -> bytes:
    """One LZF block (Marc Lehmann's format): a control byte below 32 is a literal run of
    ``ctrl + 1`` bytes; otherwise a back reference of ``(ctrl >> 5) + 2`` bytes (7 → one more
    length byte added), ``((ctrl & 31) << 8) + next byte + 1`` bytes back."""
    out = bytearray()
    i, n = 0, len(src)
    try:
        while i < n:
            ctrl = src[i]
            i += 1
            if ctrl < 32:
                out += src[i : i + ctrl + 1]
                i += ctrl + 1
                continue
            run = ctrl >> 5
            if run == 7:
                run += src[i]
                i += 1
            start = len(out) - ((ctrl & 0x1F) << 8) - src[i] - 1
            i += 1
            run += 2
            if start < 0:
                raise CorruptDataError("lzf: back reference before the block")
            if start + run <= len(out):
                out += out[start : start + run]
            else:  # overlapping: the run repeats bytes it is writing
                for k in range(run):
                    out.append(out[start + k])
    except IndexError:
        raise CorruptDataError("lzf: block ends inside an instruction") from None
    if len(out) != length:
        raise CorruptDataError(f"lzf: block decoded to {len(out)} bytes, header says {length}")
    return bytes(out)
