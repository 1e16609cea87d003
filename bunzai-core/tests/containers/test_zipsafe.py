"""SafeZip validation and reading, write_zip determinism, on built and real archives."""

from __future__ import annotations

import glob
import io
import os
import random
import stat
import struct
import warnings
import zipfile
import zlib

import pytest

from bunzai.errors import BunzaiError, LimitExceeded, MalformedInput, UnsupportedInput
from bunzai.io.containers.sniff import find_eocd, sniff_container
from bunzai.io.containers.zipsafe import SafeZip, entry_name_problem, write_zip
from bunzai.io.limits import Limits

CORPUS = "/work/shared/corpus"
REAL_ZIPS = sorted(
    glob.glob(f"{CORPUS}/charx/*") + glob.glob(f"{CORPUS}/byaf/*")
    + glob.glob(f"{CORPUS}/negative/*.zip") + glob.glob("/work/shared/samples/risu/*.charx")
)
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + b"\x11" * 64 + \
    b"PK\x03\x04 in scan data" + b"\xff\xd9"

# Offsets of fields inside a central-directory header and a local header.
CD_FIELDS = {"flags": (8, "H"), "method": (10, "H"), "crc": (16, "I"), "csize": (20, "I"),
             "size": (24, "I"), "attr": (38, "I")}
LOCAL_FIELDS = {"flags": (6, "H"), "method": (8, "H"), "crc": (14, "I"), "csize": (18, "I"),
                "size": (22, "I")}


def raw_zip(entries: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED,
            attr: int | None = None) -> bytes:
    """A zip written by zipfile without any name checks (for hostile fixtures)."""
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about duplicate names
        with zipfile.ZipFile(buf, "w") as zf:
            for name, data in entries:
                info = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
                info.compress_type = method
                if attr is not None:
                    info.external_attr = attr
                zf.writestr(info, data)
    return buf.getvalue()


def patch(data: bytes, name: str, *, local: bool = True, **values: int) -> bytes:
    """Overwrite fields of entry ``name`` in the central directory (and its local header)."""
    out = bytearray(data)
    raw = name.encode()
    pos = 0
    while True:
        pos = data.index(b"PK\x01\x02", pos)
        n = struct.unpack_from("<H", data, pos + 28)[0]
        if data[pos + 46:pos + 46 + n] == raw:
            break
        pos += 4
    local_at = struct.unpack_from("<I", data, pos + 42)[0]
    for key, value in values.items():
        off, fmt = CD_FIELDS[key]
        struct.pack_into("<" + fmt, out, pos + off, value)
        if local and key in LOCAL_FIELDS:
            off, fmt = LOCAL_FIELDS[key]
            struct.pack_into("<" + fmt, out, local_at + off, value)
    return bytes(out)


# -- happy paths ----------------------------------------------------------------------------


def test_round_trip() -> None:
    entries = [("card.json", b'{"a": 1}'), ("assets/icon/main.png", b"\x89PNG" + bytes(300)),
               ("Text.txt", "\ufeffünï".encode())]
    data = write_zip(entries)
    z = SafeZip.open(data)
    assert z.names() == ["card.json", "assets/icon/main.png", "Text.txt"]
    assert z.prefix_offset == 0
    for name, payload in entries:
        assert z.read(name) == payload
    assert z.read_text("Text.txt") == "ünï"
    assert z.has("card.json") and not z.has("CARD.JSON")
    assert z.get("CARD.JSON") is None
    entry = z.find("CARD.JSON")
    assert entry is not None and entry.name == "card.json"
    assert z.find("CARD.JSON", case_insensitive=False) is None
    main = z.get("assets/icon/main.png")
    assert main is not None and main.size == 304 and not main.is_dir
    assert main.method == zipfile.ZIP_DEFLATED and main.crc == zlib.crc32(entries[1][1])
    assert len(z) == 3 and "card.json" in z and [e.name for e in z] == z.names()
    with pytest.raises(MalformedInput, match="no entry"):
        z.read("missing.json")
    z.close()


def test_write_zip_is_deterministic() -> None:
    entries = [("a.json", b"{}"), ("b/c.bin", bytes(range(256)))]
    assert write_zip(entries) == write_zip(entries)
    other = write_zip(entries, date_time=(2024, 5, 6, 7, 8, 10))
    assert other != write_zip(entries)
    info = zipfile.ZipFile(io.BytesIO(other)).getinfo("a.json")
    assert info.date_time == (2024, 5, 6, 7, 8, 10)


def test_write_zip_compress_choice() -> None:
    entries = [("card.json", b"{}" * 100), ("img.png", bytes(1000))]
    data = write_zip(entries, compress=lambda name: name.endswith(".json"))
    z = SafeZip.open(data)
    methods = {e.name: e.method for e in z.entries}
    assert methods == {"card.json": zipfile.ZIP_DEFLATED, "img.png": zipfile.ZIP_STORED}
    assert all(e.method == 0 for e in SafeZip.open(write_zip(entries, compress=False)).entries)
    assert z.read("img.png") == bytes(1000)


