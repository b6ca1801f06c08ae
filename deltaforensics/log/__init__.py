"""The only package that knows the ``_delta_log`` layout."""
