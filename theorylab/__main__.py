"""``python -m theorylab`` runs the command line (same as the ``theorylab`` script)."""

import sys

from .cli import main

sys.exit(main())
