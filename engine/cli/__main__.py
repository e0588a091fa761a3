"""``python -m hookproof.engine.cli``: the command line (the supervisor of ``serve --workers N``
starts its workers so)."""

import sys

from . import main

sys.exit(main())
