"""Azure Blob / ADLS Gen2 locations: URL forms, credentials, and one-line failure reasons.

The pipeline, one module a step: :mod:`.urls` takes the URL apart; :mod:`.connection` picks
account, endpoint and credential (pure up to here, unit-testable without a server);
:mod:`.filesystem` is the only part that talks to Azure, and :mod:`.failures` turns the SDK's
exceptions into short, redacted reasons. Importing this package imports adlfs and the Azure
SDK, so :mod:`deltaforensics.log.location` imports it only for an Azure URL.
"""

from __future__ import annotations

from deltaforensics.log.azure.connection import (
    EMULATOR_KEY,
    AzureConnection,
    CredentialKind,
    connect,
)
from deltaforensics.log.azure.failures import AzureErrorClassifier, AzureIOError
from deltaforensics.log.azure.filesystem import AzureLogFileSystem, resolve
from deltaforensics.log.azure.urls import AzureUrl, parse_azure_url

__all__ = [
    "EMULATOR_KEY",
    "AzureConnection",
    "AzureErrorClassifier",
    "AzureIOError",
    "AzureLogFileSystem",
    "AzureUrl",
    "CredentialKind",
    "connect",
    "parse_azure_url",
    "resolve",
]
