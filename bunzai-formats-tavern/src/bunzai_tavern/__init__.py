"""bunzai format adapters for the tavern family."""
