"""The only part that talks to GCS: gcsfs with our endpoint, credential and failures.

:func:`resolve` is the entry point :mod:`deltaforensics.log.location` calls for ``gs://`` and
``gcs://``. Listing is the JSON API's ``objects.list`` with the ``_delta_log/`` prefix and a
``/`` delimiter (no scan of the bucket); many files are fetched concurrently by fsspec's
``cat``. gcsfs retries each request up to six times with growing sleeps, 401s included;
here a request is tried once and storage.py retries with its own backoff, as for ADLS and S3.
The plain ``gcsfs.core.GCSFileSystem`` is used: the package's default class first probes the
bucket for hierarchical namespaces over gRPC, which a reader does not need.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import google.auth
import google.auth.exceptions
from gcsfs.core import GCSFileSystem
from gcsfs.retry import HttpError

from deltaforensics.errors import StorageError, UsageError
from deltaforensics.log.buckets import (
    BucketErrorClassifier,
    ClassifiedReads,
    Failure,
    causes,
    http_reason,
    parse_bucket_url,
)
from deltaforensics.log.gcs.gcs_connection import GcsConnection, connect
from deltaforensics.log.resolved_location import ResolvedLocation

READ_ONLY = "https://www.googleapis.com/auth/devstorage.read_only"
# gcsfs's request without its retry decorator (the ``decorator`` package keeps it there)
_REQUEST_ONCE = GCSFileSystem._request.__wrapped__


class GcsErrorClassifier(BucketErrorClassifier):
    """gcsfs's errors (``HttpError`` with a status, ``OSError("Forbidden: ...")`` for 403) and
    google-auth's."""

    __slots__ = ()

    def _reason(self, exc: BaseException) -> tuple[str, bool] | None:
        for cause in causes(exc):
            if isinstance(cause, HttpError) and cause.code == 401 and not self.anonymous:
                # GCS says "Invalid Credentials" alike for a revoked and an expired token
                return (
                    f"authentication failed: {self.credential} was rejected or has expired (401)",
                    False,
                )
            if isinstance(cause, HttpError):
                said = str(cause.message or "").removesuffix(f", {cause.code}")
                failure = Failure(status=cause.code, code="", text=said)
                return http_reason(failure, credential=self.credential, anonymous=self.anonymous)
            if isinstance(cause, google.auth.exceptions.RefreshError):
                expired = "expired" if "expired" in str(cause).lower() else "was rejected"
                return f"authentication failed: {self.credential} {expired}", False
            if isinstance(cause, google.auth.exceptions.DefaultCredentialsError):
                return (
                    "no credentials: application-default credentials are not set up (set "
                    "GOOGLE_APPLICATION_CREDENTIALS or pass google_service_account)",
                    False,
                )
            text = str(cause)
            if isinstance(cause, OSError) and text.startswith("Forbidden:"):
                detail = text.split("\n", 1)[1] if "\n" in text else ""
                failure = Failure(status=403, code="", text=detail)
                return http_reason(failure, credential=self.credential, anonymous=self.anonymous)
        return None


def _token(conn: GcsConnection) -> Any:
    """What gcsfs takes as ``token``: a google-auth credential, ``"anon"``, or the default."""
    s = conn.settings
    if conn.credential == "anonymous access":
        return "anon"
    if conn.credential == "OAuth token":
        from google.oauth2.credentials import Credentials  # noqa: PLC0415

        return Credentials(token=s["oauth_token"])  # type: ignore[no-untyped-call]
    if conn.service_account.get("type") == "service_account":
        from google.oauth2 import service_account  # noqa: PLC0415

        return service_account.Credentials.from_service_account_info(  # type: ignore[no-untyped-call]
            dict(conn.service_account), scopes=[READ_ONLY]
        )
    if conn.service_account:  # an authorized-user or external-account file
        found, _ = google.auth.load_credentials_from_dict(  # type: ignore[no-untyped-call]
            dict(conn.service_account), scopes=[READ_ONLY]
        )
        return found
    found, _ = google.auth.default(scopes=[READ_ONLY])
    return found


class GcsLogFileSystem(ClassifiedReads, GCSFileSystem):  # type: ignore[misc]  # gcsfs is untyped
    """gcsfs with our endpoint, credential and timeouts, and readable failures."""

    sdk_errors = (Exception,)  # gcsfs raises OSError, ValueError, HttpError, google-auth's
    cachable = False  # a forensic read must never see another store's cached listing

    def __init__(
        self, *, connection: GcsConnection, classify: GcsErrorClassifier, token: Any
    ) -> None:
        self.connection = connection
        self.classify = classify
        super().__init__(
            project=connection.project or "deltaforensics",
            access="read_only",
            token=token,
            endpoint_url=connection.endpoint,
            requests_timeout=connection.read_timeout,
            use_listings_cache=False,
            batch_size=connection.max_concurrency,
        )

    def __repr__(self) -> str:
        return f"<GcsLogFileSystem {self.connection.host} {self.connection.describe_credential()}>"

    async def _request(self, *args: Any, **kwargs: Any) -> Any:
        return await _REQUEST_ONCE(self, *args, **kwargs)

    async def _ls(self, path: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super()._ls(path, *args, **kwargs)
        except FileNotFoundError:
            if not await self._bucket_exists():
                raise self._no_bucket() from None
            raise
        except Exception as exc:  # gcsfs raises OSError, ValueError, HttpError, auth errors
            raise self.classify.io_error(exc) from None

    async def _bucket_exists(self) -> bool:
        try:
            await self._call("GET", "b/{}", self.connection.bucket, json_out=True)
        except FileNotFoundError:
            return False
        except Exception:  # listing already said "not found"; let that stand
            return True
        return True


def resolve(uri: str, options: Mapping[str, str]) -> ResolvedLocation:
    """The ``location.resolve_remote`` entry point for ``gs://`` and ``gcs://``."""
    conn = connect(parse_bucket_url(uri), options, os.environ)
    secrets = dict(conn.settings)
    key = conn.service_account.get("private_key")
    if isinstance(key, str):
        secrets["private_key"] = key
    classify = GcsErrorClassifier(
        host=conn.host,
        credential=conn.describe_credential(),
        anonymous=conn.credential == "anonymous access",
        secrets=secrets,
    )
    try:
        token = _token(conn)
    except google.auth.exceptions.GoogleAuthError as exc:
        raise StorageError(conn.display_uri, classify(exc)) from None
    except ValueError as exc:  # google-auth refuses a malformed key
        raise UsageError(
            f"{conn.display_uri}: invalid Google credentials: {classify(exc)}"
        ) from None
    fs = GcsLogFileSystem(connection=conn, classify=classify, token=token)
    return ResolvedLocation(fs=fs, root=conn.root, display_uri=conn.display_uri, classify=classify)


__all__ = ["GcsErrorClassifier", "GcsLogFileSystem", "resolve"]
