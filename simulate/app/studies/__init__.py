"""Studies: many runs planned together, and run one after another.

- :mod:`~simulate.app.studies.file`: study files (TOML: a base game, player counts and named
  variants) and rule files, read and fully checked before anything is written;
- :mod:`~simulate.app.studies.tomlines`: the line of a key in a TOML file, for error messages;
- :mod:`~simulate.app.studies.sweep`: ``cardsim sweep``: one run folder per cell of a study,
  then the comparison reports;
- :mod:`~simulate.app.studies.tournament`: ``cardsim tournament``: every strategy against
  every other, seat advantage cancelled.
"""
