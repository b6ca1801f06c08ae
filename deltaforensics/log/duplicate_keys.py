"""Commit files that may repeat a key inside one JSON object, found without a per-line loop.

Readers disagree on ``{"path":"a","path":"b"}``: Jackson (Delta-Spark) keeps the last value,
serde_json as delta-rs configures it rejects the line, polars keeps the first and Python's
:mod:`json` the last. No answer is right, so the exact line reader
(:mod:`deltaforensics.log.commit_lines`) refuses such a line naming the key; this module only
says which files must go there, so the polars fast path never reads one.

The scan is vectorised over the joined buffer of a chunk (numpy, never a Python loop per line)
and has two passes. The first pairs the quotes and compares every key of a line with the
others of the same line, whatever object holds them: in a log as writers write it no line
repeats a key name, so it passes nearly every line at the cost of a few sweeps over the bytes.
The second places each key of the lines left in its object by following the brackets, and
compares keys inside one object only (a partition column named ``size`` is no duplicate of
``add.size``). It relies on what the fast path
already guarantees: a file with any escape other than ``\\"``, ``\\/`` or ``\\n`` has been sent
to the exact path (``ESCAPES_POLARS_MANGLES``), so on the files it vouches for a quote delimits
a string exactly when the byte before it is not a backslash. The second pass counts quotes
and brackets per line, so a broken line cannot shift what it sees on the next one. Keys are compared
inside their enclosing object by a 64-bit mix of their bytes: equal keys always match; two
different keys matching only sends the file to the exact path, which then reads it correctly.
What the scan cannot vouch for (an escape inside a key, a key over 64 bytes, a blank before a
colon, nesting deeper than the exact reader allows, a line that is not balanced JSON) sends the
file there too.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from deltaforensics.log.commit_lines import MAX_JSON_DEPTH

_Ints = npt.NDArray[np.int64]
_Bools = npt.NDArray[np.bool_]
_Bytes = npt.NDArray[np.uint8]
_Mixes = npt.NDArray[np.uint64]
_QUOTE, _BACKSLASH, _NEWLINE, _COLON, _BRACE, _SLASH = 34, 92, 10, 58, 123, 47
_STEP = np.zeros(256, dtype=np.int64)
_STEP[[123, 91]], _STEP[[125, 93]] = 1, -1
_SPACES = np.zeros(256, dtype=np.bool_)
_SPACES[[32, 9, 13]] = True
_BLOCK = 1 << 24
_LONGEST_KEY = 64  # bytes compared in full; a longer key is left to the exact reader
_HIGH_HALF = np.uint64(32)


def files_with_possible_duplicate_keys(
    data: _Bytes, stops: _Ints, newlines: _Ints | None = None
) -> _Bools:
    """Per file (``stops[i]`` is where file ``i``'s part of ``data`` ends): whether a line of
    it may hold one key twice in one object, or could not be vouched for. ``newlines``: the
    buffer's newline positions, when the caller has them."""
    out = np.zeros(stops.size, dtype=np.bool_)
    if newlines is None:
        newlines = newline_positions(data)
    lines = _lines_repeating_a_name(data, newlines)
    if not lines[0].size:
        return out
    compact, origin = _only(data, *lines)
    at = origin[_suspect_positions(compact)]
    if at.size:
        out[np.searchsorted(stops, at, side="right").clip(max=stops.size - 1)] = True
    return out


def _quotes(data: _Bytes) -> tuple[_Ints, _Ints]:
    """Positions of the unescaped quotes, and of any ``\\/`` escape's slash. In blocks, to
    bound the temporaries."""
    quotes: list[_Ints] = [np.zeros(0, dtype=np.int64)]
    slashes = list(quotes)
    for at in range(0, data.size, _BLOCK):
        block = data[at : at + _BLOCK]
        escaped = np.empty(block.size, dtype=np.bool_)
        escaped[0] = at > 0 and data[at - 1] == _BACKSLASH
        np.equal(block[:-1], _BACKSLASH, out=escaped[1:])
        quotes.append(np.flatnonzero((block == _QUOTE) & ~escaped) + at)
        slash = (block == _SLASH) & escaped
        if slash.any():
            slashes.append(np.flatnonzero(slash) + at)
    return np.concatenate(quotes), np.concatenate(slashes)


def newline_positions(data: _Bytes) -> _Ints:
    """Where each newline is, in blocks."""
    parts = [np.zeros(0, dtype=np.int64)]
    parts += [
        np.flatnonzero(data[at : at + _BLOCK] == _NEWLINE) + at
        for at in range(0, data.size, _BLOCK)
    ]
    return np.concatenate(parts)


def _lines_repeating_a_name(data: _Bytes, newlines: _Ints) -> tuple[_Ints, _Ints]:
    """The first pass: ``(starts, stops)`` of the lines where a key name occurs twice in any of
    the line's objects, or that it cannot vouch for."""
    quotes, escaped = _quotes(data)
    starts = np.concatenate(([0], newlines + 1))
    stops = np.append(newlines, data.size)
    counts = np.diff(np.searchsorted(quotes, starts), append=quotes.size)
    unpaired = counts % 2 == 1  # not JSON, or an escaped backslash before a quote: pass two
    if unpaired.any():
        quotes = quotes[np.repeat(~unpaired, counts)]
    opening, closing = quotes[0::2], quotes[1::2]
    after = data[np.minimum(closing + 1, data.size - 1)]
    spaced = _SPACES[after]
    named = ((after == _COLON) & (closing + 1 < data.size)) | spaced
    opening, closing, spaced = opening[named], closing[named], spaced[named]
    mixed = _quick_signature(data, opening + 1, closing - opening - 1)
    counts = np.diff(np.searchsorted(closing, starts), append=closing.size)
    line = np.repeat(np.arange(starts.size, dtype=np.uint64), counts)
    combined = (line << _HIGH_HALF) | (mixed >> _HIGH_HALF)
    ranked = np.sort(combined)
    again = ranked[1:][ranked[1:] == ranked[:-1]] >> _HIGH_HALF
    picked = np.union1d(again.astype(np.int64), line[spaced].astype(np.int64))
    picked = np.union1d(picked, np.flatnonzero(unpaired))
    if escaped.size:  # one key may be spelled two ways, a\/b and a/b: the second pass sees it
        picked = np.union1d(picked, np.searchsorted(newlines, escaped))
    return starts[picked], stops[picked]


def _only(data: _Bytes, starts: _Ints, stops: _Ints) -> tuple[_Bytes, _Ints]:
    """The given lines joined, each ending in a newline, and each byte's position in ``data``."""
    sizes = stops - starts + 1
    ends = np.cumsum(sizes)
    origin = np.arange(int(ends[-1]), dtype=np.int64) + np.repeat(starts - (ends - sizes), sizes)
    compact = data[np.minimum(origin, data.size - 1)]
    compact[ends - 1] = _NEWLINE
    return compact, np.minimum(origin, data.size - 1)


def _tokens(data: _Bytes) -> _Ints:
    """Positions of the bytes that shape JSON: unescaped quotes, brackets and newlines."""
    parts: list[_Ints] = []
    for at in range(0, data.size, _BLOCK):
        block = data[at : at + _BLOCK]
        folded = block | 0x20  # { and [ become 0x7B, } and ] 0x7D
        quote = block == _QUOTE
        quote[1:] &= block[:-1] != _BACKSLASH
        if at:
            quote[0] &= data[at - 1] != _BACKSLASH
        shape = quote | (block == _NEWLINE) | (folded == 0x7B) | (folded == 0x7D)
        parts.append(np.flatnonzero(shape) + at)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _suspect_positions(data: _Bytes) -> _Ints:
    """The second pass: one position inside each line that may repeat a key in one object."""
    at = _tokens(data)
    if not at.size:
        return at
    kind = data[at]
    quote = kind == _QUOTE
    newline = kind == _NEWLINE
    line = np.cumsum(newline) - newline  # the line each token is on
    quotes_before = np.cumsum(quote) - quote
    inside = (quotes_before - np.concatenate(([0], quotes_before[newline]))[line]) % 2 == 1
    step = np.where(inside, 0, _STEP[kind])
    total = np.cumsum(step)
    depth = total - np.concatenate(([0], total[newline]))[line]  # open after it, in its line
    suspect = [at[(newline & (inside | (depth != 0))) | (depth < 0) | (depth > MAX_JSON_DEPTH)]]
    closing = np.flatnonzero(quote & inside)  # a quote counted as inside a string closes it
    after = data[np.minimum(at[closing] + 1, data.size - 1)]
    suspect.append(at[closing[_SPACES[after]]])  # a blank before a colon: not vouched for
    keys = closing[(after == _COLON) & (at[closing] + 1 < data.size)]
    if keys.size:
        suspect.append(_repeated(data, at, kind, keys, (quote, step > 0), depth, line))
    return np.concatenate(suspect)


def _repeated(
    data: _Bytes,
    at: _Ints,
    kind: _Bytes,
    keys: _Ints,
    marks: tuple[_Bools, _Bools],
    depth: _Ints,
    line: _Ints,
) -> _Ints:
    """Positions of keys (given by their closing quote's token) that repeat a key of their
    object, or that the scan cannot place in an object."""
    quote, opened = marks
    quotes = np.flatnonzero(quote)
    opening = quotes[np.searchsorted(quotes, keys) - 1]  # the quote before a closing one
    level = depth[opening]
    owner = np.full(keys.size, -1, dtype=np.int64)
    for lvl in np.unique(level[(level > 0) & (level <= MAX_JSON_DEPTH)]).tolist():
        # the object a key at level L belongs to is the last container opened to L before it
        opens = np.flatnonzero(opened & (depth == lvl))
        mine = np.flatnonzero(level == lvl)
        seen = np.searchsorted(opens, opening[mine]) - 1
        owner[mine] = np.where(seen >= 0, opens[seen.clip(min=0)], -1)
    placed = owner >= 0
    lost = ~placed
    lost[placed] = (kind[owner[placed]] != _BRACE) | (line[owner[placed]] != line[opening[placed]])
    start = at[opening] + 1
    mixed, unsure = _signature(data, start, at[keys] - start)
    # the owner's token index and half the mix: two of ~20 keys in one object share that half
    # by chance about once in 10^7 objects, which only costs an exact read
    combined = (owner.astype(np.uint64) << _HIGH_HALF) | (mixed >> _HIGH_HALF)
    ranked = np.sort(combined)
    again = ranked[1:][ranked[1:] == ranked[:-1]]
    twice = np.isin(combined, again) if again.size else np.zeros(keys.size, dtype=np.bool_)
    return at[opening[twice | lost | unsure]]


_MIX = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5],
    dtype=np.uint64,
)
_BACKSLASHES = np.uint64(0x5C5C5C5C5C5C5C5C)
_LOW, _HIGH = np.uint64(0x0101010101010101), np.uint64(0x8080808080808080)
_ALL = ~np.uint64(0)


