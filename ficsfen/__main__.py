"""``python -m ficsfen``: the same command line as the ``ficsfen`` script."""

import sys

from ficsfen.cli import main

sys.exit(main())
