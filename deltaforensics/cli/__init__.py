"""Command line: parse -> analysis -> report -> exit code. The only place that exits.

Exit codes: 0 done; 1 findings selected by ``--fail-on``; 2 usage error; 3 input or storage
error (one line on stderr naming the file or URL and version); 4 internal error; 130 Ctrl-C.

- ``app.py``: the typer app, its root options, :func:`main` (the one handler that turns every
  outcome into an exit code) and :func:`entry` (the console script).
- ``history.py``, ``snapshot.py``, ``explain.py``, ``whatif.py``, ``audit.py``, ``rules.py``:
  one command each.
- ``options.py``: every option shared by two commands, declared once; ``option_groups.py``
  spreads a group of them into a command's signature for typer.
- ``invocation.py``: what one run records for the error handler (``--debug``, ``--quiet``,
  ``--redact``, the secrets it loaded), made afresh by :func:`main`.
- ``attempt_specs.py`` (``--attempt``, ``--started-at``, ``--error``), ``storage.py``
  (storage options, opening the table), ``engine_choice.py`` (``--engine``), ``progress.py``
  (the progress bar), ``redaction.py`` (``--redact`` and secrets), ``output.py`` (where a
  document goes, in which format).
"""

from deltaforensics.cli.app import app, entry, main
from deltaforensics.cli.invocation import Invocation

__all__ = ["Invocation", "app", "entry", "main"]
