"""``python -m deltaforensics.cli``, as ``python -m deltaforensics``."""

from deltaforensics.cli.app import entry

entry()
