"""Stage 1: find the log files under the paths a user gave, and read their bytes.

A *source* is one readable log: a plain file, a compressed file (gzip, bz2, xz, zstd),
or one member of a ``.tar`` / ``.tar.gz`` / ``.zip`` bundle (read in memory, never
extracted to disk). Everything that is not read is accounted for: skipped files with
the reason, unreadable ones as problems naming the file.
"""

from __future__ import annotations

import bz2
import contextlib
import dataclasses
import glob
import io
import lzma
import os
import re
import stat
import sys
import tarfile
import threading
import time
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

#: Largest number of bytes read from one source after decompression. Past it the rest of
#: the source is not read and a problem says so (this is what stops a gzip bomb).
DEFAULT_MAX_BYTES = 4 * 1024**3

#: File endings that are never logs (checkpoints, images, compiled code, data).
NOT_LOG_SUFFIXES = frozenset(
    [
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".bmp",
        ".svg",
        ".ico",
        ".pdf",
        ".pyc",
        ".pyo",
        ".so",
        ".o",
        ".a",
        ".dll",
        ".exe",
        ".whl",
        ".egg",
        ".h5",
        ".hdf5",
        ".ckpt",
        ".index",
        ".pb",
        ".pbtxt",
        ".tflite",
        ".npy",
        ".npz",
        ".pkl",
        ".pickle",
        ".parquet",
        ".arrow",
        ".feather",
        ".db",
        ".sqlite",
        ".json",
        ".md",
        ".yaml",
        ".yml",
        ".toml",
        ".py",
        ".ipynb",
        ".html",
        ".css",
        ".js",
        ".lock",
        ".tfrecord",
        ".tfevents",
    ]
)
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd"}
ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".zip")
_MAGIC = {
    b"\x7fELF": "ELF binary (a core dump or executable)",
    b"\x89PNG": "PNG image",
    b"%PDF": "PDF document",
    b"PK\x03\x04": "zip archive",
    b"\xff\xd8\xff": "JPEG image",
    b"\x89HDF": "HDF5 file",
    b"PAR1": "Parquet file",
}
_CHUNK = 1024 * 1024
#: Bytes that text does not hold (all controls but tab, newlines, form feed, bell, backspace, ESC).
_CONTROL_BYTES = bytes(c for c in [*range(32), 127] if c not in b"\t\n\r\x0b\x0c\x07\x08\x1b")
#: Errors of a corrupt compressed stream or bundle member (data that cannot be decoded).
_CORRUPT = (
    OSError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
    ValueError,
    zipfile.BadZipFile,
    tarfile.TarError,
)


@dataclass(frozen=True)
class Problem:
    """Something about one file that the user must know: it was skipped, cut or unreadable."""

    file: str
    problem: str


@dataclass(frozen=True)
class Source:
    """One readable log: a file on disk, possibly compressed, possibly a member of a bundle."""

    path: Path  #: the file on disk (the bundle, for a member)
    name: str  #: the name shown to users: relative to the input root, ``bundle.zip!member``
    member: str | None = None  #: member name inside a bundle
    archive: str | None = None  #: "tar" or "zip" for bundle members
    compression: str | None = None  #: gzip / bz2 / xz / zstd
    size: int = 0  #: size on disk (compressed), or the member's size
    mtime: float = 0.0
    offset: int | None = None  #: the member's header offset (a bundle may repeat a name)
    data: bytes | None = field(default=None, repr=False, compare=False)  #: standard input's bytes

    @property
    def logical_name(self) -> str:
        """The name without compression suffix: ``worker-1.log.2.gz`` → ``worker-1.log.2``."""
        base = self.member or self.path.name
        base = PurePosixPath(base).name
        for suffix in COMPRESSIONS:
            if base.endswith(suffix):
                return base[: -len(suffix)]
        return base

    @property
    def parent_names(self) -> tuple[str, ...]:
        """Folder names above the file (inside a bundle: the member's folders)."""
        if self.member:
            return tuple(PurePosixPath(self.member).parent.parts)
        return tuple(Path(self.name).parent.parts)


@dataclass
class Discovery:
    """What :func:`discover` found."""

    sources: list[Source] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class UsageError(Exception):
    """A mistake in what the user asked for (a path that does not exist); exit code 2."""


