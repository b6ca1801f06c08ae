"""Engines turn a :class:`~deltaforensics.log.segment.LogSegment` into action frames."""
