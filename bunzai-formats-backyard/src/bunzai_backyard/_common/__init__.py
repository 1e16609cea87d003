"""Code shared by the BYAF and legacy Backyard adapters (macros, field mapping, guards)."""
