"""The scheduled audit: many tables, kept state, flat datasets (``deltaforensics audit``)."""
