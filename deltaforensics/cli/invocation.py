"""One run of the command line: what its root options, its command and the storage options it
loads tell the progress display and the error handler.

The CLI's one mutable object, on purpose: :func:`~deltaforensics.cli.app.main` makes a fresh
one per run and hands it to click as the context object; ``--debug`` and ``--quiet`` are
recorded wherever they were given (before the command or after it), the command records
``--redact`` and the secrets it loads, and the handler reads them when the command fails. Nothing of a run outlives it, so two runs in one process
(tests, scripts) share nothing.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from typing import Any

import typer

from deltaforensics.cli.options import GlobalOptions


@dataclass(slots=True, kw_only=True)
class Invocation:
    debug: bool = False
    quiet: bool = False
    redact: bool = False
    secrets: tuple[str, ...] = ()
    catalog_notes: tuple[str, ...] = ()  # what a catalog table's catalog could not show
    ending: bool = False  # the process ends with this command (:func:`entry`)
    kept: list[Any] = field(default_factory=list)

    def add_global_options(self, options: GlobalOptions) -> None:
        """``--debug`` and ``--quiet`` as given before the command or after it: either place
        turns them on."""
        self.debug = self.debug or options.debug
        self.quiet = self.quiet or options.quiet

    def one_table_then_exit(self) -> None:
        """When the process ends with this one table's command (:func:`entry`), pause the cyclic
        collector for all of it, not only the analysis: it would re-scan the objects the analysis
        keeps to the end, to free nothing (0.4 s of an explain of 100,000 commits)."""
        if self.ending:
            gc.disable()

    def keep(self, *results: Any) -> None:
        """Keep a command's results referenced when the process ends with the command
        (:func:`entry`): releasing an explain's millions of objects one by one took half a second
        at 100,000 commits, for nothing."""
        if self.ending:
            self.kept.extend(results)


def invocation_of(ctx: typer.Context) -> Invocation:
    """The run's :class:`Invocation`; a fresh one when the app is called without :func:`main`
    (typer's test runner)."""
    return ctx.ensure_object(Invocation)


def table_command_invocation(ctx: typer.Context, *, redact: bool) -> Invocation:
    """The run's :class:`Invocation` as a one-table command starts it: ``--redact`` is recorded
    before anything can fail, so that opening the table's storage already fails redacted."""
    invocation = invocation_of(ctx)
    invocation.redact = redact
    return invocation
