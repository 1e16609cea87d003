"""Prompts: the text a preset or prompt template builds for a chat, by SillyTavern's rules (and a
format's own renderer where it has one), so that a converted template can be shown to build
the same prompt.  Formats reach it through :mod:`bunzai.sdk.prompts`; ``bunzai template
render`` through :mod:`bunzai.engine.templates`."""
