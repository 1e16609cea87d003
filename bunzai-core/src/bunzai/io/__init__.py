"""Bytes in and bytes out: the input an adapter is handed, JSON, containers, limits, outputs.

Everything here works on bytes and parsed JSON and knows nothing of formats or plugins: the
shared views of one input (:mod:`.input`), JSON parsing within bunzai's limits (:mod:`.jsonio`),
the container parsers every format uses (:mod:`.containers`: PNG chunks, zip safety, EXIF,
media sniffing), what an entity was read from (:mod:`.asread`), and safe, atomic outputs with
their names (:mod:`.outputs`).
"""
