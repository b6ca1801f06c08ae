"""Order the suite so that ``pytest -n N`` ends when its work does, not when a long test that
happened to be collected last does.

A handful of tests run real engines for minutes (real Delta-Spark releases, the Spark what-if
replay, the Spark benchmark), and most of them live in folders collected late
(``tests/realspark``, ``tests/whatif``). Under xdist's default scheduling one of them could
start when everything else had finished, and the run waited minutes on one worker.

So the suite runs under xdist's work-stealing scheduler (``tests/conftest.py``), which hands
worker *i* the *i*-th contiguous share of the collection and lets an idle worker take queued
tests from a busy one. The tests marked ``heavy(seconds)`` — seconds measured on a CI run —
are dealt out longest first to the share with the least heavy work so far, and each share
starts with its heavy tests: every worker begins with its long tests, and the short ones,
which can be stolen, fill the gaps.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest


def weight(item: pytest.Item) -> float:
    marker = item.get_closest_marker("heavy")
    return float(marker.args[0]) if marker is not None and marker.args else 0.0


def shares(total: int, workers: int) -> list[int]:
    """How many of ``total`` tests each worker gets first: xdist's work-stealing scheduler
    gives each idle worker, in turn, an even part of what is still pending."""
    sizes, left = [], total
    for remaining in range(workers, 0, -1):
        sizes.append(left // remaining)
        left -= sizes[-1]
    return sizes


def heavy_first(items: Sequence[pytest.Item], workers: int) -> list[pytest.Item]:
    """The items reordered: each worker's share opens with its part of the heavy tests
    (longest first, to the lightest share), then light tests in collection order."""
    heavy = sorted((i for i in items if weight(i) > 0), key=weight, reverse=True)
    light = [i for i in items if weight(i) == 0]
    sizes = shares(len(items), max(1, workers))
    dealt: list[list[pytest.Item]] = [[] for _ in sizes]
    load = [0.0 for _ in sizes]
    for item in heavy:
        share = min(range(len(sizes)), key=lambda k: (load[k], len(dealt[k])))
        dealt[share].append(item)
        load[share] += weight(item)
    ordered: list[pytest.Item] = []
    for size, mine in zip(sizes, dealt, strict=True):
        fill = max(0, size - len(mine))
        ordered += mine + light[:fill]
        light = light[fill:]
    return ordered + light
