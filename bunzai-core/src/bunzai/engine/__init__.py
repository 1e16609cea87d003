"""The engine: what bunzai does with files (inspect, validate, label, convert, batches, diff,
lorebook and chat operations), as typed results that the CLI, the studio and the Python API
present."""
