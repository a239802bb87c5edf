"""The statistics behind the reports: numbers only, no words or charts.

- :mod:`~simulate.runs.folder.distribution`: an integer quantity held as counts per value,
  with exact means, percentiles and survival curves;
- :mod:`~analysis.statistics.tally`: the accumulators :func:`analysis.load.scan` feeds
  (win counts, counts per label, distributions, longest games), bounded in memory;
- :mod:`~analysis.statistics.stats`: win shares with Wilson intervals, length summaries,
  end reasons, finishing ranks;
- :mod:`~analysis.statistics.bootstrap`: bootstrap intervals for a mean, from its counts;
- :mod:`~analysis.statistics.convergence`: the headline estimates after the first m games;
- :mod:`~analysis.statistics.significance`: tests and intervals for the difference between
  two runs (independent or paired), and Holm's correction;
- :mod:`~analysis.statistics.paired`: whether two runs played the same deals, and their
  paired counts, read from both runs in step;
- :mod:`~analysis.statistics.pair_replicates`: paired bootstrap replicates of statistics
  that are not means (a seat spread, a percentile, two means seen through a target).
"""
