"""bunzai's standard checks for the novelai-lorebook adapter (the conformance kit).

Every check is inherited; to skip one that does not apply, override it with
``@waive("reason")`` (``from bunzai.testing.kit import waive``).  Removing or overriding a check
without a reason fails ``test_standard_checks_are_not_removed``.

The samples are ours (``samples/``) plus, when bunzai's shared corpus is present, the real
NovelAI files in it, read in place: app exports of version 4, a tool's version 6, and two broken
tool outputs that must be refused.
"""

from pathlib import Path

from bunzai.testing import corpus_files
from bunzai.testing.kit import AdapterConformance

SAMPLES = Path(__file__).parent / "samples"
REAL = corpus_files("nai-lorebook")
BROKEN = ("__lorebook_generated__", "__Ripple_")


class TestNovelaiLorebookAdapter(AdapterConformance):
    format_id = "novelai-lorebook"
    samples = sorted([*SAMPLES.glob("*.lorebook"), *SAMPLES.glob("*.png"),
                      *(p for p in REAL if not any(b in p.name for b in BROKEN))])
    malformed_samples = sorted([*(SAMPLES / "malformed").iterdir(),
                                *(p for p in REAL if any(b in p.name for b in BROKEN))])
