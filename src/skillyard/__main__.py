"""`python -m skillyard` is the `skillyard` command."""

from skillyard.cli import main

main()
