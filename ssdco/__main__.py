"""``python -m ssdco``: the ``ssdco`` command line."""

import sys

from ssdco.cli import main

sys.exit(main())
