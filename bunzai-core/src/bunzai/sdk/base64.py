"""Base64 for format adapters: strict or tolerant decoding under the size limits."""

from ..io.containers.base64util import (
    check_base64_length,
    decode_base64,
    encode_base64,
    looks_like_base64,
)

__all__ = ["check_base64_length", "decode_base64", "encode_base64", "looks_like_base64"]
