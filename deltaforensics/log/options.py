"""Storage options: loaded from flags or a file, normalised to one spelling, and redacted.

Users arrive with option sets written for adlfs (``account_key``), for delta-rs / object_store
(``azure_storage_account_key``) or for the Azure CLI (``AZURE_STORAGE_KEY``). All are accepted,
case-insensitively, and :func:`normalize_storage_options` maps them onto the adlfs names this
package uses. Only Azure has known names; other fsspec backends get their options as typed.

Secrets never leave this module in a message: errors name keys, never values, and :func:`redact`
scrubs every known secret (and anything shaped like a SAS signature or an account key) from text
before it is shown.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, unquote

from deltaforensics.errors import UsageError

# canonical (adlfs-style) name -> the other spellings accepted for it (all compared lower-case)
ALIASES: dict[str, tuple[str, ...]] = {
    "account_name": ("azure_storage_account_name", "azure_storage_account", "azure_account_name"),
    "account_key": (
        "azure_storage_account_key",
        "azure_storage_access_key",
        "azure_storage_master_key",
        "azure_storage_key",
        "access_key",
        "master_key",
    ),
    "sas_token": ("azure_storage_sas_token", "azure_storage_sas_key", "sas_key"),
    "connection_string": ("azure_storage_connection_string",),
    "bearer_token": ("azure_storage_token", "token"),
    "client_id": ("azure_client_id", "azure_storage_client_id"),
    "client_secret": ("azure_client_secret", "azure_storage_client_secret"),
    "tenant_id": (
        "azure_tenant_id",
        "azure_storage_tenant_id",
        "authority_id",
        "azure_authority_id",
        "azure_storage_authority_id",
    ),
    "anon": ("azure_storage_anon", "skip_signature", "azure_skip_signature"),
    "use_emulator": ("azure_storage_use_emulator", "azure_use_emulator"),
    "endpoint": ("azure_storage_endpoint", "azure_endpoint"),
    "account_host": (),
    "allow_http": ("azure_allow_http", "azure_storage_allow_http"),
    "use_azure_cli": ("azure_use_azure_cli",),
    "use_fabric_endpoint": ("azure_use_fabric_endpoint", "azure_storage_use_fabric_endpoint"),
    "max_concurrency": (),
    "connect_timeout": ("connection_timeout", "azure_connect_timeout"),
    "read_timeout": ("timeout", "azure_read_timeout"),
}
_CANONICAL: dict[str, str] = {
    spelling: canonical
    for canonical, spellings in ALIASES.items()
    for spelling in (canonical, *spellings)
}
SECRET_OPTIONS = frozenset(
    {"account_key", "sas_token", "connection_string", "bearer_token", "client_secret"}
)
BOOLEAN_OPTIONS = frozenset(
    {"anon", "use_emulator", "allow_http", "use_azure_cli", "use_fabric_endpoint"}
)
# words that mark an option of any backend (s3 "secret", gcs "token", ...) as secret for redact()
_SECRET_WORDS = (
    "key",
    "secret",
    "token",
    "password",
    "signature",
    "sas",
    "credential",
    "connection",
)
_KEY_SHAPE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,99}")
_TRUE = frozenset({"true", "1", "yes", "on", "t", "y"})
_FALSE = frozenset({"false", "0", "no", "off", "f", "n", ""})
_SCRUBS = (
    re.compile(r"(?i)(\bsig=)[^&\s'\"<>;]+"),
    re.compile(r"(?i)(AccountKey=)[^;\s'\"]+"),
    re.compile(r"(?i)(SharedAccessSignature=)[^;\s'\"]+"),
    re.compile(r"(?i)(\bBearer\s+)[A-Za-z0-9\-._~+/]+=*"),
    re.compile(r"(?i)(client_secret=)[^&\s'\"]+"),
)
REDACTED = "***"


def canonical_key(key: str) -> str | None:
    """The adlfs-style name for any accepted spelling of an Azure option, else ``None``."""
    return _CANONICAL.get(key.strip().lower())


def normalize_storage_options(
    options: Mapping[str, str], *, source: str = "storage options"
) -> dict[str, str]:
    """Map every key onto its canonical name; unknown keys and contradictions are usage errors.

    Two spellings of the same setting are fine when they agree (a delta-rs option set often
    carries both); when they disagree the user must say which one they meant.
    """
    out: dict[str, str] = {}
    origin: dict[str, str] = {}
    for key, value in options.items():
        canonical = canonical_key(key)
        if canonical is None:
            err = UsageError(f"unknown Azure storage option '{_shown_key(key)}'")
            err.add_note("hint: known names are " + ", ".join(sorted(ALIASES)))
            err.add_note("hint: delta-rs spellings (azure_storage_account_key, ...) also work")
            raise err
        text = str(value).strip()
        if canonical in out and out[canonical] != text:
            raise UsageError(
                f"{source} '{origin[canonical]}' and '{key}' give different values for {canonical}"
            )
        out[canonical] = text
        origin[canonical] = key
    return out


def storage_options_from_env(environ: Mapping[str, str]) -> dict[str, str]:
    """Azure settings from ``AZURE_*`` variables, in any spelling adlfs or delta-rs reads.

    Unrelated ``AZURE_*`` variables (there are many) are ignored, unlike explicit options.
    """
    picked = {
        name: value
        for name, value in environ.items()
        if name.upper().startswith("AZURE_") and canonical_key(name) is not None and value
    }
    return normalize_storage_options(picked, source="environment variables")


def parse_bool(key: str, value: str) -> bool:
    """``true/false``, ``1/0``, ``yes/no``, ``on/off``. Flags are not secret: errors echo them."""
    text = value.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise UsageError(f"storage option '{key}' must be true or false, not '{value}'")


def parse_seconds(key: str, value: str) -> float:
    """``30``, ``30s``, ``1.5``, ``500ms``, ``2m``: object_store's humantime forms that matter."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|m|min)?\s*", value.lower())
    if not match or float(match[1]) <= 0:
        raise UsageError(
            f"storage option '{key}' must be a positive duration like 30s, not '{value}'"
        )
    scale = {"ms": 0.001, "m": 60.0, "min": 60.0}.get(match[2] or "s", 1.0)
    return float(match[1]) * scale