def test_write_zip_dirs() -> None:
    entries = [("manifest.json", b"{}"), ("characters/c1/character.json", b"{}"),
               ("characters/c1/images/a.png", b"x"), ("characters/c1/", b""),
               ("scenarios/s1.json", b"{}")]
    z = SafeZip.open(write_zip(entries, dirs=True))
    assert z.names() == [
        "manifest.json", "characters/", "characters/c1/", "characters/c1/character.json",
        "characters/c1/images/", "characters/c1/images/a.png", "scenarios/", "scenarios/s1.json",
    ]
    assert [e.is_dir for e in z.entries].count(True) == 4
    assert z.read("characters/") == b""


def test_the_archive_comment_is_written_and_read() -> None:
    data = write_zip([("Characters/a/character.json", b"{}")], comment=b"Voxta Package")
    assert data.endswith(b"\x0d\x00Voxta Package")
    assert zipfile.ZipFile(io.BytesIO(data)).comment == b"Voxta Package"
    assert SafeZip.open(data).comment == b"Voxta Package"
    assert SafeZip.open(write_zip([("a", b"")])).comment == b""
    with pytest.raises(MalformedInput, match="comment"):
        write_zip([("a", b"")], comment=b"x" * 70000)


def test_write_zip_refuses_bad_names() -> None:
    for name in ("../x", "/abs", "a\\b", "C:/x", "a/\x00b", ""):
        with pytest.raises(MalformedInput, match="cannot write"):
            write_zip([(name, b"")])
    with pytest.raises(MalformedInput, match="duplicate"):
        write_zip([("a/b", b"1"), ("a//b", b"2")])
    with pytest.raises(MalformedInput, match="folder"):
        write_zip([("dir/", b"data")])


def test_empty_zip() -> None:
    data = write_zip([])
    assert sniff_container(data) == "zip"
    z = SafeZip.open(data)
    assert z.entries == [] and z.prefix_offset == 0


def test_jpeg_wrapped_zip_absolute_offsets() -> None:
    data = write_zip([("card.json", b'{"spec": "chara_card_v3"}')], prefix=JPEG)
    assert sniff_container(data) == "jpeg+zip"
    assert zipfile.ZipFile(io.BytesIO(data)).read("card.json")  # strict readers work too
    z = SafeZip.open(data)
    assert z.prefix_offset == len(JPEG)
    assert data[:z.prefix_offset] == JPEG
    assert z.read_text("card.json") == '{"spec": "chara_card_v3"}'


def test_jpeg_wrapped_zip_relative_offsets() -> None:
    """RisuAI's fflate writes the zip verbatim after the JPEG: offsets relative to the zip."""
    data = JPEG + write_zip([("card.json", b"{}"), ("module.risum", b"\x00" * 50)])
    assert sniff_container(data) == "jpeg+zip"
    z = SafeZip.open(data)
    assert z.prefix_offset == len(JPEG)
    assert z.read("module.risum") == b"\x00" * 50


