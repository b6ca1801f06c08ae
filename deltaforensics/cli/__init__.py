"""Command line: parse -> analysis -> report -> exit code. The only place that exits.

Exit codes: 0 done; 1 findings selected by ``--fail-on``; 2 usage error; 3 input or storage
error (one line on stderr naming the file or URL and version); 4 internal error; 130 Ctrl-C.
"""

from deltaforensics.cli.app import app, entry, main
from deltaforensics.cli.invocation import Invocation

__all__ = ["Invocation", "app", "entry", "main"]