def _words(data: _Bytes, at: _Ints) -> _Mixes:
    """The eight bytes from each position as a little-endian integer, zeros past the end."""
    if data.size < 8:
        padded = np.concatenate((data, np.zeros(8, dtype=np.uint8)))
        return _words(padded, at)
    words = np.ndarray((data.size - 7,), dtype="<u8", buffer=data, strides=(data.strides[0],))
    last = data.size - 8
    out = words[np.clip(at, 0, last)]  # a negative position only where the caller masks it
    late = np.flatnonzero(at > last)
    if late.size:  # the buffer's last few bytes: shifted down, the missing high bytes zero
        shift = ((at[late] - last) * 8).astype(np.uint64)
        out[late] = words[last] >> shift
    return out


def _quick_signature(data: _Bytes, start: _Ints, length: _Ints) -> _Mixes:
    """A 64-bit mix of each key's length and first and last eight bytes: equal keys (on the
    fast path one key has one spelling, but for ``\\/``) give equal mixes."""
    short = np.minimum(length, 8).astype(np.uint64)
    mask = np.where(short >= 8, _ALL, (np.uint64(1) << (short % 8 * 8)) - np.uint64(1))
    first = _words(data, start) & mask
    tail = np.where(length > 8, _words(data, start + length - 8), np.uint64(0))
    with np.errstate(over="ignore"):
        mixed: _Mixes = first * _MIX[0] ^ tail * _MIX[1] ^ length.astype(np.uint64) * _MIX[2]
        mixed ^= mixed >> np.uint64(31)
    return mixed


