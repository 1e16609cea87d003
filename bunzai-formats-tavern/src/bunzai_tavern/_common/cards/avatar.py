"""The image a PNG card is written onto: the character's own avatar, transcoded when needed,
or the generated placeholder (:mod:`bunzai.io.containers.placeholder`) when it has none.

Readers recognise the placeholder's exact bytes and do not turn it into an avatar asset, which
keeps "no avatar" a round trip.  Pillow (a dependency of this distribution) is imported only
when a non-PNG avatar (JPEG, WebP from a CharX or BYAF) has to become a PNG.
"""

from __future__ import annotations

from bunzai.sdk.png import default_avatar, is_default_avatar

__all__ = ["Undecodable", "default_avatar", "is_default_avatar", "to_png"]


class Undecodable(ValueError):
    """An image Pillow cannot decode; the message says what Pillow found wrong."""


def to_png(data: bytes) -> bytes:
    """``data`` (any image Pillow reads) re-encoded as PNG; the first frame of an animation.

    Raises :class:`Undecodable` (with Pillow's reason) when the bytes do not decode, so the
    writer can report the avatar dropped for that reason.
    """
    from io import BytesIO

    from PIL import Image

    try:
        with Image.open(BytesIO(data)) as opened:
            opened.load()
            im: Image.Image = opened
            if im.mode not in ("1", "L", "LA", "P", "RGB", "RGBA", "I", "I;16"):
                im = im.convert("RGBA")
            out = BytesIO()
            im.save(out, format="PNG")
            return out.getvalue()
    except Exception as exc:  # Pillow raises many types for corrupt or hostile images
        raise Undecodable(str(exc) or type(exc).__name__) from None
