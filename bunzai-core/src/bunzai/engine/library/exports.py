"""A folder of exports (placeholder)."""
