"""Unity Catalog names: ``catalog.schema.table`` → a table location and a credential.

Beside :mod:`deltaforensics.log`, not inside it: this package turns a name into a
:class:`~deltaforensics.log.storage.LogStore` and nothing else, so the analysis never knows
where a location came from. The REST calls are the published Unity Catalog API
(``api/all.yaml`` in the unitycatalog repository): ``GET /tables/{full_name}``,
``GET /tables`` (a schema's tables), ``POST /temporary-table-credentials`` (credential
vending) and ``GET /delta/preview/commits`` (a catalog-managed table's ratified commits).
Databricks authentication is the ``databricks-sdk`` package's (extra ``[catalog]``).
"""
