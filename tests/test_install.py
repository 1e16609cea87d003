"""Installing bunzai the way a user does, and the hints that tell a user what to install."""

from __future__ import annotations

import tomllib

from bunzai.distributions import FIRST_PARTY

from .plugin_env import ROOT

# -- the hints name a real folder of the checkout ---------------------------------------------


def test_every_install_hint_names_a_folder_of_the_checkout_holding_that_distribution() -> None:
    for dist in FIRST_PARTY:
        folder = ROOT / dist.checkout_path
        toml = folder / "pyproject.toml"
        assert toml.is_file(), f"{dist.name}: no {dist.checkout_path} in the checkout"
        assert tomllib.loads(toml.read_text(encoding="utf-8"))["project"]["name"] == dist.name