#: The path argument that means standard input (``kubectl logs pod | tfdiag analyze -``).
STDIN = "-"
#: Standard input's bytes and the name they go by, once read (it can be read only once).
_stdin: tuple[bytes, str] | None = None


def stdin_name(node: str | None) -> str:
    """The name standard input goes by: ``<stdin>``, or the node the user named with --node.

    ``worker:1``, ``worker-1`` and ``/job:worker/replica:0/task:1`` all become ``worker-1`` (the
    file-name form the identity step reads); any other name is kept as given.
    """
    if not node:
        return "<stdin>"
    m = re.fullmatch(r"(?:/job:)?([A-Za-z][\w-]*?)(?:(?:[:_-]|/replica:\d+/task:)(\d+))?", node)
    if not m:
        return node
    return f"{m.group(1)}-{m.group(2)}" if m.group(2) else m.group(1)


def use_stdin(node: str | None = None, stream=None) -> bytes:
    """Read standard input once, into memory, for the ``-`` path; raise if it is empty."""
    global _stdin
    stream = stream if stream is not None else sys.stdin.buffer
    data = stream.read()
    if not data.strip():
        raise UsageError(
            "standard input is empty (paste a log, or pipe one: kubectl logs POD | tfdiag analyze -)"
        )
    _stdin = (data, stdin_name(node))
    return data


def _add_stdin(found: Discovery) -> None:
    if _stdin is None:
        use_stdin()
    assert _stdin is not None
    data, name = _stdin
    found.sources.append(Source(Path(name), name, size=len(data), mtime=time.time(), data=data))


def _is_archive(name: str) -> bool:
    return name.lower().endswith(ARCHIVE_SUFFIXES)


def _compression_of(name: str) -> str | None:
    return next((c for s, c in COMPRESSIONS.items() if name.lower().endswith(s)), None)


def _not_a_log(name: str) -> str | None:
    lower = name.lower()
    if _is_archive(lower):
        return None
    for suffix in COMPRESSIONS:
        if lower.endswith(suffix):
            lower = lower[: -len(suffix)]
    suffix = os.path.splitext(lower)[1]
    if suffix in NOT_LOG_SUFFIXES:
        return f"not a log ({suffix} file)"
    if lower.endswith(("truth.json", "readme")):
        return "not a log"
    return None


def sniff_binary(head: bytes) -> str | None:
    """Say why ``head`` (the first bytes of a decompressed source) is not text, or None."""
    for magic, what in _MAGIC.items():
        if head.startswith(magic):
            return what
    if not head:
        return None
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None  # UTF-16 with BOM: text
    # NUL bytes are neutral: a log's zero-filled tail (a crash before the data was written) or
    # leading hole (copytruncate rotation) is text around them, kept like any other line.
    sample = head[:8192].replace(b"\x00", b"")
    if not sample:
        return None
    # Control characters tell binary data (random or compressed bytes: ~10% of them); bytes
    # that are not UTF-8 alone do not: a latin-1, cp1251 or GBK log is text, kept as escapes.
    control = sum(sample.count(bytes([c])) for c in _CONTROL_BYTES)
    text = sample.decode("utf-8", "replace")
    if control > len(sample) // 25 or (
        control > len(sample) // 200 and text.count("\ufffd") > len(text) // 4
    ):
        return "binary data (not text)"
    return None


def _expand(path_arg: str | os.PathLike[str]) -> list[Path]:
    text = os.fspath(path_arg)
    if os.path.lexists(text):
        return [Path(text)]
    if any(ch in text for ch in "*?["):
        matches = sorted(glob.glob(text, recursive=True))
        if matches:
            return [Path(m) for m in matches]
    raise UsageError(f"no such file or directory: {text}")


