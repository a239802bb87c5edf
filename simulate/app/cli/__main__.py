"""``python -m simulate.app.cli``: the ``cardsim`` command line."""

from . import main

main()
