"""Amazon S3 and S3-compatible locations (``s3://``, ``s3a://``): options, credentials, failures.

:mod:`.connection` picks endpoint, region and credential (pure, unit-testable without a
server); :mod:`.filesystem` is s3fs with our credential, timeouts and one-line failures, and the
only module that imports s3fs. Nothing is imported here, so the catalog can read the option
table without loading an SDK.
"""
