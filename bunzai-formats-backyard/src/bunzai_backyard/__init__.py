"""bunzai format adapters for the backyard family."""
