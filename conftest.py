"""Every test process runs on a UTC clock.

Chat dates written without a zone are read in this machine's local time by default, so what the
tests read from such files would otherwise depend on where the suite runs; the tests of other
zones set their own and put this one back.
"""

from __future__ import annotations

import os
import time

os.environ["TZ"] = "UTC"
time.tzset()
