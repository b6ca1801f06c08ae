"""The typer app, its root options, and the single handler that maps every outcome of a command
to an exit code (:func:`main`); :func:`entry` is the console script."""

from __future__ import annotations

import os
import sys
import traceback
from typing import Annotated, NoReturn

import typer
from typer import exceptions as typer_exceptions

from deltaforensics.cli.audit import audit
from deltaforensics.cli.explain import explain
from deltaforensics.cli.history import history
from deltaforensics.cli.invocation import Invocation, invocation_of
from deltaforensics.cli.option_groups import with_global_options, with_option_groups
from deltaforensics.cli.options import GlobalOptions
from deltaforensics.cli.output import emit
from deltaforensics.cli.redaction import redact_message
from deltaforensics.cli.rules import rules
from deltaforensics.cli.snapshot import snapshot
from deltaforensics.cli.whatif import whatif
from deltaforensics.errors import DeltaForensicsError, UsageError
from deltaforensics.report.plain import visible
from deltaforensics.version import VERSION

app = typer.Typer(
    name="deltaforensics",
    help="Explain Delta Lake write conflicts from the table's own transaction log.\n\n"
    "Example: deltaforensics explain /lake/orders",
    no_args_is_help=True,
    add_completion=True,  # --install-completion and --show-completion (docs/cli.md)
    pretty_exceptions_enable=False,
    # click's own help layout: an option's names are never cut (rich's panels shrink every
    # column of the table at 80 columns, names included), its help text is wrapped
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},  # every command inherits it
)
for command in (history, snapshot, explain, whatif, audit, rules):  # in --help's order
    # the root's --debug and --quiet are accepted after the command too
    app.command()(with_option_groups(with_global_options(command)))


def _print_version(asked: bool) -> None:
    if asked:
        emit(f"deltaforensics {VERSION}")
        raise typer.Exit(0)


def _root(
    ctx: typer.Context,
    global_options: GlobalOptions,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            help="Print the version and exit.",
            is_eager=True,  # before click asks for a command
            callback=_print_version,
        ),
    ] = False,
) -> None:
    invocation_of(ctx).add_global_options(global_options)


app.callback()(with_option_groups(_root))


def entry() -> NoReturn:
    """The console script and ``python -m deltaforensics``: :func:`main`, then the process
    ends at once. The output is flushed first (exit code 1 if it cannot be); the heap is left
    to the operating system instead of being released object by object and torn down by the
    interpreter (about a second after an explain of 100,000 commits). Nothing of ours runs at
    exit, and a Spark engine's JVM ends when its gateway pipe closes."""
    invocation = Invocation(ending=True)  # referenced until the process ends
    code = main(invocation=invocation)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the reader went away: not all of the output arrived
            code = code or 1  # as typer exits when that happens while the command writes
    os._exit(code)


def main(argv: list[str] | None = None, *, invocation: Invocation | None = None) -> int:
    """Console entry point; maps every outcome to an exit code. ``invocation`` is the run's
    context (a fresh one by default)."""
    if invocation is None:
        invocation = Invocation()
    try:
        # without standalone mode, click returns a command's typer.Exit code instead of raising
        # one program name however it is started, so that the completion script's variable is
        # always _DELTAFORENSICS_COMPLETE (docs/cli.md)
        returned = app(args=argv, prog_name="deltaforensics", standalone_mode=False, obj=invocation)
        if isinstance(returned, int):
            return returned
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except SystemExit as exc:  # typer's --show-completion and shell completion end this way
        if isinstance(exc.code, str):
            sys.stderr.write(f"{exc.code}\n")
        return exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    except typer.Abort:
        sys.stderr.write("aborted\n")
        return 130
    except typer_exceptions.TyperException as exc:  # usage: bad option, unknown command
        message = getattr(exc, "message", None)
        if isinstance(message, str):  # typer words a bad value with pydantic's prefix
            exc.message = message.removeprefix("Value error, ")
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            sys.stderr.write(f"error: {exc}\n")
        return int(getattr(exc, "exit_code", 2) or 2)
    except UsageError as exc:
        sys.stderr.write(f"error: {redact_message(str(exc), invocation)}\n")
        return 2
    except DeltaForensicsError as exc:
        if invocation.debug:
            sys.stderr.write(redact_message("".join(traceback.format_exception(exc)), invocation))
        message = visible(redact_message(str(exc), invocation))  # may quote the log
        sys.stderr.write(f"error: {message}\n")
        for note in getattr(exc, "__notes__", []):
            sys.stderr.write(f"{redact_message(note, invocation)}\n")
        return 3
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:  # the reader of stdout went away: as typer exits when it sees that
        return 1
    except Exception as exc:
        if invocation.debug:
            sys.stderr.write(redact_message("".join(traceback.format_exception(exc)), invocation))
        sys.stderr.write(
            f"internal error: {type(exc).__name__}: {redact_message(str(exc), invocation)}\n"
            f"deltaforensics {VERSION}, Python {sys.version.split()[0]}; "
            "please report this with --debug output\n"
        )
        return 4
    return 0
