"""deltaforensics: explain Delta Lake write conflicts from the transaction log.

The Python API (:mod:`deltaforensics.api`, docs/python-api.md) is re-exported here::

    from deltaforensics import audit, explain, history, snapshot, whatif

Three of those names are also subpackages or modules of this package (``snapshot.py``,
``whatif/``, ``audit/``), and Python sets a submodule as an attribute of its package once it is
imported, which would turn ``deltaforensics.snapshot`` from the function into the module as soon
as anything imported the module. The package's module class therefore answers these five names
with the API's functions, always; the submodules stay importable by their full names
(``from deltaforensics.whatif.scenario import Scenario``), as every module here imports them.
The API is imported on first use, so that the command line starts without it.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from deltaforensics.version import VERSION as __version__  # noqa: N811 - the conventional name

__all__ = ["__version__", "audit", "explain", "history", "snapshot", "whatif"]

if TYPE_CHECKING:
    from deltaforensics.api import audit, explain, history, snapshot, whatif  # noqa: TC004

_API = frozenset(("audit", "explain", "history", "snapshot", "whatif"))


class _Package(types.ModuleType):
    """This package, whose API names are the API's functions (see the module docstring)."""

    def __getattribute__(self, name: str) -> Any:
        if name in _API:
            # by name: the package root sits above every layer, and none of them may
            # depend on the API layer (the import-linter contracts)
            return getattr(importlib.import_module("deltaforensics.api"), name)
        return super().__getattribute__(name)


sys.modules[__name__].__class__ = _Package
