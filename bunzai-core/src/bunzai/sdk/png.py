"""PNG chunks for format adapters: walk without decoding pixels, text chunks, byte-exact splice."""

from ..io.containers import png
from ..io.containers.imagecheck import image_damage, picture_damage, png_damage
from ..io.containers.placeholder import default_avatar, is_default_avatar
from ..io.containers.png import *  # noqa: F403  (the names of its __all__)

__all__ = ["default_avatar", "image_damage", "is_default_avatar", "picture_damage", "png_damage"]
__all__ += png.__all__
