"""Finding landmarks in the data (:mod:`.discovery`): the stays of a track
(stay-point detection, Li et al., ACM GIS 2008) and the unusual readings and level shifts
of a series. How a stay is then released as one landmark event is the engine's
(:mod:`lmdk_core.engine.stay_events`). See ``docs/architecture.md``.
"""
