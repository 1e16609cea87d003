"""The version of bunzai-core, kept at the bottom of the house so that every layer may say it."""

__version__ = "0.1.0"
