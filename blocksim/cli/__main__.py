"""``python -m blocksim.cli``: the same as the ``blocksim`` console script."""

import sys

from blocksim.cli import main

sys.exit(main())
