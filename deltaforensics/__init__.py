"""deltaforensics: explain Delta Lake write conflicts from the transaction log."""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
