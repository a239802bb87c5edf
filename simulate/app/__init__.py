"""The application layer: what a user runs, built on the layers below.

:mod:`.api` (the Python API, the one front door to the engine), :mod:`.cli` (the ``cardsim``
command line: parse, call the API, print), :mod:`.commands` (the work of ``simulate``,
``balance``, ``verify`` and the games' searches, done once for both), :mod:`.studies`
(study files, sweeps, tournaments), :mod:`.exploration` (``cardsim explore``),
:mod:`.replay` (a run's logs in words) and :mod:`.bench` (``make bench``).
docs/how-it-works.md#layout draws the layers.
"""
