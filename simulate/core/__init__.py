"""The core layer: what every other layer builds on, importing nothing of cardsim above it.

:mod:`.cards` (the deck), :mod:`.rng` (the random streams, a pure function of seed and game
index), :mod:`.errors` (:class:`~simulate.core.errors.CardsimError`), :mod:`.knobs` (knob
values parsed), :mod:`.arrow` (Arrow arrays from numpy), :mod:`.measures` and :mod:`.skill`
(the balance measures' names, skill games' constants), :mod:`.gpu` (whether a GPU is
there), :mod:`.compiled` (the kernels' numba helpers) and :mod:`.logs` (the event log's
vocabulary and compiled buffers). docs/how-it-works.md#layout draws the layers.
"""
