"""Write the hostile corpus to a folder: ``python -m tests.hostile.generate OUT_DIR``.

Used to seed fuzzing and to look at the cases by hand; the tests generate them in memory.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .active import all_active_cases
from .cases import all_cases


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "hostile-cases")
    out.mkdir(parents=True, exist_ok=True)
    index = []
    for case in all_cases():
        target = out / f"{case.name}__{case.filename}"
        if case.data is None:
            target.mkdir(exist_ok=True)
        else:
            target.write_bytes(case.data)
        index.append({"file": target.name, "codes": sorted(case.codes),
                      "message": case.message})
    for active in all_active_cases():
        target = out / f"{active.name}__{active.filename}"
        target.write_bytes(active.data)
        index.append({"file": target.name, "active": [
            {"path": e.path, "kind": e.kind, "app": e.app, "when": e.when}
            for e in active.expect]})
    (out / "index.json").write_text(json.dumps(index, indent=2))
    print(f"{len(index)} cases written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
