"""Turning numbers into a report: words, charts and the files on disk.

- :mod:`~analysis.rendering.words`: game names, rules that differ from the defaults, chart
  titles and the formats of numbers, shares and intervals;
- :mod:`~analysis.rendering.document`: a report as a list of blocks, rendered to Markdown
  or to self-contained HTML;
- :mod:`~analysis.rendering.plots`: the charts of one run (matplotlib Figures, readable in
  grayscale);
- :mod:`~analysis.rendering.output`: writing ``report.html``, ``report.md`` and
  ``charts/`` into a folder, each file under a temporary name then renamed into place.
"""
