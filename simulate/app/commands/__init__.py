"""The work of the commands that play run folders, written once: the command line
(:mod:`simulate.app.cli`) parses and prints, the Python API (:mod:`simulate.app.api`) returns
tables, and both call these.

- :mod:`simulate.app.commands.runs`: one run folder, new or completed (``--resume``): the
  settings a resume may be given checked against the run's, the space check, the header
  line, the play, the report;
- :mod:`simulate.app.commands.balance`: a run and its skill games (``DIR/skill``), new or
  completed.
"""