def parse_positive_int(key: str, value: str) -> int:
    if not value.strip().isdigit() or int(value) < 1:
        raise UsageError(f"storage option '{key}' must be a whole number >= 1, not '{value}'")
    return int(value)


def load_storage_options(pairs: Sequence[str], file: Path | None) -> dict[str, str]:
    """Merge ``--storage-options-file`` (JSON or TOML) and repeated ``--storage-option K=V``.

    Flags override the file and a later flag overrides an earlier one. Keys are kept as typed
    (non-Azure backends need their own names); values become strings. Errors are one line and
    never quote a value, since the text may be a secret pasted in the wrong place.
    """
    options = _read_options_file(file) if file is not None else {}
    for index, pair in enumerate(pairs, start=1):
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep:
            raise UsageError(f"--storage-option #{index} has no '=': expected KEY=VALUE")
        if not _KEY_SHAPE.fullmatch(key):
            raise UsageError(
                f"--storage-option #{index}: the part before '=' must be an option name "
                "like account_name"
            )
        options[key] = value.strip()
    return options


def _read_options_file(file: Path) -> dict[str, str]:
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"storage options file {file} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"storage options file {file} cannot be read: {type(exc).__name__}"
        ) from None
    data = _parse_options_text(file, text)
    if set(data) == {"storage_options"} and isinstance(data["storage_options"], dict):
        data = data["storage_options"]
    out: dict[str, str] = {}
    for key, value in data.items():
        if not isinstance(key, str) or not _KEY_SHAPE.fullmatch(key):
            raise UsageError(f"storage options file {file}: keys must be option names")
        if isinstance(value, bool):
            out[key] = "true" if value else "false"
        elif isinstance(value, str | int | float):
            out[key] = str(value)
        else:
            raise UsageError(
                f"storage options file {file}: '{key}' must be a string, number or boolean"
            )
    return out


def _parse_options_text(file: Path, text: str) -> dict[Any, Any]:
    suffix = file.suffix.lower()
    errors: list[str] = []
    if suffix != ".toml":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            errors.append(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})")
        else:
            if not isinstance(data, dict):
                raise UsageError(f"storage options file {file}: expected a JSON object of options")
            return data
    if suffix != ".json":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            errors.append(f"not valid TOML ({str(exc).splitlines()[0]})")
    raise UsageError(f"storage options file {file}: " + "; ".join(errors))


def secret_values(options: Mapping[str, str]) -> set[str]:
    """Every string that must not be shown: secret option values, their parts and encodings."""
    found: set[str] = set()
    for key, value in options.items():
        name = canonical_key(key) or key.strip().lower()
        if value and (name in SECRET_OPTIONS or any(w in name for w in _SECRET_WORDS)):
            found.add(value)
            found.update(_secret_parts(value))
    for value in list(found):
        found.update({quote(value, safe=""), quote_plus(value), unquote(value)})
    return {v for v in found if v}


def _secret_parts(value: str) -> set[str]:
    """The key inside a connection string and the signature inside a SAS travel on their own."""
    parts: set[str] = set()
    for item in value.split(";"):
        name, _, inner = item.partition("=")
        if name.strip().lower() in ("accountkey", "sharedaccesssignature") and inner:
            parts.add(inner)
            parts.update(_secret_parts(inner))
    parts.update(v for k, v in parse_qsl(value.lstrip("?")) if k.lower() == "sig" and v)
    return parts


def redact(text: str, options: Mapping[str, str] | Iterable[str]) -> str:
    """``text`` with every secret replaced by ``***``, and anything secret-shaped scrubbed too.

    ``options`` is a storage-options mapping (only secret keys count) or, for callers that
    have already picked them, an iterable of secret values.
    """
    if isinstance(options, Mapping):
        secrets = secret_values(options)
    else:
        secrets = secret_values({f"secret_{i}": v for i, v in enumerate(options)})
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    for pattern in _SCRUBS:
        text = pattern.sub(lambda m: m[1] + REDACTED, text)
    return text


def _shown_key(key: str) -> str:
    """A key is shown only if it looks like a name; a pasted secret would not."""
    return key if _KEY_SHAPE.fullmatch(key.strip()) else "<not a name>"
