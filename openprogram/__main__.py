"""`python -m openprogram`: the same as the `openprogram` command."""

import sys

from openprogram.cli.main import main

sys.exit(main())
