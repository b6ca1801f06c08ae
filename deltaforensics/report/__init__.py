"""Formats, never computes: every renderer takes finished values."""
