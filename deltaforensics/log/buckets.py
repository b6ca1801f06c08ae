"""What S3 and GCS locations share: bucket URLs, option spellings, and failures in one line.

:mod:`deltaforensics.log.s3` and :mod:`deltaforensics.log.gcs` each name their options, their
credential kinds and their SDK's errors; the URL grammar (``SCHEME://BUCKET/PATH``), the
case-insensitive option tables, and the wording of an HTTP or network failure are the same for
both, and live here. Pure: no SDK is imported.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from deltaforensics.errors import StorageError, UsageError
from deltaforensics.log.options import redact


@dataclass(frozen=True, slots=True, kw_only=True)
class BucketUrl:
    """``s3://bucket/path``, ``gs://bucket/path``: the bucket, the table's prefix in it."""

    scheme: str
    bucket: str
    path: str  # no leading or trailing "/", "_delta_log" removed
    display_uri: str  # as typed, less query, fragment and any user info

    @property
    def root(self) -> str:
        return f"{self.bucket}/{self.path}" if self.path else self.bucket


def parse_bucket_url(uri: str) -> BucketUrl:
    scheme, _, rest = uri.strip().partition("://")
    authority = rest.split("/", 1)[0]
    if "@" in authority or (":" in authority and "@" in rest):
        # s3://KEY:SECRET@bucket/...: an old boto habit (a secret may hold "/"); never echoed
        shown = f"{scheme}://{rest.rpartition('@')[2].split('?', 1)[0]}"
        raise UsageError(f"{shown}: credentials in the URL are not used; pass storage options")
    parts = urlsplit(uri.strip())
    bucket = parts.netloc
    display = f"{parts.scheme}://{bucket}{parts.path}"
    segments = [unquote(s) for s in parts.path.split("/") if s]
    if segments and segments[-1] == "_delta_log":
        segments.pop()
    if not bucket:
        raise UsageError(f"{display}: the URL names no bucket")
    return BucketUrl(
        scheme=parts.scheme.lower(), bucket=bucket, path="/".join(segments), display_uri=display
    )


@dataclass(frozen=True, slots=True)
class OptionTable:
    """One store's option names: canonical name -> the other spellings accepted for it.

    ``ignored`` are names delta-rs option sets carry for writing (locking, conditional put):
    accepted so such a set works as is, and unused by a tool that only reads."""

    store: str  # "S3", "GCS": named in errors
    aliases: Mapping[str, tuple[str, ...]]
    ignored: frozenset[str] = frozenset()
    _canonical: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        table = {
            spelling: canonical
            for canonical, spellings in self.aliases.items()
            for spelling in (canonical, *spellings)
        }
        object.__setattr__(self, "_canonical", table)

    def canonical(self, key: str) -> str | None:
        return self._canonical.get(key.strip().lower())

    def normalize(
        self, options: Mapping[str, str], *, source: str = "storage options"
    ) -> dict[str, str]:
        """Every key onto its canonical name; unknown keys and contradictions are usage errors
        that name the key, never the value."""
        out: dict[str, str] = {}
        origin: dict[str, str] = {}
        for key, value in options.items():
            if key.strip().lower() in self.ignored:
                continue
            name = self.canonical(key)
            if name is None:
                shown = key if key.strip().replace("_", "").isalnum() else "<not a name>"
                err = UsageError(f"unknown {self.store} storage option '{shown}'")
                err.add_note("hint: known names are " + ", ".join(sorted(self.aliases)))
                err.add_note(
                    "hint: delta-rs / object_store spellings (AWS_ACCESS_KEY_ID, "
                    "GOOGLE_SERVICE_ACCOUNT, ...) also work, in any case"
                )
                raise err
            text = str(value).strip()
            if name in out and out[name] != text:
                raise UsageError(
                    f"{source} '{origin[name]}' and '{key}' give different values for {name}"
                )
            out[name] = text
            origin[name] = key
        return out

    def from_env(self, environ: Mapping[str, str], prefixes: tuple[str, ...]) -> dict[str, str]:
        """The settings the environment gives in any accepted spelling with one of
        ``prefixes``; unrelated variables of those prefixes are ignored."""
        picked = {
            name: value
            for name, value in environ.items()
            if value
            and name.upper().startswith(prefixes)
            and self.canonical(name) is not None
            and name.strip().lower() not in self.ignored
        }
        return self.normalize(picked, source="environment variables")


def settings_with_sources(
    given: Mapping[str, str], env: Mapping[str, str], credentials: frozenset[str]
) -> tuple[dict[str, str], dict[str, str]]:
    """Options over the environment, and where each came from. Explicit credentials replace
    ambient ones wholesale: a key from the options never pairs with a token from the shell."""
    if credentials & given.keys():
        env = {k: v for k, v in env.items() if k not in credentials}
    source = dict.fromkeys(given, "storage options")
    source.update({k: "environment" for k in env if k not in given})
    return {**env, **given}, source


@dataclass(frozen=True, slots=True)
class BucketErrorClassifier:
    """``classify`` hook: any exception -> one short reason, redacted, naming the host; each
    store says what its SDK's errors mean in ``_reason``."""

    host: str
    credential: str
    anonymous: bool
    secrets: Mapping[str, str] = field(repr=False)

    def __call__(self, exc: BaseException) -> str:
        return self.reason(exc)[0]

    def reason(self, exc: BaseException) -> tuple[str, bool]:
        """The safe reason, and whether a retry may help."""
        if isinstance(exc, BucketIOError):
            return str(exc), exc.transient
        found = self._reason(exc)
        if found is None:
            found = network_reason(exc, self.host)
        if found is None:
            found = (
                ("path not found", False)
                if isinstance(exc, FileNotFoundError)
                else (f"{type(exc).__name__}: {first_line(exc)}", False)
            )
        return redact(found[0], self.secrets), found[1]

    def _reason(self, exc: BaseException) -> tuple[str, bool] | None:
        raise NotImplementedError

    def io_error(self, exc: BaseException) -> BucketIOError:
        reason, transient = self.reason(exc)
        return BucketIOError(reason, transient=transient)