def test_other_compression_methods() -> None:
    for method in (zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        data = raw_zip([("a.txt", b"hello " * 1000)], method=method)
        z = SafeZip.open(data)
        assert z.read("a.txt") == b"hello " * 1000


def test_utf8_name_without_flag() -> None:
    name = "assets/表情.png"
    data = write_zip([(name, b"x")])
    # clear the UTF-8 flag: zipfile would decode the name as CP437
    data = patch(data, name, flags=0)
    z = SafeZip.open(data)
    assert z.names() == [name]
    assert z.read(name) == b"x"


@pytest.mark.skipif(not REAL_ZIPS, reason="shared corpus not available")
@pytest.mark.parametrize("path", REAL_ZIPS, ids=os.path.basename)
def test_real_archives(path: str) -> None:
    with open(path, "rb") as f:
        data = f.read()
    z = SafeZip.open(data)
    assert z.entries
    for name in z.names():
        z.read(name)
    if path.endswith(".charx"):
        assert z.has("card.json")
    if path.endswith(".byaf"):
        assert z.has("manifest.json")


# -- hostile archives ------------------------------------------------------------------------


@pytest.mark.parametrize("name, problem", [
    ("../evil.txt", "'..'"),
    ("a/../../evil.txt", "'..'"),
    ("/etc/passwd", "absolute"),
    ("C:\\windows\\x", "backslash"),
    ("C:/windows/x", "drive letter"),
    ("c:x", "drive letter"),
    ("a\\b.txt", "backslash"),
    ("a\x01b.txt", "control"),
    ("a\x7fb.txt", "control"),
])
def test_hostile_names(name: str, problem: str) -> None:
    with pytest.raises(MalformedInput, match=problem):
        SafeZip.open(raw_zip([("ok.txt", b"1"), (name, b"2")]))
    assert entry_name_problem(name)


def test_nul_in_name() -> None:
    data = raw_zip([("abc.txt", b"1")])
    data = data.replace(b"abc.txt", b"a\x00c.txt")  # both headers
    with pytest.raises(MalformedInput, match="control"):
        SafeZip.open(data)


def test_symlink_entry() -> None:
    data = raw_zip([("link", b"/etc/passwd")], attr=(stat.S_IFLNK | 0o777) << 16)
    with pytest.raises(MalformedInput, match="symbolic link"):
        SafeZip.open(data)


@pytest.mark.parametrize("names", [("a.txt", "a.txt"), ("a/b.txt", "a//b.txt"),
                                   ("a/b.txt", "./a/b.txt"), ("d/", "d//")])
def test_duplicate_names(names: tuple[str, str]) -> None:
    data = raw_zip([(names[0], b""), (names[1], b"")])
    with pytest.raises(MalformedInput, match="duplicate"):
        SafeZip.open(data)


def test_declared_size_over_limits() -> None:
    data = write_zip([("a.bin", bytes(1000)), ("b.bin", bytes(1000))])
    with pytest.raises(LimitExceeded, match="BUNZAI_MAX_ENTRY_SIZE"):
        SafeZip.open(data, limits=Limits(max_entry_size=999))
    with pytest.raises(LimitExceeded, match="BUNZAI_MAX_ARCHIVE_SIZE"):
        SafeZip.open(data, limits=Limits(max_archive_size=1500))
    with pytest.raises(LimitExceeded, match="max_size=BYTES"):  # --max-size on the command line
        SafeZip.open(data, limits=Limits(max_size=100))
    SafeZip.open(data, limits=Limits(max_entry_size=1000, max_archive_size=2000))


def test_ratio_limit() -> None:
    bomb = write_zip([("bomb.bin", bytes(4 * 1024 * 1024))])  # ~4 KB compressed
    with pytest.raises(LimitExceeded, match="BUNZAI_MAX_RATIO") as err:
        SafeZip.open(bomb)
    assert "ratio" in str(err.value)
    SafeZip.open(bomb, limits=Limits(max_ratio=10_000))
    small = write_zip([("card.json", b" " * 500_000)])  # very compressible, but small
    assert SafeZip.open(small).read("card.json") == b" " * 500_000


def test_lying_declared_size_deflate() -> None:
    payload = b"a" * 100_000
    data = write_zip([("a.txt", payload)])
    lying = patch(data, "a.txt", size=100)
    z = SafeZip.open(lying)
    assert z.get("a.txt") is not None
    with pytest.raises(LimitExceeded, match="past its declared size"):
        z.read("a.txt")
    bigger = patch(data, "a.txt", size=200_000)
    with pytest.raises(MalformedInput, match="not the declared"):
        SafeZip.open(bigger).read("a.txt")


def test_lying_declared_size_stored() -> None:
    data = write_zip([("a.bin", bytes(5000))], compress=False)
    lying = patch(data, "a.bin", size=10)
    with pytest.raises(LimitExceeded):
        SafeZip.open(lying).read("a.bin")
    short = patch(data, "a.bin", size=6000)
    with pytest.raises(MalformedInput):
        SafeZip.open(short).read("a.bin")


def test_lying_declared_size_other_method() -> None:
    data = raw_zip([("a.txt", b"hello " * 1000)], method=zipfile.ZIP_LZMA)
    with pytest.raises(MalformedInput):
        SafeZip.open(patch(data, "a.txt", size=100)).read("a.txt")


def test_too_many_entries() -> None:
    data = write_zip([(f"f{i}.txt", b"") for i in range(6)])
    with pytest.raises(LimitExceeded, match="BUNZAI_MAX_ENTRIES") as err:
        SafeZip.open(data, limits=Limits(max_entries=5))
    assert "bytes" not in str(err.value)
    SafeZip.open(data, limits=Limits(max_entries=6))
    # an EOCD that under-declares: the central directory walk still counts
    eocd = find_eocd(data)
    assert eocd is not None
    under = bytearray(data)
    struct.pack_into("<HH", under, eocd + 8, 1, 1)
    with pytest.raises(LimitExceeded):
        SafeZip.open(bytes(under), limits=Limits(max_entries=5))


def test_truncated_and_corrupt_central_directory() -> None:
    data = write_zip([("a.txt", b"x" * 100), ("b.txt", b"y" * 100)])
    eocd = find_eocd(data)
    assert eocd is not None
    for cut in range(len(data)):
        with pytest.raises(MalformedInput):
            SafeZip.open(data[:cut])
    short_cd = bytearray(data)
    cd_size = struct.unpack_from("<I", data, eocd + 12)[0]
    struct.pack_into("<I", short_cd, eocd + 12, cd_size - 10)
    struct.pack_into("<I", short_cd, eocd + 16, struct.unpack_from("<I", data, eocd + 16)[0] + 10)
    with pytest.raises(MalformedInput):
        SafeZip.open(bytes(short_cd))
    with pytest.raises(MalformedInput, match="not a zip"):
        SafeZip.open(b"just some text")


def test_encrypted_entry() -> None:
    data = patch(write_zip([("secret.txt", b"x")]), "secret.txt", flags=1)
    with pytest.raises(UnsupportedInput, match="encrypted"):
        SafeZip.open(data)


def test_crc_and_corrupt_data() -> None:
    data = write_zip([("a.bin", b"abcdef" * 10)], compress=False)
    bad = data.replace(b"abcdef", b"abcdeX", 1)
    with pytest.raises(MalformedInput, match="CRC"):
        SafeZip.open(bad).read("a.bin")
    deflated = write_zip([("a.txt", os.urandom(2000).hex().encode())])
    z = SafeZip.open(deflated)
    entry = z.get("a.txt")
    assert entry is not None
    start = 30 + len("a.txt")
    broken = bytearray(deflated)
    broken[start:start + 20] = b"\xff" * 20
    with pytest.raises(MalformedInput):
        SafeZip.open(bytes(broken)).read("a.txt")


def test_unsupported_method() -> None:
    data = patch(write_zip([("a.txt", b"hello")], compress=False), "a.txt", method=99)
    with pytest.raises(UnsupportedInput, match="method 99"):
        SafeZip.open(data).read("a.txt")


def test_local_header_mismatch() -> None:
    data = write_zip([("a.txt", b"hello")])
    bad = data.replace(b"a.txt", b"b.txt", 1)  # only the local header
    with pytest.raises(MalformedInput, match="local header"):
        SafeZip.open(bad).read("a.txt")


def test_zip64_end_records() -> None:
    """A zip whose end records are Zip64 (what >65535 entries or >4 GiB archives use)."""
    plain = write_zip([("a.txt", b"hello"), ("b.txt", b"world")])
    eocd = find_eocd(plain)
    assert eocd is not None
    _sig, _d, _cd, _n1, n, cd_size, cd_off, _c = struct.unpack_from("<4s4H2LH", plain, eocd)
    rec_at = eocd
    zip64_eocd = struct.pack("<4sQ2H2L2Q2Q", b"PK\x06\x06", 44, 45, 45, 0, 0, n, n, cd_size,
                             cd_off)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, rec_at, 1)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    data = plain[:eocd] + zip64_eocd + locator + end
    assert find_eocd(data) == len(data) - 22
    z = SafeZip.open(data)
    assert z.read("b.txt") == b"world"
    assert SafeZip.open(JPEG + data).read("a.txt") == b"hello"


