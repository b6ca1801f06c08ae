"""Recommendations, one module per stage: :mod:`.candidates` chooses the changes worth trying,
measures each on the table's history and keeps the ones that help; :mod:`.instructions` spells
how to apply one to *this* table for its writers' engines; :mod:`.rationale` says why in
words; :mod:`.budget` decides what explain
shows (only with evidence, within a budget, the best few)."""
