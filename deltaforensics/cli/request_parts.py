"""The parts of a command's request that the option groups give: how to reach the table, how
to read its log, the evidence the user brings."""

from __future__ import annotations

from functools import partial

from deltaforensics.cli.attempt_specs import attempt_specs, error_texts
from deltaforensics.cli.invocation import Invocation
from deltaforensics.cli.options import AttemptOptions, CatalogAccess, EngineChoice, StorageAccess
from deltaforensics.cli.progress import ProgressBar
from deltaforensics.commands import Evidence, Hooks, SparkChoice, TableAccess
from deltaforensics.commands.tables import storage_options


def table_access(
    storage: StorageAccess, invocation: Invocation, catalog: CatalogAccess | None = None
) -> TableAccess:
    """The storage options loaded; every secret the layer learns is remembered for messages."""
    options = storage_options(storage.storage_option or [], storage.storage_options_file)

    def remember(secrets: tuple[str, ...]) -> None:
        invocation.secrets = (*invocation.secrets, *secrets)

    given = catalog or CatalogAccess()
    return TableAccess(
        storage_options=options,
        catalog_url=given.catalog_url,
        catalog_profile=given.catalog_profile,
        on_secret=remember,
    )


def spark_choice(engine: EngineChoice | None) -> SparkChoice | None:
    if engine is None or not engine.uses_spark:
        return None
    return SparkChoice(master=engine.spark_master, conf=tuple(engine.spark_conf or ()))


def hooks(invocation: Invocation, *, keep: bool = False) -> Hooks:
    """A progress bar on stderr while the log is read (unless ``--quiet`` or not a terminal);
    with ``keep``, the analysis kept to the process' end."""
    shown = ProgressBar.shows(quiet=invocation.quiet)
    return Hooks(
        progress=partial(ProgressBar, quiet=invocation.quiet) if shown else None,
        keep=invocation.keep if keep else None,
    )


def evidence(attempts: AttemptOptions) -> Evidence:
    """The ``--attempt`` specs checked, then the ``--error`` texts read."""
    specs = attempt_specs(attempts)
    return Evidence.read(error_texts(attempts), specs, attempts.failures_from or ())
