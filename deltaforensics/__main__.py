from __future__ import annotations

import sys

from deltaforensics.cli import main

sys.exit(main())
