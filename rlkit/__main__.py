"""``python -m rlkit`` runs the command line."""

import sys

from rlkit.cli import main

sys.exit(main())
