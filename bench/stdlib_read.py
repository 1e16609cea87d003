"""Cold-start floor: read a PNG card with the standard library only and print its name.

The least a command-line tool must do for ``inspect``: start the interpreter, walk the chunk
headers, base64-decode and parse the card chunks, print something.  No third-party imports.
"""

import base64
import json
import struct
import sys


def main(path: str) -> int:
    with open(path, "rb") as fh:
        buf = fh.read()
    pos, found = 8, {}
    while pos + 12 <= len(buf):
        length, ctype = struct.unpack_from(">I4s", buf, pos)
        if ctype == b"tEXt":
            key, _, value = buf[pos + 8:pos + 8 + length].partition(b"\x00")
            if key in (b"chara", b"ccv3"):
                found[key] = json.loads(base64.b64decode(value))
        elif ctype == b"IEND":
            break
        pos += 12 + length
    card = found.get(b"ccv3") or found.get(b"chara") or {}
    print(card.get("data", card).get("name", "?"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