def test_random_corruption_only_raises_bunzai_errors() -> None:
    data = write_zip([("card.json", b'{"name": "x"}' * 20), ("img.png", bytes(300))],
                     compress=lambda n: n.endswith(".json"))
    rng = random.Random(99)
    for _ in range(1500):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        try:
            z = SafeZip.open(bytes(mutated))
            for name in z.names():
                z.read(name)
        except BunzaiError:
            pass


def test_a_reader_gets_a_json_member_or_an_error_naming_it() -> None:
    """``AdapterInput.zip_object``/``zip_archive``: what every archive reader (BYAF, Voxta)
    loads its members with, so a broken member is a one-line error naming it."""
    from bunzai.io.input import AdapterInput

    data = write_zip([("a.json", b'{"x": [1]}'), ("list.json", b"[1]"), ("bad.json", b"{")])
    inp = AdapterInput(data, "pack.zip")
    got = inp.zip_object("a.json")
    got["x"].append(2)  # a mutable copy: the shared view detectors see is untouched
    assert got == {"x": [1, 2]} and inp.zip_object("a.json") == {"x": [1]}
    with pytest.raises(MalformedInput, match=r"^list\.json must hold a JSON object, not an array"):
        inp.zip_object("list.json")
    with pytest.raises(MalformedInput, match=r"^bad\.json: "):
        inp.zip_object("bad.json")
    with pytest.raises(MalformedInput, match=r"^gone\.json is missing from the archive"):
        inp.zip_object("gone.json")
    assert inp.zip_archive("package").has("a.json")
    with pytest.raises(MalformedInput, match=r"^not a package: not a zip file"):
        AdapterInput(b'{"x": 1}', "x.json").zip_archive("package")
    broken = data[:-10]
    with pytest.raises(MalformedInput, match=r"^refusing this package: "):
        AdapterInput(broken, "pack.zip").zip_archive("package")
