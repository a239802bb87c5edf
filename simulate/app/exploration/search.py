"""Candidates proposed by optuna: one study, one seeded sampler, asked and told strictly in
order (no parallel trials), so that a seed gives the same candidates on any machine.

The sampler is optuna's TPE (:class:`optuna.samplers.TPESampler`), which takes one objective
or several (multi-objective TPE); each varied knob is a categorical parameter over the
positions of its values, and a trial's objectives are the losses of the aims (minimized).
A proposal that cannot be played is told as failed (and counted with its reason); one that
was measured before is told its estimates again without playing anything.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Sequence

from .space import Knob, Space

PATIENCE = 50
"""Proposals in a row that bring no new rule set after which the search stops asking."""


def sampler_seed(seed: int) -> int:
    """The sampler's seed, derived from the run's seed (numpy takes 32 bits)."""
    digest = hashlib.sha256(f"cardsim explore {seed}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


class Proposer:
    """Asks optuna for new rule sets of ``space`` and tells it what they measured."""

    def __init__(self, space: Space, objectives: int, seed: int):
        import optuna
        from optuna.distributions import CategoricalDistribution

        optuna.logging.set_verbosity(optuna.logging.ERROR)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sampler = optuna.samplers.TPESampler(seed=sampler_seed(seed))
        self.study = optuna.create_study(directions=["minimize"] * objectives, sampler=sampler)
        self.distributions = {
            _param(i): CategoricalDistribution(tuple(range(len(knob.values))))
            for i, knob in enumerate(space.knobs)
        }
        self.knobs: tuple[Knob, ...] = space.knobs
        self.valid = {rule_set.values: rule_set for rule_set in space.valid}
        self.objectives = objectives

    def ask(self):
        """A trial and the rule set it proposes (None when that one cannot be played)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            trial = self.study.ask(self.distributions)
        values = tuple(knob.values[trial.params[_param(i)]] for i, knob in enumerate(self.knobs))
        return trial, self.valid.get(values), values

    def tell(self, trial, losses: Sequence[float] | None) -> None:
        """Finish ``trial`` with the aims' losses, or as failed (``None``)."""
        from optuna.trial import TrialState

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if losses is None:
                self.study.tell(trial, state=TrialState.FAIL)
            else:
                values = list(losses)
                self.study.tell(trial, values[0] if self.objectives == 1 else values)


def _param(i: int) -> str:
    return f"knob{i}"