def discover(paths: Iterable[str | os.PathLike[str]], *, follow_links: bool = False) -> Discovery:
    """Find every log source under ``paths`` (folders, files, globs).

    Folders are walked recursively. Symbolic links are not followed out of the folder
    they are found in unless ``follow_links`` is set. Raises :class:`UsageError` for a
    path that does not exist and matches nothing.
    """
    found = Discovery()
    seen: set[tuple[str, str | None]] = set()
    paths = list(paths)
    if any(os.fspath(p) == STDIN for p in paths):
        _add_stdin(found)
    expanded = [(p, arg) for arg in paths if os.fspath(arg) != STDIN for p in _expand(arg)]
    for path, _arg in expanded:
        if path.is_dir():
            root = path
            for dirpath, dirnames, filenames in os.walk(
                path, followlinks=False, onerror=_walk_error(found, root)
            ):
                dirnames.sort()
                real_dir = os.path.realpath(dirpath)  # once per folder, not per file
                relative = os.path.relpath(dirpath, root)
                for name in sorted(filenames):
                    file_path = Path(dirpath) / name
                    display = name if relative == "." else os.path.join(relative, name)
                    _add_file(found, file_path, display, root, follow_links, seen, real_dir)
                for name in list(dirnames):
                    link = Path(dirpath) / name
                    if link.is_symlink():
                        dirnames.remove(name)
                        if follow_links:
                            _add_linked_dir(found, link, root, seen)
                        else:
                            found.skipped.append(
                                Problem(
                                    str(link.relative_to(root)),
                                    "symbolic link to a folder, not followed",
                                )
                            )
        else:
            _add_file(found, path, path.name, path.parent, True, seen)
    _valid_names(found)
    _unique_names(found)
    return found


def _text(name: str) -> str:
    """A file name as valid text: bytes that are not UTF-8 become ``\\xNN`` escapes."""
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that no undecodable byte made
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


def _valid_names(found: Discovery) -> None:
    """Names go into Arrow, JSON and terminals: make file names that are not UTF-8 valid text."""
    found.sources = [
        dataclasses.replace(s, name=_text(s.name)) if not s.name.isascii() else s
        for s in found.sources
    ]
    for problems in (found.skipped, found.problems):
        problems[:] = [Problem(_text(p.file), p.problem) for p in problems]


def _walk_error(found: Discovery, root: Path):
    def report(exc: OSError) -> None:
        where = Path(exc.filename or root)
        shown = str(where.relative_to(root)) if where.is_relative_to(root) else str(where)
        found.problems.append(Problem(shown, f"cannot read folder: {exc.strerror or exc}"))

    return report


def _unique_names(found: Discovery) -> None:
    """Give files that share a name (``run1/worker-0.log``, ``run2/worker-0.log``) distinct ones."""
    counts = Counter(s.name for s in found.sources)
    if len(counts) == len(found.sources):
        return
    taken = set(counts)
    for i, src in enumerate(found.sources):
        if counts[src.name] < 2:
            continue
        base = str(src.path)
        if src.member is not None:  # keep "!member" and any " (copy N)"
            base += src.name[src.name.rfind("!" + src.member) :]
        for name in (base, *(f"{base} ({n})" for n in range(2, len(found.sources) + 2))):
            if name not in taken:
                taken.add(name)
                found.sources[i] = dataclasses.replace(src, name=name)
                break


def _add_linked_dir(found: Discovery, link: Path, root: Path, seen: set) -> None:
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        found.problems.append(Problem(str(link.relative_to(root)), f"broken symbolic link: {exc}"))
        return
    for dirpath, _dirnames, filenames in os.walk(target, followlinks=False):
        for name in sorted(filenames):
            file_path = Path(dirpath) / name
            display = str(link.relative_to(root) / file_path.relative_to(target))
            _add_file(found, file_path, display, target, True, seen)


def _add_file(
    found: Discovery,
    path: Path,
    display: str,
    root: Path,
    follow_links: bool,
    seen: set,
    real_dir: str | None = None,
) -> None:
    """Add the file at ``path`` (shown as ``display``), or say why not. ``real_dir``: its
    folder with every link resolved, when known (the file itself is then resolved only if it
    is a link)."""
    try:
        link = stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        link = False  # stat() below names why
    if link:
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            found.problems.append(
                Problem(display, f"broken or looping symbolic link ({exc.__class__.__name__})")
            )
            return
        if not follow_links and not target.is_relative_to(root.resolve()):
            found.skipped.append(
                Problem(display, "symbolic link out of the input folder, not followed")
            )
            return
    try:
        st = path.stat()
    except OSError as exc:
        found.problems.append(Problem(display, f"cannot read: {exc.strerror or exc}"))
        return
    if not stat.S_ISREG(st.st_mode):
        found.skipped.append(Problem(display, "not a regular file"))
        return
    if real_dir is not None and not link:
        key = (os.path.join(real_dir, path.name), None)
    else:
        key = (str(path.resolve()), None)
    if key in seen:
        return
    seen.add(key)
    reason = _not_a_log(path.name)
    if reason:
        found.skipped.append(Problem(display, reason))
        return
    if _is_archive(path.name):
        _add_archive(found, path, display, st)
        return
    found.sources.append(
        Source(
            path,
            display,
            compression=_compression_of(path.name),
            size=st.st_size,
            mtime=st.st_mtime,
        )
    )


