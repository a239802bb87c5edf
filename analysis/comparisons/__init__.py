"""Reports that set several runs side by side: variants of a study, and tournaments.

- :mod:`~analysis.comparisons.report`: the comparison report (``cardsim compare``, a
  study's ``cardsim sweep``): :func:`write_comparison` writes ``report.html``,
  ``report.md``, ``charts/`` and ``comparison.csv``; its words and layout only;
- :mod:`~analysis.comparisons.variants`: the numbers that report shows: each variant's
  headline figures and its differences from the base variant, with intervals and tests;
- :mod:`~analysis.comparisons.verdict`: the verdict that opens it, in plain words, with
  practical thresholds;
- :mod:`~analysis.comparisons.players`: a study's report across player counts (each
  measure by player count and variant);
- :mod:`~analysis.comparisons.charts`: those reports' charts (forest plot, win shares,
  survival curves of the variants, a measure by player count);
- :mod:`~analysis.comparisons.tournament`: the report of a strategy tournament
  (``cardsim tournament``): win-share matrix, ratings, heatmap.
"""

from analysis.comparisons.report import write_comparison
from analysis.comparisons.tournament import write_tournament_report

__all__ = ["write_comparison", "write_tournament_report"]
