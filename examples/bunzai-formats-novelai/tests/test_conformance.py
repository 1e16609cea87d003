"""bunzai's standard checks for the novelai-lorebook adapter (the conformance kit).

Every check is inherited; to skip one that does not apply, override it with
``@waive("reason")`` (``from bunzai.testing.kit import waive``).  Removing or overriding a check
without a reason fails ``test_standard_checks_are_not_removed``.
"""

from pathlib import Path

from bunzai.testing.kit import AdapterConformance

SAMPLES = Path(__file__).parent / "samples"


class TestNovelaiLorebookAdapter(AdapterConformance):
    format_id = "novelai-lorebook"
    samples = sorted([*SAMPLES.glob("*.lorebook"), *SAMPLES.glob("*.png")])
    malformed_samples = sorted((SAMPLES / "malformed").iterdir())
