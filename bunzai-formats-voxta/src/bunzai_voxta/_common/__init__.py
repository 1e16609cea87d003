"""What both Voxta adapters share: the package layout, its JSON dialect and Voxta macros."""
