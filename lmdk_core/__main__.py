"""``python -m lmdk_core`` is the ``lmdk`` command."""

import sys

from lmdk_core.cli import main

sys.exit(main())
