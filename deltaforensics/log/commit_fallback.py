"""The general way of reading commit files, for every chunk the fast path declines, and the
exact path for the files polars would misread.

polars' NDJSON reader re-serialises an object read into a String column without escaping most
backslash escapes, nor a quote or newline inside an object key, and may coerce a list or object
into a String field: a file with such content is read line by line by
:mod:`deltaforensics.log.commit_lines` (which also names a file, line and problem when the JSON
is bad) and its rows patched in (:func:`patch_exact`).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence

import numpy as np
import polars as pl

from deltaforensics.log.commit_lines import Blob, read_exactly
from deltaforensics.log.commit_schemas import Schema, narrowed, without_version
from deltaforensics.log.duplicate_keys import files_with_possible_duplicate_keys
from deltaforensics.log.joined_commits import join_commits
from deltaforensics.model.actions import check_metadata
from deltaforensics.model.schemas import RAW_ACTION_SCHEMA

# A backslash escape polars does not re-serialise intact when it reads an object into a String
# column (measured: only \", \/ and \n survive); a file holding one takes the exact path.
ESCAPES_POLARS_MANGLES = re.compile(rb'\\[^"/n]')


def _body(data: bytes) -> bytes:
    body = data.strip()
    return body[3:].lstrip() if body.startswith(b"\xef\xbb\xbf") else body


def inject_version(version: int, data: bytes) -> bytes:
    """Prefix every line of one commit file with its version; ``b""`` for an empty file."""
    body = _body(data)
    if not body:
        return b""
    prefix = b'{"_v":%d,' % version
    return prefix + body[1:].replace(b"\n{", b"\n" + prefix) + b"\n"


def parse_raw(buffer: bytes, schema: Schema = RAW_ACTION_SCHEMA) -> pl.DataFrame:
    if not buffer:
        return pl.DataFrame(schema=schema)
    return pl.read_ndjson(io.BytesIO(buffer), schema=schema)


def _read_plain(blobs: Sequence[Blob], schema: Schema) -> pl.DataFrame | None:
    """Join the files as they are; the version column comes from per-file line counts.

    Only when every non-empty file starts with ``{`` and so does every line after the first
    (no blank lines, BOM or stray text: one line is one row), and the parsed row count equals
    the line count. Otherwise ``None``, and the files go through ``inject_version`` as before.
    Saves the per-file strip/slice/replace copies (0.33 s -> ~0.1 s for 82 MB in 20k files).
    """
    parts: list[bytes] = []
    counts = np.zeros(len(blobs), dtype=np.int64)
    versions = np.empty(len(blobs), dtype=np.int64)
    for i, (version, _, data) in enumerate(blobs):
        versions[i] = version
        if not data:
            continue
        ends = data.endswith(b"\n")
        lines = data.count(b"\n") + (0 if ends else 1)
        if data[:1] != b"{" or data.count(b"\n{") != lines - 1:
            return None
        counts[i] = lines
        parts.append(data if ends else data + b"\n")
    total = int(counts.sum())
    if not total:
        return None
    try:
        raw = pl.read_ndjson(io.BytesIO(b"".join(parts)), schema=without_version(schema))
    except (pl.exceptions.PolarsError, ValueError):
        return None
    if raw.height != total:
        return None
    return raw.insert_column(0, pl.Series("_v", np.repeat(versions, counts)))


def read_in_general(blobs: Sequence[Blob], schema: Schema = RAW_ACTION_SCHEMA) -> pl.DataFrame:
    """Every case :func:`parse_clean` declines: BOMs, blank lines, files not starting with a
    JSON object, parse errors. polars re-serialises an object read into a String column without
    escaping backslashes, tabs or control characters inside its string values (measured: only
    ``\\"``, ``\\/`` and ``\\n`` survive), so a file whose JSON holds any other escape (JSON text
    nested in a string, as delta-rs CREATE TABLE writes) is read by the exact path instead; and
    without escaping a quote inside an object key, which is caught in its output
    (:func:`_mangled_key_versions`).
    """
    if any(
        data[:1] != b"{" and (b := _body(data)) and not b.startswith(b"{") for _, _, data in blobs
    ):
        # names the file whose first line is not a JSON object
        return narrowed(read_exactly(blobs), schema)
    escaped = {i for i, (_, _, data) in enumerate(blobs) if ESCAPES_POLARS_MANGLES.search(data)}
    exact = sorted(escaped | _files_repeating_a_key(blobs, escaped))
    exact_set = set(exact)  # once: `i not in set(exact)` per file was O(files x exact)
    fast = [blob for i, blob in enumerate(blobs) if i not in exact_set] if exact else list(blobs)
    plain = _read_plain(fast, schema)
    if plain is not None:
        raw = plain
    else:
        buffer = b"".join(inject_version(v, data) for v, _, data in fast)
        try:
            raw = parse_raw(buffer, schema)
        except (pl.exceptions.PolarsError, ValueError):
            return narrowed(read_exactly(blobs), schema)
        if raw["_v"].null_count():
            return narrowed(read_exactly(blobs), schema)
    return patch_exact(raw, exact, blobs, schema)


def _files_repeating_a_key(blobs: Sequence[Blob], escaped: set[int]) -> set[int]:
    """Indices of the files (not already escaped) that may repeat a key in one object."""
    others = [i for i in range(len(blobs)) if i not in escaped]
    joined = join_commits([blobs[i] for i in others])
    data = np.frombuffer(joined.buffer, dtype=np.uint8)
    found = files_with_possible_duplicate_keys(data, joined.stops)
    return {others[i] for i in np.flatnonzero(found).tolist()}


def patch_exact(
    raw: pl.DataFrame, exact: list[int], blobs: Sequence[Blob], schema: Schema = RAW_ACTION_SCHEMA
) -> pl.DataFrame:
    mangled = _mangled_key_versions(raw) | _coerced_versions(raw) | _misshapen_metadata(raw)
    if mangled:  # keys holding a quote, coerced values: those files take the exact path too
        raw = raw.filter(~pl.col("_v").is_in(sorted(mangled)))
        exact = sorted(set(exact) | {i for i, (v, _, _) in enumerate(blobs) if v in mangled})
    if not exact:
        return raw
    patched = pl.concat(
        [raw, narrowed(read_exactly([blobs[i] for i in exact]), schema)], how="vertical"
    )
    return patched.sort("_v", maintain_order=True)


# In text polars re-serialised from a JSON object, every quote is structural (after `{ [ , :`
# or a space, before `: , } ]`) or escaped. A quote with other neighbours on both sides is one
# that polars failed to escape: it does so for quotes inside object *keys* (measured, 2.1).
# Nor does it escape a newline in a key (`{"\n": ""}` comes back with a raw line break, which
# valid JSON text never holds: in a value polars writes `\n`).
_UNESCAPED_IN_KEY = r'[^\\{\[:,\s]"[^:,}\]]|\n'

_OBJECT_TEXT = ("commitInfo", "metaData", "protocol", "checkpointMetadata")

_OBJECT_FIELDS = (("add", "partitionValues"), ("add", "tags"), ("remove", "partitionValues"))


def _mangled_key_versions(raw: pl.DataFrame) -> set[int]:
    """Versions whose objects polars re-serialised with an unescaped quote or newline in a key."""
    if raw.is_empty():
        return set()
    texts = [pl.col(c) for c in _OBJECT_TEXT if c in raw.columns]
    texts += [
        pl.col(a).struct.field(f)
        for a, f in _OBJECT_FIELDS
        if isinstance(kind := raw.schema.get(a), pl.Struct) and f in {x.name for x in kind.fields}
    ]
    hit = pl.any_horizontal(t.str.contains(_UNESCAPED_IN_KEY).fill_null(False) for t in texts)
    return set(raw.select(pl.col("_v").filter(hit))["_v"].unique().to_list())


def _misshapen_metadata(raw: pl.DataFrame) -> set[int]:
    """Versions whose metaData has a field of the wrong shape (``partitionColumns`` a string,
    ``configuration`` a list): the exact path names file, line and field. A log has a few
    metaData actions, each decoded here once."""
    if "metaData" not in raw.columns or raw.schema["metaData"] != pl.String:
        return set()
    found = set()
    for version, text in (
        raw.filter(pl.col("metaData").is_not_null()).select("_v", "metaData").iter_rows()
    ):
        try:
            doc = json.loads(text)
            if isinstance(doc, dict):
                check_metadata(doc)
        except ValueError:
            found.add(version)
    return found


def _coerced_versions(raw: pl.DataFrame) -> set[int]:
    """Versions where polars may have coerced a file action's field into a String column that
    the exact path would refuse: no path, a path or partition values read from a list or object
    text where a string or a flat object belongs, a path read from a number or a boolean (issue
    #32). A real path starting with ``[``, one that is all digits, or a partition value holding
    a bracket lands here too, and the exact path reads it unchanged."""
    hits: list[pl.Expr] = []
    for kind in ("add", "remove"):
        if kind not in raw.columns or raw.schema[kind] == pl.Null:
            continue
        action = pl.col(kind)
        path = action.struct.field("path")
        pv = action.struct.field("partitionValues")
        flat_object = pv.str.contains(r"^\{[^{\[]*$")  # a JSON object with no list or object inside
        hits.append(
            action.is_not_null()
            & (
                path.is_null()
                | path.str.contains(r"^([\[{]|-?[0-9][0-9.eE+-]*$|true$|false$)")
                | ~flat_object.fill_null(True)
            )
        )
    if not hits or raw.is_empty():
        return set()
    found = raw.select(pl.col("_v").filter(pl.any_horizontal(hits)))["_v"]
    return set(found.unique().to_list())
