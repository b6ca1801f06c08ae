"""The only part that talks to S3: s3fs with our endpoint, credential and failures.

:func:`resolve` is the entry point :mod:`deltaforensics.log.location` calls for ``s3://`` and
``s3a://``. Listing is s3fs's ``ListObjectsV2`` with the ``_delta_log/`` prefix and a ``/``
delimiter (no scan of the bucket); many files are fetched concurrently by fsspec's ``cat``.
Retries are storage.py's (with backoff): botocore's and s3fs's own are off, so a throttled
request (503 SlowDown) is retried once per layer, not 5 x 5 times.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from aiobotocore.session import AioSession
from botocore.exceptions import BotoCoreError, ClientError
from s3fs import S3FileSystem

from deltaforensics.errors import StorageError
from deltaforensics.log.buckets import (
    BucketErrorClassifier,
    ClassifiedReads,
    Failure,
    causes,
    first_line,
    http_reason,
    parse_bucket_url,
)
from deltaforensics.log.resolved_location import ResolvedLocation
from deltaforensics.log.s3.s3_connection import S3Connection, connect

READ_ONLY_SESSION = "deltaforensics"


class S3ErrorClassifier(BucketErrorClassifier):
    """botocore's errors (an HTTP status and S3's error code, or no credentials found)."""

    __slots__ = ()

    def _reason(self, exc: BaseException) -> tuple[str, bool] | None:
        chain = list(causes(exc))
        for cause in chain:
            if isinstance(cause, ClientError):
                return http_reason(
                    _failure(cause), credential=self.credential, anonymous=self.anonymous
                )
        names = {type(c).__name__ for c in chain}
        if names & {"NoCredentialsError", "PartialCredentialsError"}:
            return (
                f"no credentials: {self.credential} found none (set AWS_ACCESS_KEY_ID and "
                "AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or skip_signature=true for a public bucket)",
                False,
            )
        if "ProfileNotFound" in names:
            return f"authentication failed: {first_line(exc)}", False
        if "CredentialRetrievalError" in names:
            return f"authentication failed: {self.credential} could not get credentials", False
        if isinstance(exc, PermissionError):
            return f"not authorised: {self.credential} lacks permission for this", False
        return None


def _failure(exc: ClientError) -> Failure:
    response: Mapping[str, Any] = getattr(exc, "response", {}) or {}
    error = response.get("Error") or {}
    status = (response.get("ResponseMetadata") or {}).get("HTTPStatusCode")
    code = str(error.get("Code") or "")
    if code.isdigit() and status is None:
        status = int(code)
    return Failure(
        status=status if isinstance(status, int) else None,
        code="" if code.isdigit() else code,
        text=str(error.get("Message") or ""),
    )


def _assume_role(conn: S3Connection) -> dict[str, str]:
    """STS ``AssumeRole`` with the key pair, the profile or the default chain: the role's
    temporary key pair (valid an hour, STS's default; a longer read needs a longer session)."""
    import botocore.session  # noqa: PLC0415 - only for an assumed role

    s = conn.settings
    session = botocore.session.Session(profile=s.get("profile"))
    client = session.create_client(
        "sts",
        region_name=conn.region or "us-east-1",
        endpoint_url=s.get("sts_endpoint") or conn.endpoint,
        aws_access_key_id=s.get("access_key_id"),
        aws_secret_access_key=s.get("secret_access_key"),
        aws_session_token=s.get("session_token"),
    )
    answer = client.assume_role(
        RoleArn=s["role_arn"], RoleSessionName=s.get("role_session_name") or READ_ONLY_SESSION
    )
    granted = answer["Credentials"]
    return {
        "key": granted["AccessKeyId"],
        "secret": granted["SecretAccessKey"],
        "token": granted["SessionToken"],
    }


def _credentials(conn: S3Connection) -> dict[str, Any]:
    s = conn.settings
    if conn.credential == "anonymous access":
        return {"anon": True}
    if conn.credential == "assumed role":
        return _assume_role(conn)
    if conn.credential in ("access key", "temporary credentials"):
        return {
            "key": s["access_key_id"],
            "secret": s["secret_access_key"],
            "token": s.get("session_token"),
        }
    if conn.credential == "profile":
        return {"session": AioSession(profile=s["profile"])}
    return {}  # botocore's default chain


class S3LogFileSystem(ClassifiedReads, S3FileSystem):  # type: ignore[misc]  # s3fs is untyped
    """s3fs with our endpoint, credential, timeouts and concurrency, and readable failures."""

    sdk_errors = (ClientError, BotoCoreError)
    cachable = False  # a forensic read must never see another store's cached listing

    def __init__(
        self, *, connection: S3Connection, classify: S3ErrorClassifier, credentials: dict[str, Any]
    ) -> None:
        self.connection = connection
        self.classify = classify
        config: dict[str, Any] = {
            "connect_timeout": connection.connect_timeout,
            "read_timeout": connection.read_timeout,
            "retries": {"total_max_attempts": 1},
            "max_pool_connections": connection.max_concurrency,
            "user_agent_extra": "deltaforensics",
        }
        if connection.addressing_style != "auto":
            config["s3"] = {"addressing_style": connection.addressing_style}
        elif connection.endpoint:  # S3-compatible stores and emulators answer path-style
            config["s3"] = {"addressing_style": "path"}
        super().__init__(
            endpoint_url=connection.endpoint,
            client_kwargs={"region_name": connection.region} if connection.region else {},
            config_kwargs=config,
            use_listings_cache=False,
            max_concurrency=connection.max_concurrency,
            **credentials,
        )
        self.retries = 1  # s3fs's own retry loop: one attempt, storage.py retries

    def __repr__(self) -> str:
        return f"<S3LogFileSystem {self.connection.host} {self.connection.describe_credential()}>"

    async def _ls(self, path: str, *args: Any, **kwargs: Any) -> Any:
        try:
            entries = await super()._ls(path, *args, **kwargs)
        except FileNotFoundError as exc:
            if any("NoSuchBucket" in str(c) for c in causes(exc)):
                raise self._no_bucket() from None
            raise
        except (OSError, ClientError, BotoCoreError) as exc:
            raise self.classify.io_error(exc) from None
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and "LastModified" in entry:
                entry.setdefault("last_modified", entry["LastModified"])
        return entries


def resolve(uri: str, options: Mapping[str, str]) -> ResolvedLocation:
    """The ``location.resolve_remote`` entry point for ``s3://`` and ``s3a://``."""
    conn = connect(parse_bucket_url(uri), options, os.environ)
    classify = S3ErrorClassifier(
        host=conn.host,
        credential=conn.describe_credential(),
        anonymous=conn.credential == "anonymous access",
        secrets=conn.settings,
    )
    try:
        credentials = _credentials(conn)
    except (ClientError, BotoCoreError) as exc:
        raise StorageError(
            conn.display_uri, f"assuming {conn.settings.get('role_arn')}: {classify(exc)}"
        ) from None
    granted = {f"granted_{k}": v for k, v in credentials.items() if isinstance(v, str)}
    if granted:  # the assumed role's key pair is as secret as the one that got it
        classify = S3ErrorClassifier(
            host=conn.host,
            credential=classify.credential,
            anonymous=classify.anonymous,
            secrets={**conn.settings, **granted},
        )
    fs = S3LogFileSystem(connection=conn, classify=classify, credentials=credentials)
    return ResolvedLocation(fs=fs, root=conn.root, display_uri=conn.display_uri, classify=classify)


__all__ = ["S3ErrorClassifier", "S3LogFileSystem", "resolve"]
