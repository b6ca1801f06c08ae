"""The real Delta-Spark engines the harness runs, and how the project installs each one itself.

Each Delta release is pinned to the Spark line of Delta's own compatibility table
(https://docs.delta.io/latest/releases.html) and to the artifact name that release publishes:
Delta 2.4 is ``delta-core_2.12``, 3.x ``delta-spark_2.12``, and from 4.1 on the Spark line is
part of the artifact id (``delta-spark_4.2_2.13``). The pip ``pyspark`` is the Spark version the
Delta POM was built against (its ``spark-sql`` dependency), so no pair drifts with PyPI.

Everything is installed under ``.cache/realspark/`` in the checkout (git-ignored), never the
user's home: a virtualenv per pyspark version (unless the running interpreter already has that
pyspark, as the ``[dev]`` extra pins for the newest pair), Delta's jars copied from Maven Central
by ``mvn dependency:copy-dependencies`` into ``-Dmaven.repo.local`` inside the cache, and the
harness's gated log store (java/GatedLogStore.java) compiled against them. A file lock keeps
two pytest workers from installing the same thing at once.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("DELTAFORENSICS_HARNESS_CACHE", REPO / ".cache" / "realspark"))
GATE_SOURCE = Path(__file__).with_name("java") / "GatedLogStore.java"
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"


class ProvisionError(RuntimeError):
    """One line naming what could not be installed (a pip package or a Maven artifact)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DeltaSpark:
    """One Delta release on the Spark line it was built for."""

    delta: str
    spark: str
    artifact: str  # groupId:artifactId:version on Maven Central
    era: str  # the exception-message era of docs/delta-conflict-semantics.md

    @property
    def key(self) -> str:
        return f"delta-{self.delta}"

    @property
    def major_minor(self) -> tuple[int, int]:
        major, minor = self.delta.split(".")[:2]
        return int(major), int(minor)


DELTA_SPARK = (
    DeltaSpark(delta="2.4.0", spark="3.4.0", artifact="io.delta:delta-core_2.12:2.4.0", era="2.x"),
    DeltaSpark(delta="3.3.2", spark="3.5.3", artifact="io.delta:delta-spark_2.12:3.3.2", era="3.x"),
    DeltaSpark(
        delta="4.4.0", spark="4.2.0", artifact="io.delta:delta-spark_4.2_2.13:4.4.0", era="4.x"
    ),
)

# Releases run once, by hand, for a kept log of a miss the pinned ones cannot show (issue #34:
# OPTIMIZE's read set before Delta 3.3); CI does not run them
MEASURED_ONCE = (
    DeltaSpark(delta="3.2.1", spark="3.5.3", artifact="io.delta:delta-spark_2.12:3.2.1", era="3.x"),
)


def by_key(key: str) -> DeltaSpark:
    for engine in DELTA_SPARK + MEASURED_ONCE:
        if key in (engine.key, engine.delta):
            return engine
    known = ", ".join(e.delta for e in DELTA_SPARK)
    raise ProvisionError(f"no pinned Delta-Spark {key!r} (pinned: {known})")


@dataclass(frozen=True, slots=True, kw_only=True)
class Installed:
    """What the runner needs to start a session of one engine."""

    engine: DeltaSpark
    python: Path
    jars: tuple[Path, ...]


@contextmanager
def _locked(name: str) -> Iterator[None]:
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f".{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _run(cmd: list[str], failure: str, **kw: object) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)  # type: ignore[call-overload]
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
        raise ProvisionError(f"{failure}: {' | '.join(tail)}")
    return str(done.stdout)


