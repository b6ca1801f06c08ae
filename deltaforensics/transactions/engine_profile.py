"""The engine profile a transaction is read with.

The only import of the profiles in this package: when they move to their own package below
``transactions``, this line is all that changes here.
"""

from __future__ import annotations

from deltaforensics.conflicts.profiles import Profile, parse_isolation, profile_for

__all__ = ["Profile", "parse_isolation", "profile_for"]
