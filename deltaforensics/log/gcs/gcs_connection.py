"""Endpoint and credential of one GCS table: chosen here, purely, before any SDK call.

Option names are object_store's ``GoogleConfigKey`` spellings (``GOOGLE_SERVICE_ACCOUNT`` /
``GOOGLE_SERVICE_ACCOUNT_PATH``: a key file; ``GOOGLE_SERVICE_ACCOUNT_KEY``: the key's JSON
itself; ``GOOGLE_APPLICATION_CREDENTIALS``: an application-default credentials file), in any
case. Storage options come first, ``GOOGLE_*`` variables second; with neither, Google's
application-default credentials (the ``gcloud auth application-default login`` file, or the
metadata server of a VM or workload identity) are used. ``STORAGE_EMULATOR_HOST`` or the
``endpoint`` option points at a GCS-compatible server such as an emulator.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from deltaforensics.errors import UsageError
from deltaforensics.log.buckets import BucketUrl, OptionTable, settings_with_sources
from deltaforensics.log.options import parse_bool, parse_positive_int, parse_seconds

DEFAULT_MAX_CONCURRENCY = 32
DEFAULT_READ_TIMEOUT = 60.0
PUBLIC_ENDPOINT = "https://storage.googleapis.com"

OPTIONS = OptionTable(
    "GCS",
    {
        "service_account_path": (
            "google_service_account",
            "google_service_account_path",
            "service_account",
        ),
        "service_account_key": ("google_service_account_key",),
        "application_credentials": ("google_application_credentials",),
        # a bare OAuth 2 access token, as Unity Catalog vends it (gcp_oauth_token)
        "oauth_token": ("google_oauth_token", "bearer_token"),
        "project": ("google_project", "google_cloud_project", "project_id"),
        "endpoint": ("google_endpoint", "endpoint_url", "storage_emulator_host"),
        "skip_signature": ("google_skip_signature", "anon"),
        "allow_http": ("google_allow_http",),
        "max_concurrency": (),
        "read_timeout": ("timeout", "google_read_timeout"),
    },
    ignored=frozenset({"google_bucket", "google_bucket_name", "bucket", "bucket_name"}),
)
CREDENTIALS = frozenset(
    {"service_account_path", "service_account_key", "application_credentials", "oauth_token"}
)
_ENV_NAMES = (
    "GOOGLE_SERVICE_ACCOUNT",
    "GOOGLE_SERVICE_ACCOUNT_PATH",
    "GOOGLE_SERVICE_ACCOUNT_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "STORAGE_EMULATOR_HOST",
)

CredentialKind = Literal[
    "service account key",
    "service account file",
    "credentials file",
    "OAuth token",
    "anonymous access",
    "application-default credentials",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class GcsConnection:
    """Everything needed to reach one table; secrets live in ``settings`` and never in repr."""

    bucket: str
    path: str
    display_uri: str
    endpoint: str  # the JSON API's base, https://storage.googleapis.com unless moved
    credential: CredentialKind
    credential_source: str
    project: str | None
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    read_timeout: float = DEFAULT_READ_TIMEOUT
    settings: Mapping[str, str] = field(default_factory=dict, repr=False)
    service_account: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def root(self) -> str:
        return f"{self.bucket}/{self.path}" if self.path else self.bucket

    @property
    def host(self) -> str:
        return urlsplit(self.endpoint).netloc

    def describe_credential(self) -> str:
        if self.credential in ("anonymous access", "application-default credentials"):
            return self.credential
        email = self.service_account.get("client_email")
        who = f" ({email})" if isinstance(email, str) and email else ""
        return f"{self.credential}{who} from {self.credential_source}"


def connect(
    url: BucketUrl, options: Mapping[str, str], environ: Mapping[str, str]
) -> GcsConnection:
    """Pick endpoint and credential. Pure: no network, no SDK objects (a key file is read)."""
    display = url.display_uri
    given = OPTIONS.normalize(options)
    env = OPTIONS.from_env(
        {k: v for k, v in environ.items() if k in _ENV_NAMES}, ("GOOGLE_", "STORAGE_")
    )
    settings, source = settings_with_sources(given, env, CREDENTIALS)
    anonymous = parse_bool("skip_signature", settings.get("skip_signature", "false"))
    allow_http = parse_bool("allow_http", settings.get("allow_http", "false"))
    endpoint = _endpoint(settings, display)
    emulated = "endpoint" in settings
    if urlsplit(endpoint).scheme == "http" and not (allow_http or emulated):
        raise UsageError(f"{display}: endpoint {urlsplit(endpoint).netloc} is plain http")
    kind, kind_source = _credential_kind(settings, anonymous=anonymous, emulated=emulated)
    account = _service_account(kind, settings, display)
    return GcsConnection(
        bucket=url.bucket,
        path=url.path,
        display_uri=display,
        endpoint=endpoint,
        credential=kind,
        credential_source=source.get(kind_source, "ambient"),
        project=settings.get("project") or _str(account.get("project_id")),
        settings=settings,
        service_account=account,
        max_concurrency=parse_positive_int(
            "max_concurrency", settings.get("max_concurrency", str(DEFAULT_MAX_CONCURRENCY))
        ),
        read_timeout=parse_seconds(
            "read_timeout", settings.get("read_timeout", str(DEFAULT_READ_TIMEOUT))
        ),
    )


def _endpoint(settings: Mapping[str, str], display: str) -> str:
    """``endpoint`` (or ``STORAGE_EMULATOR_HOST``, which may lack a scheme), else Google's."""
    given = settings.get("endpoint", "").strip().rstrip("/")
    if not given:
        return PUBLIC_ENDPOINT
    if "://" not in given:
        given = f"http://{given}"
    parts = urlsplit(given)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"{display}: the GCS endpoint must be an http(s) URL or HOST:PORT")
    return given


