"""The suite's own ordering (tests/support/scheduling.py): long tests start first, spread over
the workers' shares. The items are stand-ins carrying a real ``heavy`` mark: the function
reads nothing else of a pytest item."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import pytest

from tests.support.scheduling import heavy_first, shares


@dataclass(frozen=True)
class Item:
    name: str
    seconds: float = 0.0

    def get_closest_marker(self, name: str) -> Any:
        return pytest.mark.heavy(self.seconds).mark if name == "heavy" and self.seconds else None


def _order(items: list[Item], workers: int) -> list[str]:
    return [cast("Item", i).name for i in heavy_first(cast("Any", items), workers)]


def test_shares_are_what_work_stealing_hands_out() -> None:
    assert shares(11, 2) == [5, 6]
    assert shares(10, 3) == [3, 3, 4]
    assert sum(shares(5017, 2)) == 5017


def test_each_share_opens_with_its_long_tests_longest_first() -> None:
    light = [Item(f"t{k}") for k in range(20)]
    heavy = [Item("a", 400), Item("b", 190), Item("c", 170), Item("d", 150), Item("e", 150)]
    items = [*light[:3], heavy[3], *light[3:15], *heavy[:3], *light[15:], heavy[4]]
    order = _order(items, 2)
    assert sorted(order) == sorted(i.name for i in items)
    first, second = order[: len(items) // 2], order[len(items) // 2 :]
    assert first[:2] == ["a", "e"]  # 400 + 150
    assert second[:3] == ["b", "c", "d"]  # 190 + 170 + 150
    assert [n for n in order if n.startswith("t")] == [i.name for i in light]


def test_without_long_tests_the_collection_order_stays() -> None:
    items = [Item(f"t{k}") for k in range(7)]
    assert _order(items, 2) == [i.name for i in items]
