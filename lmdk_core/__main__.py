"""``python -m lmdk_core`` is the ``lmdk`` command."""

import sys

from lmdk_core.cli import main

if __name__ == "__main__":  # importing it (pytest's doctest collection) runs nothing
    sys.exit(main())
