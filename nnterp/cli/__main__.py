"""``python -m nnterp.cli``: the command line."""

from nnterp.cli import main

main()
