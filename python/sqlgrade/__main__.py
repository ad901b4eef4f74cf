"""``python -m sqlgrade ...`` runs the sqlgrade CLI (the binary bundled in the wheel; see _cli.py)."""

from ._cli import main

main()
