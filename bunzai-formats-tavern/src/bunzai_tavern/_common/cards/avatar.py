"""The image a PNG card is written onto: the character's own avatar, transcoded when needed,
or the generated placeholder (:mod:`bunzai.io.containers.placeholder`) when it has none.

Readers recognise the placeholder's exact bytes and do not turn it into an avatar asset, which
keeps "no avatar" a round trip.  Pillow is imported only when a non-PNG avatar (JPEG, WebP from
a CharX or BYAF) has to become a PNG.
"""

from __future__ import annotations

from bunzai.sdk.png import default_avatar, is_default_avatar

__all__ = ["default_avatar", "is_default_avatar", "to_png"]


def to_png(data: bytes) -> bytes | None:
    """``data`` (any image Pillow reads) re-encoded as PNG; the first frame of an animation.

    ``None`` when Pillow is missing or cannot decode the bytes.
    """
    try:
        from io import BytesIO

        from PIL import Image
    except ImportError:
        return None
    try:
        with Image.open(BytesIO(data)) as opened:
            opened.load()
            im: Image.Image = opened
            if im.mode not in ("1", "L", "LA", "P", "RGB", "RGBA", "I", "I;16"):
                im = im.convert("RGBA")
            out = BytesIO()
            im.save(out, format="PNG")
            return out.getvalue()
    except Exception:  # Pillow raises many types for corrupt or hostile images
        return None