def _pyspark_version(python: str | Path) -> str | None:
    done = subprocess.run(
        [str(python), "-c", "import pyspark; print(pyspark.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() if done.returncode == 0 else None


def python_for(engine: DeltaSpark) -> Path:
    """This interpreter when it has the pinned pyspark, else a cached virtualenv with it."""
    if _pyspark_version(sys.executable) == engine.spark:
        return Path(sys.executable)
    venv = CACHE / f"python-pyspark-{engine.spark}"
    python = venv / "bin" / "python"
    with _locked(f"venv-{engine.spark}"):
        if python.exists() and _pyspark_version(python) == engine.spark:
            return python
        shutil.rmtree(venv, ignore_errors=True)
        _run([sys.executable, "-m", "venv", str(venv)], f"cannot create a virtualenv at {venv}")
        _run(
            [str(python), "-m", "pip", "install", "-q", f"pyspark=={engine.spark}"],
            f"cannot install pyspark=={engine.spark} from PyPI",
            env={
                **os.environ,
                "PIP_CACHE_DIR": str(CACHE / "pip"),
                "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            },
        )
    return python


def _pom(engine: DeltaSpark) -> str:
    group, artifact, version = engine.artifact.split(":")
    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        "<groupId>deltaforensics.harness</groupId>"
        f"<artifactId>jars-{engine.delta}</artifactId><version>1</version><packaging>pom</packaging>"
        f"<dependencies><dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId>"
        f"<version>{version}</version></dependency></dependencies></project>"
    )


def _missing_artifact(output: str, fallback: str) -> str:
    found = re.search(r"Could not (?:find|resolve|transfer) artifact (\S+)", output)
    return found.group(1) if found else fallback


def delta_jars(engine: DeltaSpark) -> tuple[Path, ...]:
    """Delta's jar and its runtime dependencies (Spark itself is provided by pyspark)."""
    folder = CACHE / "jars" / engine.key
    done_mark = folder / ".complete"
    with _locked(f"jars-{engine.delta}"):
        if not done_mark.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            pom = CACHE / "poms" / f"{engine.key}.xml"
            pom.parent.mkdir(parents=True, exist_ok=True)
            pom.write_text(_pom(engine))
            done = subprocess.run(
                [
                    "mvn",
                    "-q",
                    "-B",
                    f"-Dmaven.repo.local={CACHE / 'm2'}",
                    "-f",
                    str(pom),
                    f"{DEPENDENCY_PLUGIN}:copy-dependencies",
                    f"-DoutputDirectory={folder}",
                    "-DincludeScope=runtime",
                    "-DexcludeGroupIds=org.scala-lang",  # pyspark ships its own Scala
                ],
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                artifact = _missing_artifact(done.stdout + done.stderr, engine.artifact)
                raise ProvisionError(
                    f"Maven Central did not give {artifact} (for Delta {engine.delta})"
                )
            done_mark.touch()
    return tuple(sorted(folder.glob("*.jar")))


def _pyspark_jars(python: Path) -> Path:
    out = _run(
        [str(python), "-c", "import os, pyspark; print(os.path.dirname(pyspark.__file__))"],
        f"cannot import pyspark with {python}",
    )
    return Path(out.strip()) / "jars"


def gate_jar(engine: DeltaSpark, python: Path, jars: tuple[Path, ...]) -> Path:
    """The gated log store, compiled against this engine's delta-storage and Hadoop."""
    digest = hashlib.sha256(GATE_SOURCE.read_bytes()).hexdigest()[:12]
    jar = CACHE / "gate" / f"{engine.key}-{digest}.jar"
    with _locked(f"gate-{engine.delta}"):
        if jar.exists():
            return jar
        classes = CACHE / "gate" / f"{engine.key}-classes"
        shutil.rmtree(classes, ignore_errors=True)
        classes.mkdir(parents=True)
        classpath = os.pathsep.join([str(_pyspark_jars(python) / "*"), *map(str, jars)])
        _run(
            ["javac", "--release", "11", "-cp", classpath, "-d", str(classes), str(GATE_SOURCE)],
            f"cannot compile the harness log store for Delta {engine.delta}",
        )
        _run(["jar", "cf", str(jar), "-C", str(classes), "."], f"cannot package {jar.name}")
    return jar


def install(engine: DeltaSpark) -> Installed:
    python = python_for(engine)
    jars = delta_jars(engine)
    return Installed(engine=engine, python=python, jars=(*jars, gate_jar(engine, python, jars)))
