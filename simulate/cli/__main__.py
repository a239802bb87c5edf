"""``python -m simulate.cli``: the ``cardsim`` command line."""

from . import main

main()
