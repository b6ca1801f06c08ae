"""The tool's version: one place, at the bottom floor, so that any module may name it.

The package root re-exports it as ``deltaforensics.__version__``; the wheel's metadata reads
it from here (``[tool.setuptools.dynamic]`` in pyproject.toml), and reports name it as their
generator's version.
"""

VERSION = "0.1.0"
