"""Hypothesis profiles: ``ci`` (the default, every run of ``make test``) and ``deep``
(``make test-deep``, or ``pytest --hypothesis-profile deep``).

``ci`` is deterministic: the same examples on every run and machine (``derandomize``, no
example database), each property test trying the number of examples it states with
:func:`examples`. ``deep`` draws new examples each run, ten times as many.
"""

from __future__ import annotations

from hypothesis import settings

CI_EXAMPLES = 100
"""Hypothesis's own default; :func:`examples` scales a test's stated count by the active
profile's ``max_examples`` over this."""

settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, print_blob=True, max_examples=CI_EXAMPLES
)
settings.register_profile("deep", deadline=None, print_blob=True, max_examples=10 * CI_EXAMPLES)
settings.load_profile("ci")


def examples(count: int) -> int:
    """The examples a property test tries: ``count`` under ``ci``, ten times that under
    ``deep`` (read when the test module is imported, after pytest has loaded the profile)."""
    return count * settings.default.max_examples // CI_EXAMPLES
