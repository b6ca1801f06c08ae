"""Endpoint, region and credential of one S3 table: chosen here, purely, before any SDK call.

Option names are delta-rs / object_store's (``AWS_ACCESS_KEY_ID``, ``AWS_ENDPOINT_URL``,
``AWS_IAM_ROLE_ARN``, ..., in any case, with or without the ``aws_`` prefix: object_store's
``AmazonS3ConfigKey`` and delta-rs's ``crates/aws/src/constants.rs``) and s3fs's own (``key``,
``secret``, ``token``). Storage options come first, ``AWS_*`` variables second; with neither,
botocore's default chain (shared config and profile, web identity, container and instance
roles) finds the credential, as it does for the AWS CLI.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from deltaforensics.errors import UsageError
from deltaforensics.log.buckets import BucketUrl, OptionTable, settings_with_sources
from deltaforensics.log.options import parse_bool, parse_positive_int, parse_seconds

DEFAULT_MAX_CONCURRENCY = 32
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_READ_TIMEOUT = 60.0

OPTIONS = OptionTable(
    "S3",
    {
        "access_key_id": ("aws_access_key_id", "key"),
        "secret_access_key": ("aws_secret_access_key", "secret"),
        "session_token": ("aws_session_token", "aws_token", "token"),
        "region": ("aws_region", "aws_default_region", "default_region", "region_name"),
        "endpoint": (
            "aws_endpoint_url",
            "aws_endpoint",
            "aws_endpoint_url_s3",
            "endpoint_url",
        ),
        "profile": ("aws_profile",),
        "role_arn": ("aws_iam_role_arn", "aws_s3_assume_role_arn", "iam_role_arn"),
        "role_session_name": (
            "aws_iam_role_session_name",
            "aws_s3_role_session_name",
            "iam_role_session_name",
        ),
        "sts_endpoint": ("aws_sts_endpoint", "aws_endpoint_url_sts"),
        "skip_signature": ("aws_skip_signature", "anon"),
        "allow_http": ("aws_allow_http",),
        "virtual_hosted_style_request": ("aws_virtual_hosted_style_request",),
        "max_concurrency": (),
        "connect_timeout": ("aws_connect_timeout",),
        "read_timeout": ("timeout", "aws_read_timeout"),
    },
    # delta-rs options for writers (locking, conditional put, ...): a reader has no use for them
    ignored=frozenset(
        {
            "aws_s3_locking_provider",
            "aws_s3_allow_unsafe_rename",
            "aws_copy_if_not_exists",
            "aws_conditional_put",
            "aws_endpoint_url_dynamodb",
            "delta_dynamo_table_name",
            "aws_ec2_metadata_disabled",
            "aws_ec2_metadata_timeout",
            "aws_s3_pool_idle_timeout_seconds",
            "aws_sts_pool_idle_timeout_seconds",
            "aws_s3_get_internal_server_error_retries",
            "aws_imdsv1_fallback",
            "aws_unsigned_payload",
            "aws_checksum_algorithm",
            "aws_disable_tagging",
            "aws_s3_addressing_style",
        }
    ),
)
CREDENTIALS = frozenset(
    {"access_key_id", "secret_access_key", "session_token", "profile", "role_arn"}
)

CredentialKind = Literal[
    "access key",
    "temporary credentials",
    "assumed role",
    "profile",
    "anonymous access",
    "default credential chain",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class S3Connection:
    """Everything needed to reach one table; secrets live in ``settings`` and never in repr."""

    bucket: str
    path: str
    display_uri: str
    endpoint: str | None  # None: AWS itself, found from the region
    region: str | None
    credential: CredentialKind
    credential_source: str  # "storage options", "environment", "ambient"
    addressing_style: Literal["auto", "virtual", "path"]
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_READ_TIMEOUT
    settings: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def root(self) -> str:
        return f"{self.bucket}/{self.path}" if self.path else self.bucket

    @property
    def host(self) -> str:
        if self.endpoint:
            return urlsplit(self.endpoint).netloc
        return f"s3.{self.region}.amazonaws.com" if self.region else "s3.amazonaws.com"

    def describe_credential(self) -> str:
        if self.credential == "default credential chain":
            return "the default credential chain"
        if self.credential == "anonymous access":
            return "anonymous access"
        if self.credential == "assumed role":
            return f"the role {self.settings['role_arn']} from {self.credential_source}"
        if self.credential == "profile":
            return f"profile '{self.settings['profile']}' from {self.credential_source}"
        return f"{self.credential} from {self.credential_source}"


def connect(url: BucketUrl, options: Mapping[str, str], environ: Mapping[str, str]) -> S3Connection:
    """Pick endpoint, region and credential. Pure: no network, no SDK objects."""
    display = url.display_uri
    given = OPTIONS.normalize(options)
    env = OPTIONS.from_env(environ, ("AWS_",))
    settings, source = settings_with_sources(given, env, CREDENTIALS)
    flag = {
        k: parse_bool(k, settings.get(k, "false"))
        for k in ("skip_signature", "allow_http", "virtual_hosted_style_request")
    }
    endpoint = settings.get("endpoint", "").rstrip("/") or None
    if endpoint is not None:
        scheme = urlsplit(endpoint).scheme.lower()
        if scheme not in ("http", "https") or not urlsplit(endpoint).netloc:
            raise UsageError(f"{display}: the S3 endpoint must be an http(s) URL")
        if scheme == "http" and not flag["allow_http"]:
            raise UsageError(
                f"{display}: endpoint {urlsplit(endpoint).netloc} is plain http; "
                "set allow_http=true (AWS_ALLOW_HTTP) to allow unencrypted traffic"
            )
    kind, kind_source = _credential_kind(settings, flag["skip_signature"], display)
    return S3Connection(
        bucket=url.bucket,
        path=url.path,
        display_uri=display,
        endpoint=endpoint,
        region=settings.get("region") or None,
        credential=kind,
        credential_source=source.get(kind_source, "ambient"),
        addressing_style="virtual" if flag["virtual_hosted_style_request"] else "auto",
        settings=settings,
        max_concurrency=parse_positive_int(
            "max_concurrency", settings.get("max_concurrency", str(DEFAULT_MAX_CONCURRENCY))
        ),
        connect_timeout=parse_seconds(
            "connect_timeout", settings.get("connect_timeout", str(DEFAULT_CONNECT_TIMEOUT))
        ),
        read_timeout=parse_seconds(
            "read_timeout", settings.get("read_timeout", str(DEFAULT_READ_TIMEOUT))
        ),
    )


def _credential_kind(
    settings: Mapping[str, str], anonymous: bool, display: str
) -> tuple[CredentialKind, str]:
    key, secret = settings.get("access_key_id"), settings.get("secret_access_key")
    if bool(key) != bool(secret):
        raise UsageError(
            f"{display}: an S3 access key needs both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
        )
    if "session_token" in settings and not key:
        raise UsageError(
            f"{display}: AWS_SESSION_TOKEN is given without the key pair it belongs to"
        )
    if anonymous:
        return "anonymous access", "skip_signature"
    if "role_arn" in settings:  # assumed with the key pair, the profile or the default chain
        return "assumed role", "role_arn"
    if key and "session_token" in settings:
        return "temporary credentials", "session_token"
    if key:
        return "access key", "access_key_id"
    if "profile" in settings:
        return "profile", "profile"
    return "default credential chain", ""


def without_credentials(options: Mapping[str, str]) -> dict[str, str]:
    """``options`` less any credential: what vended credentials keep of the user's options."""
    return {k: v for k, v in OPTIONS.normalize(options).items() if k not in CREDENTIALS}


__all__ = ["OPTIONS", "CredentialKind", "S3Connection", "connect", "without_credentials"]
