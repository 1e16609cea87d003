"""bunzai format adapters for the risu family."""
