"""Google Cloud Storage locations (``gs://``, ``gcs://``): options, credentials, failures.

:mod:`.connection` picks endpoint and credential (pure, unit-testable without a server);
:mod:`.filesystem` is gcsfs with our credential, timeouts and one-line failures, and the only
module that imports gcsfs. Nothing is imported here, so the catalog can read the option table
without loading an SDK.
"""