def _credential_kind(
    settings: Mapping[str, str], *, anonymous: bool, emulated: bool
) -> tuple[CredentialKind, str]:
    if anonymous:
        return "anonymous access", "skip_signature"
    for name, kind in (
        ("oauth_token", "OAuth token"),
        ("service_account_key", "service account key"),
        ("service_account_path", "service account file"),
        ("application_credentials", "credentials file"),
    ):
        if settings.get(name):
            return kind, name  # type: ignore[return-value]  # the literals above
    if emulated:  # an emulator checks no credential, and the metadata server is not there
        return "anonymous access", "endpoint"
    return "application-default credentials", ""


def _service_account(
    kind: CredentialKind, settings: Mapping[str, str], display: str
) -> dict[str, Any]:
    """The service account's JSON (key text or file), checked; never quoted in an error."""
    if kind == "service account key":
        text, where = settings["service_account_key"], "GOOGLE_SERVICE_ACCOUNT_KEY"
    elif kind in ("service account file", "credentials file"):
        path = settings.get("service_account_path") or settings["application_credentials"]
        where = "the credentials file" if kind == "credentials file" else "the service account file"
        try:
            with open(path, encoding="utf-8") as handle:  # noqa: PTH123 - a str path
                text = handle.read()
        except OSError as exc:
            raise UsageError(f"{display}: {where} cannot be read ({exc.strerror})") from None
    else:
        return {}
    try:
        info = json.loads(text)
    except ValueError:
        raise UsageError(f"{display}: {where} is not JSON") from None
    if not isinstance(info, dict) or not info.get("type"):
        raise UsageError(f"{display}: {where} is not a Google credentials JSON (no 'type')")
    if info["type"] == "service_account" and not all(
        isinstance(info.get(k), str) for k in ("client_email", "private_key", "token_uri")
    ):
        raise UsageError(
            f"{display}: {where} lacks client_email, private_key or token_uri of a service account"
        )
    return info


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def without_credentials(options: Mapping[str, str]) -> dict[str, str]:
    """``options`` less any credential: what vended credentials keep of the user's options."""
    return {k: v for k, v in OPTIONS.normalize(options).items() if k not in CREDENTIALS}


__all__ = ["OPTIONS", "CredentialKind", "GcsConnection", "connect", "without_credentials"]
