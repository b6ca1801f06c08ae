"""Disagreements with the real engine that are understood, each with the engine's reason.

Keyed by (case id, check). A disagreement listed here is documented in docs/fidelity.md with
its reason instead of failing the real-engine test; one not listed fails it.
"""

from __future__ import annotations

KNOWN: dict[tuple[str, str], str] = {}
