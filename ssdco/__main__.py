"""``python -m ssdco``: the ``ssdco`` command line."""

import sys

from .cli import main

sys.exit(main())
