"""Storage options from ``--storage-option`` and ``--storage-options-file``; their secrets are
remembered so that no error message shows them."""

from __future__ import annotations

from pathlib import Path

from deltaforensics.cli.invocation import Invocation


def storage_options(
    pairs: list[str] | None, file: Path | None, invocation: Invocation
) -> dict[str, str]:
    if not pairs and file is None:
        return {}
    from deltaforensics.log.options import load_storage_options, secret_values  # noqa: PLC0415

    options = load_storage_options(pairs or [], file)
    invocation.secrets = tuple(secret_values(options))
    return options
