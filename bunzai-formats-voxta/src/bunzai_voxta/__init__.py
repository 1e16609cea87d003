"""bunzai format adapters for Voxta packages (``.voxpkg``)."""