def _safe_member(name: str) -> bool:
    pure = PurePosixPath(name.replace("\\", "/"))
    return not pure.is_absolute() and ".." not in pure.parts and not name.startswith("/")


def _tar_members(path: Path) -> tuple[list[tuple[str, int, bool, bool, int]], str | None]:
    """The members of a tar, header by header: a cut or corrupt tar keeps those before the cut."""
    members: list[tuple[str, int, bool, bool, int]] = []
    with tarfile.open(path, "r:*") as tf:
        try:
            for m in tf:
                members.append((m.name, m.size, m.isdir(), not (m.isfile() or m.isdir()), m.offset))
        except _CORRUPT as exc:
            return (
                members,
                f"bundle is cut or corrupt after {len(members)} member(s) ({exc}); read those",
            )
    return members, None


def _add_archive(found: Discovery, path: Path, display: str, st: os.stat_result) -> None:
    cut = None
    try:
        if path.name.lower().endswith(".zip"):
            with zipfile.ZipFile(path) as zf:
                members = [
                    (
                        i.filename,
                        i.file_size,
                        i.is_dir(),
                        stat.S_IFMT(i.external_attr >> 16) not in (0, stat.S_IFREG),  # a link
                        i.header_offset,
                    )
                    for i in zf.infolist()
                ]
            kind = "zip"
        else:
            members, cut = _tar_members(path)
            kind = "tar"
    except _CORRUPT as exc:
        found.problems.append(Problem(display, f"unreadable bundle: {exc}"))
        return
    if cut:
        found.problems.append(Problem(display, cut))
    names = Counter(name for name, _size, is_dir, _special, _offset in members if not is_dir)
    copies: dict[str, int] = {}
    for name, size, is_dir, is_special, offset in members:
        shown = f"{display}!{name}"
        if is_dir:
            continue
        if names[name] > 1:
            copies[name] = copies.get(name, 0) + 1
            shown = f"{shown} (copy {copies[name]})"
            if copies[name] == 1:
                found.problems.append(
                    Problem(
                        f"{display}!{name}",
                        f"the bundle holds {names[name]} members with this name; "
                        "each is read as its own file (copy 1, copy 2, ...)",
                    )
                )
        if not _safe_member(name):
            found.problems.append(Problem(shown, "bundle member path escapes the bundle; not read"))
            continue
        if is_special:
            found.skipped.append(Problem(shown, "link or special file in a bundle, not followed"))
            continue
        reason = _not_a_log(name)
        if reason:
            found.skipped.append(Problem(shown, reason))
            continue
        found.sources.append(
            Source(
                path,
                shown,
                member=name,
                archive=kind,
                compression=_compression_of(name),
                size=size,
                mtime=st.st_mtime,
                offset=offset,
            )
        )


@dataclass
class ReadResult:
    """The decompressed bytes of a source and what went wrong reading it."""

    data: bytes
    problems: list[str] = field(default_factory=list)


class _CrcChecked:
    """A stored zip member read as it is, its CRC checked at its end (``problem`` if it fails)."""

    def __init__(self, raw: io.BufferedIOBase, crc: int) -> None:
        self.raw, self.crc, self.running = raw, crc, 0
        self.problem: str | None = None

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        if data:
            self.running = zlib.crc32(data, self.running)
        elif self.running != self.crc and self.problem is None:
            self.problem = (
                "bad CRC-32: the bundle member is damaged; its bytes are kept as they are"
            )
        return data


