"""EXIF UserComment for format adapters (TavernAI WebP/JPEG cards, Backyard PNG cards)."""

from ..io.containers.exif import build_exif_user_comment, find_exif, png_exif, read_user_comment

__all__ = ["build_exif_user_comment", "find_exif", "png_exif", "read_user_comment"]
