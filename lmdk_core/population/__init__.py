"""Population releases: one configuration tuned in the app, applied to every user of a
long table (Katsomallos et al., CODASPY 2022, per user), on Dask.

One concept per module:

* :mod:`~lmdk_core.population.table` — the long table's columns, reading and validation;
* :mod:`~lmdk_core.population.landmarks` — each user's landmarks (flag column or the
  app's detectors);
* :mod:`~lmdk_core.population.streams` — one independent random stream per user;
* :mod:`~lmdk_core.population.lockstep` — the schemes over many users at once;
* :mod:`~lmdk_core.population.audit` — the CONFIDENTIAL per-user audit;
* :mod:`~lmdk_core.population.partition` — one partition (group of whole users);
* :mod:`~lmdk_core.population.dask_driver` — the batch on a Dask cluster;
* :mod:`~lmdk_core.population.cluster` — that cluster: scheduler check, signals, shut-down;
* :mod:`~lmdk_core.population.row_groups` — partitions along the row groups of a Parquet
  file ordered by user;
* :mod:`~lmdk_core.population.buckets` — otherwise, users scattered to buckets on disk.

Nothing here imports Dask until the driver runs.
"""