def _signature(data: _Bytes, start: _Ints, length: _Ints) -> tuple[_Mixes, _Bools]:
    """A 64-bit mix of each key's bytes and length (equal keys, equal mixes), and whether the
    key is one the scan cannot vouch for: over ``_LONGEST_KEY`` bytes or holding an escape."""
    mixed = length.astype(np.uint64) * _MIX[2]
    unsure = length > _LONGEST_KEY
    with np.errstate(over="ignore"):
        for offset in range(0, _LONGEST_KEY, 8):
            part = np.flatnonzero((length > offset) & ~unsure)
            if not part.size:
                break
            left = np.minimum(length[part] - offset, 8).astype(np.uint64)
            mask = np.where(left >= 8, _ALL, (np.uint64(1) << (left % 8 * 8)) - np.uint64(1))
            word = _words(data, start[part] + offset) & mask
            # a zero byte of word ^ 0x5C.. is a backslash; bytes past the key are set non-zero
            probe = (word ^ _BACKSLASHES) | ~mask
            unsure[part] |= ((probe - _LOW) & ~probe & _HIGH) != 0
            mixed[part] = (mixed[part] ^ word) * _MIX[offset // 8 % 4]
            mixed[part] ^= mixed[part] >> np.uint64(31)
    return mixed, unsure