def _open_member(stack: contextlib.ExitStack, src: Source) -> io.BufferedIOBase:
    if src.archive == "zip":
        zf = stack.enter_context(zipfile.ZipFile(src.path))
        infos = [i for i in zf.infolist() if i.filename == src.member]
        info = next(
            (i for i in infos if i.header_offset == src.offset), infos[-1] if infos else None
        )
        if info is None:
            raise OSError("bundle member is gone (the bundle changed since it was listed)")
        member = stack.enter_context(zf.open(info))
        if getattr(member, "_expected_crc", None) is None:
            return member
        # zipfile checks the CRC on the last read and drops what that read returned: check it
        # here instead, after every byte is kept
        member._expected_crc = None
        return _CrcChecked(member, info.CRC)
    tf, info = _tar_member(src)
    member = tf.extractfile(info)
    if member is None:
        raise OSError("bundle member is not a regular file")
    return stack.enter_context(member)


#: The tar bundle read last, kept open (one per thread): its members are read in order, so
#: each is found by reading on from the previous one, not by reading every header again.
_open_tars = threading.local()


def _tar_member(src: Source) -> tuple[tarfile.TarFile, tarfile.TarInfo]:
    st = os.stat(src.path)
    key = (str(src.path), st.st_mtime_ns, st.st_size)
    cache = getattr(_open_tars, "cache", None)
    if cache is None or cache[0] != key:
        if cache is not None:
            cache[1].close()
        _open_tars.cache = None
        cache = (key, tarfile.open(src.path, "r:*"), {})  # noqa: SIM115 (kept open)
        _open_tars.cache = cache
    _key, tf, seen = cache
    found = seen.get((src.member, src.offset)) or next(
        (i for (name, _), i in seen.items() if name == src.member and src.offset is None), None
    )
    try:
        while found is None:
            info = tf.next()  # header by header: a cut tar still yields the members before the cut
            if info is None:
                break
            seen[(info.name, info.offset)] = info
            if info.name == src.member and src.offset in (None, info.offset):
                found = info
    except BaseException:
        tf.close()
        _open_tars.cache = None
        raise
    if found is None:
        raise OSError("bundle member is gone (the bundle changed since it was listed)")
    return tf, found


@contextlib.contextmanager
def _open_raw(src: Source) -> Iterator[io.BufferedIOBase]:
    with contextlib.ExitStack() as stack:
        if src.data is not None:
            raw = stack.enter_context(io.BytesIO(src.data))
        elif src.archive:
            try:
                raw = _open_member(stack, src)
            except OSError:
                raise
            except (*_CORRUPT, KeyError, RuntimeError, NotImplementedError) as exc:
                # a corrupt bundle, an encrypted or unsupported zip member
                raise OSError(f"unreadable bundle member ({exc})") from exc
        else:
            raw = stack.enter_context(open(src.path, "rb"))
        yield raw


