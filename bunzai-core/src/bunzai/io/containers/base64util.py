"""Base64 as found in cards: standard or URL-safe, sometimes wrapped or unpadded.

Card payloads are megabytes of base64, so the strict C decoder runs first and the tolerant path
(whitespace, URL-safe alphabet, missing padding) only when that fails.  Garbage is refused
rather than skipped, unlike ``binascii``'s default mode.
"""

from __future__ import annotations

import binascii
import importlib
import re
from typing import Any

from bunzai.errors import LimitExceeded, MalformedInput
from bunzai.io.limits import Limits, get_limits, setting_hint

__all__ = ["check_base64_length", "decode_base64", "encode_base64", "looks_like_base64",
           "strict_base64"]

try:  # optional accelerator; same semantics with validate=True
    _pybase64: Any = importlib.import_module("pybase64")
except ImportError:  # pragma: no cover - depends on the environment
    _pybase64 = None

_STD_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_WHITESPACE = b" \t\r\n\v\f"
_URLSAFE_TO_STD = bytes.maketrans(b"-_", b"+/")
_ANY_ALPHABET = _STD_ALPHABET + b"-_"
_BAD_CHAR = re.compile(rb"[^A-Za-z0-9+/\-_=\s]")


def _strict(data: bytes | memoryview) -> bytes:
    if _pybase64 is not None:
        out: bytes = _pybase64.b64decode(data, validate=True)
        return out
    return binascii.a2b_base64(data, strict_mode=True)


def encode_base64(data: bytes | bytearray | memoryview) -> bytes:
    """Standard base64 without line breaks (what cards carry); pybase64 when installed (the same
    bytes, faster on megabyte assets)."""
    if _pybase64 is not None:
        out: bytes = _pybase64.b64encode(data)
        return out
    return binascii.b2a_base64(data, newline=False)


def check_base64_length(length: int, limits: Limits | None = None) -> None:
    """Refuse ``length`` characters of base64 beyond ``limits.max_base64`` (LimitExceeded)."""
    lim = limits or get_limits()
    if length > lim.max_base64:
        raise LimitExceeded("base64 payload", length, lim.max_base64,
                            setting_hint("max_base64"))


def decode_base64(text: str | bytes | memoryview, *, limits: Limits | None = None) -> bytes:
    """Decode standard or URL-safe base64, tolerating whitespace and missing padding.

    The encoded length is checked against ``limits.max_base64`` before any work.
    """
    check_base64_length(len(text), limits)
    if isinstance(text, str):
        try:
            raw: bytes | memoryview = text.encode("ascii")
        except UnicodeEncodeError as exc:
            raise MalformedInput(
                f"invalid base64: non-ASCII character {text[exc.start]!r} at position {exc.start}"
            ) from None
    else:
        raw = text
    try:
        return _strict(raw)
    except (binascii.Error, ValueError, TypeError):
        pass
    return _tolerant(bytes(raw))


def strict_base64(data: bytes, *, limits: Limits | None = None) -> bytes | None:
    """The decoded bytes when ``data`` is standard base64 as writers produce it (no
    whitespace, padded, at least 4 characters, within ``limits.max_base64``), else None.

    For such data :func:`looks_like_base64` is true and :func:`decode_base64` returns the
    same bytes, so a caller deciding between base64 and raw JSON can try this first and fall
    back to those two (which also explain a refusal) only when it answers None.
    """
    n = len(data)
    if n < 4 or n % 4 or data.find(b"=", 0, n - 2) >= 0 or n > (limits or get_limits()).max_base64:
        return None  # not whole quartets, or padding before the end: the careful path decides
    try:
        return _strict(data)
    except (binascii.Error, ValueError, TypeError):
        return None


def _tolerant(raw: bytes) -> bytes:
    bad = _BAD_CHAR.search(raw)
    if bad:
        char = bad.group().decode("latin-1")
        raise MalformedInput(
            f"invalid base64: unexpected character {char!r} at position {bad.start()}"
        )
    s = raw.translate(None, _WHITESPACE).translate(_URLSAFE_TO_STD)
    body = s.rstrip(b"=")
    if b"=" in body:
        raise MalformedInput("invalid base64: padding in the middle of the data")
    if len(s) - len(body) > 2:
        raise MalformedInput("invalid base64: too much padding")
    if len(body) % 4 == 1:
        raise MalformedInput(
            f"invalid base64: {len(body):,} characters cannot be a complete encoding (truncated?)"
        )
    try:
        return binascii.a2b_base64(body + b"=" * (-len(body) % 4), strict_mode=True)
    except binascii.Error as exc:  # pragma: no cover - the checks above should catch all
        raise MalformedInput(f"invalid base64: {exc}") from None


def looks_like_base64(b: bytes | str) -> bool:
    """Cheap guess: only base64 characters (either alphabet, whitespace) and a valid length.

    Used to choose between "payload is base64" and "payload is raw JSON" (Backyard EXIF,
    iTXt cards); JSON always fails because of ``{``.
    """
    s = (b.encode("latin-1", "replace") if isinstance(b, str) else b).strip(_WHITESPACE)
    if len(s) < 4:
        return False
    body = s.rstrip(b"=")
    pad = len(s) - len(body)
    if pad > 2 or not body or body.translate(None, _ANY_ALPHABET + _WHITESPACE):
        return False
    n = len(body.translate(None, _WHITESPACE))
    return (n + pad) % 4 == 0 if pad else n % 4 != 1