class ClassifiedReads:
    """Mixin before an fsspec filesystem: reads and stats fail as :class:`BucketIOError`
    (one safe line), except "not found", which storage.py words itself. ``sdk_errors`` are
    the exceptions the SDK raises besides ``OSError``."""

    classify: BucketErrorClassifier
    connection: Any  # the store's connection: bucket, host, display_uri
    sdk_errors: tuple[type[BaseException], ...] = ()

    def _no_bucket(self) -> StorageError:
        conn = self.connection
        hint = " (or it is private: no credentials were given)" if self.classify.anonymous else ""
        return StorageError(
            conn.display_uri, f"bucket '{conn.bucket}' not found at {conn.host}{hint}"
        )

    async def _cat_file(self, path: str, *args: Any, **kwargs: Any) -> Any:
        errors: tuple[type[BaseException], ...] = (OSError, *self.sdk_errors)
        try:
            return await super()._cat_file(path, *args, **kwargs)  # type: ignore[misc]
        except FileNotFoundError:
            raise
        except errors as exc:
            raise self.classify.io_error(exc) from None

    async def _info(self, path: str, *args: Any, **kwargs: Any) -> Any:
        errors: tuple[type[BaseException], ...] = (OSError, *self.sdk_errors)
        try:
            return await super()._info(path, *args, **kwargs)  # type: ignore[misc]
        except FileNotFoundError:
            raise
        except errors as exc:
            raise self.classify.io_error(exc) from None


class BucketIOError(OSError):
    """A store failure reduced to one safe line; ``transient`` tells storage.py to retry."""

    def __init__(self, reason: str, *, transient: bool) -> None:
        super().__init__(reason)
        self.transient = transient


@dataclass(frozen=True, slots=True)
class Failure:
    """What an SDK error says, independent of the SDK: HTTP status and error code, if any."""

    status: int | None
    code: str
    text: str


_EXPIRED = ("expiredtoken", "tokenrefreshrequired", "requestexpired", "expired")
_REJECTED = (
    "invalidaccesskeyid",
    "signaturedoesnotmatch",
    "invalidtoken",
    "invalidclienttokenid",
    "authenticationrequired",
    "unauthorized",
    "invalid credentials",
)
_TRANSIENT_CODES = ("slowdown", "throttl", "requesttimeout", "serviceunavailable", "internalerror")


def http_reason(failure: Failure, *, credential: str, anonymous: bool) -> tuple[str, bool]:
    """One reason for an HTTP failure, and whether a retry may help."""
    status, code, text = failure.status or 0, failure.code, failure.text.lower()
    said = f"{code} {text}".lower()
    shown = code or str(status)
    if status >= 500 or status in (408, 429) or any(w in said for w in _TRANSIENT_CODES):
        return (
            f"service temporarily unavailable (HTTP {' '.join(filter(None, (str(status), code)))})",
            True,
        )
    if any(w in said for w in _EXPIRED) and status in (400, 401, 403):
        return f"authentication failed: {credential} has expired ({shown})", False
    if status == 401 or any(w in said for w in _REJECTED):
        if anonymous:
            return "authentication failed: anonymous access was refused; pass credentials", False
        return f"authentication failed: {credential} was rejected ({shown})", False
    if status == 403:
        if anonymous:
            return "access denied to anonymous access; pass credentials", False
        return f"not authorised: {credential} lacks permission for this ({shown})", False
    if status == 404:
        return ("bucket not found" if "bucket" in said else "path not found"), False
    return f"HTTP {' '.join(filter(None, (str(status), code)))}: {first_line(failure.text)}", False


def network_reason(exc: BaseException, host: str) -> tuple[str, bool] | None:
    """``cannot reach HOST: ...`` for a failure to connect or read, else ``None``."""
    chain = list(causes(exc))
    text = " ".join(f"{type(c).__name__} {c}" for c in chain).lower()
    if any(isinstance(c, TimeoutError) for c in chain) or "timed out" in text or "timeout" in text:
        return f"cannot reach {host}: connection timed out", True
    if any(isinstance(c, socket.gaierror) for c in chain) or "name or service" in text:
        return f"cannot reach {host}: host name not found", False
    if any(isinstance(c, ConnectionRefusedError) for c in chain) or "refused" in text:
        return f"cannot reach {host}: connection refused", False
    if "connection reset" in text or "disconnected" in text or "connection aborted" in text:
        return f"connection reset by {host} while reading", True
    if "could not connect" in text or "cannot connect" in text or "connect call failed" in text:
        return f"cannot reach {host}: {first_line(chain[-1])}", False
    return None


def causes(exc: BaseException) -> Iterator[BaseException]:
    """The exception and its causes and contexts, each once."""
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        stack.extend(e for e in (current.__cause__, current.__context__) if e is not None)


def first_line(exc: BaseException | str) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:200] if lines else type(exc).__name__


__all__ = [
    "BucketErrorClassifier",
    "BucketIOError",
    "BucketUrl",
    "ClassifiedReads",
    "Failure",
    "OptionTable",
    "causes",
    "first_line",
    "http_reason",
    "network_reason",
    "parse_bucket_url",
    "settings_with_sources",
]
