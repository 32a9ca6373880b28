"""Statistics of a population per time window under landmark privacy (docs/aggregate.md).

One concept per module:

* :mod:`~lmdk_core.aggregate.windows` — the time grid;
* :mod:`~lmdk_core.aggregate.cells` — the map grid;
* :mod:`~lmdk_core.aggregate.contributions` — one contribution per user per window;
* :mod:`~lmdk_core.aggregate.landmark_bound` — the declared k and its rule;
* :mod:`~lmdk_core.aggregate.statistics` — queries, sensitivities, totals;
* :mod:`~lmdk_core.aggregate.plan` — the allocation, through the verifier;
* :mod:`~lmdk_core.aggregate.noisy_release` — the noise;
* :mod:`~lmdk_core.aggregate.intervals` — 95 % intervals from the noise law;
* :mod:`~lmdk_core.aggregate.user_verdicts` — every user verified;
* :mod:`~lmdk_core.aggregate.levels` — the levels side by side;
* :mod:`~lmdk_core.aggregate.partition_work` — one partition's share;
* :mod:`~lmdk_core.aggregate.population_release` — end to end, in process;
* :mod:`~lmdk_core.aggregate.dask_run` — large tables on Dask;
* :mod:`~lmdk_core.aggregate.origin_destination` — origin–destination counts;
* :mod:`~lmdk_core.aggregate.temporal_leakage` — TPL under a declared matrix;
* :mod:`~lmdk_core.aggregate.output_files` — the publishable file and the audit.
"""
