"""Enables bunzai's pytest plugin (fixtures and the conformance kit's report header)."""

pytest_plugins = ["bunzai.testing.plugin"]
