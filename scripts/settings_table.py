"""Write the settings table (every REA_* variable, from the settings classes' field metadata) into the README.

.venv/bin/python scripts/settings_table.py            # rewrites README.md between its markers
.venv/bin/python scripts/settings_table.py --check    # exits 1 when the README is out of date
                                                      # (tests/unit/test_settings.py)
"""

from __future__ import annotations

import sys
from pathlib import Path

from rea_core.settings_table import write_readme_table

README = Path(__file__).resolve().parents[1] / "README.md"

if __name__ == "__main__":
    if "--check" in sys.argv:
        before = README.read_text(encoding="utf-8")
        changed = write_readme_table(README)
        README.write_text(before, encoding="utf-8")
        sys.exit("README.md's settings table is out of date: run scripts/settings_table.py" if changed else 0)
    print("README.md updated" if write_readme_table(README) else "README.md up to date")