def _read_chunks(raw: io.BufferedIOBase, size: int) -> Iterator[bytes]:
    """Read ``raw`` to its end; where a read fails (a cut bundle member), retry with smaller
    reads so that every byte before the cut is kept, then raise the error."""
    while True:
        try:
            part = raw.read(size)
        except _CORRUPT:
            if size == 1:
                raise
            size = max(1, size // 16)
            continue
        if not part:
            return
        yield part


def _decompressor(kind: str):
    if kind == "gzip":
        return zlib.decompressobj(wbits=47)
    if kind == "bz2":
        return bz2.BZ2Decompressor()
    if kind == "xz":
        return lzma.LZMADecompressor()
    if kind == "zstd":
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj()
    raise ValueError(kind)


#: zstd has no output limit per call: small inputs bound its output (a bomb's ratio is ~40,000).
_ZSTD_READ = 4096


def _decompress_step(dec, kind: str, data: bytes) -> tuple[bytes, bytes | None]:
    """Decompress at most ``_CHUNK`` bytes; return (output, input to feed next or None)."""
    if kind == "zstd":
        out = dec.decompress(data)
        return out, (dec.unused_data if dec.eof else None)
    out = dec.decompress(data, _CHUNK)
    if dec.eof:
        return out, dec.unused_data
    if kind == "gzip":
        tail = dec.unconsumed_tail
        return out, (tail if tail or len(out) == _CHUNK else None)
    return out, (None if dec.needs_input else b"")


def _replay_gzip(dec, data: bytes, step: int) -> Iterator[bytes]:
    """Feed ``data`` to ``dec`` in pieces of ``step`` bytes and yield the output up to the
    piece that fails (which is fed again byte by byte)."""
    for i in range(0, len(data), step):
        piece = data[i : i + step]
        backup = dec.copy()
        try:
            out = dec.decompress(piece)
        except zlib.error:
            if step > 1:
                yield from _replay_gzip(backup, piece, 1)
            return
        if out:
            yield out
        if dec.eof:
            return


def _iter_decompressed(raw: io.BufferedIOBase, kind: str, problems: list[str]) -> Iterator[bytes]:
    dec = _decompressor(kind)
    consumed = 0
    read_size = _ZSTD_READ if kind == "zstd" else _CHUNK
    for chunk in _read_chunks(raw, read_size):
        consumed += len(chunk)
        pending: bytes | None = chunk
        while pending is not None:
            if getattr(dec, "eof", False):
                if not pending:
                    break
                # gzip, bz2 and xz files may hold several streams one after the other
                dec = _decompressor(kind)
            backup = dec.copy() if kind == "gzip" else None
            try:
                out, pending = _decompress_step(dec, kind, pending)
            except _CORRUPT as exc:
                if backup is not None:  # decode again up to the bad byte: keep all before it
                    yield from _replay_gzip(backup, pending, 256)
                problems.append(
                    f"corrupt {kind} data after {consumed:,} compressed bytes ({exc}); kept what came before"
                )
                return
            if out:
                yield out
    if not getattr(dec, "eof", True):
        problems.append(
            f"truncated {kind} stream (it ends before its end marker); kept what it held"
        )


def _cap_problem(max_bytes: int) -> str:
    return f"stopped reading at the cap of {max_bytes:,} bytes (decompressed); the rest is not analyzed"


def read_source(src: Source, *, max_bytes: int = DEFAULT_MAX_BYTES) -> ReadResult:
    """Read a source's bytes, decompressed, stopping at ``max_bytes``.

    Never raises for bad data: a truncated or corrupt stream keeps what was decoded and
    adds a problem; a file that cannot be opened raises ``OSError`` for the caller to report.
    """
    if src.data is not None:  # standard input, read once into memory
        if len(src.data) <= max_bytes:
            return ReadResult(src.data, [])
        return ReadResult(src.data[:max_bytes], [_cap_problem(max_bytes)])
    if not src.compression and not src.archive:
        try:  # the common case in one read: no chunk list, no join
            with open(src.path, "rb") as f:
                # read(n) sets aside n bytes first: ask for the size the file has, not the cap
                size = os.fstat(f.fileno()).st_size
                data = f.read(min(size, max_bytes) + 1)
                if size < len(data) <= max_bytes:  # it grew since: the rest, up to the cap
                    data += f.read(max_bytes + 1 - len(data))
        except OSError:
            pass  # read again below in steps, keeping what comes before the error
        else:
            if len(data) <= max_bytes:
                return ReadResult(data, [])
            return ReadResult(data[:max_bytes], [_cap_problem(max_bytes)])
    problems: list[str] = []
    parts: list[bytes] = []
    total = 0
    with _open_raw(src) as raw:
        stream: Iterable[bytes]
        if src.compression:
            stream = _iter_decompressed(raw, src.compression, problems)
        else:
            # a damaged zip member loses what its failing read decoded: read it in small steps
            stream = _read_chunks(raw, _CHUNK if src.archive != "zip" else 64 * 1024)
        try:
            for part in stream:
                if total + len(part) > max_bytes:
                    parts.append(part[: max_bytes - total])
                    total = max_bytes
                    problems.append(_cap_problem(max_bytes))
                    break
                parts.append(part)
                total += len(part)
        except _CORRUPT as exc:  # a cut bundle member, a bad CRC, an I/O error mid-file
            problems.append(
                f"read error after {total:,} bytes ({exc.__class__.__name__}: {exc}); "
                "kept what came before"
            )
        if getattr(raw, "problem", None):
            problems.append(raw.problem)  # type: ignore[attr-defined]
    return ReadResult(b"".join(parts), problems)
