"""Stage 1: find the log files under the paths a user gave, and read their bytes.

A *source* is one readable log: a plain file, a compressed file (gzip, bz2, xz, zstd),
or one member of a ``.tar`` / ``.tar.gz`` / ``.zip`` bundle (read in memory, never
extracted to disk). Everything that is not read is accounted for: skipped files with
the reason, unreadable ones as problems naming the file.
"""

from __future__ import annotations

import bz2
import contextlib
import glob
import io
import lzma
import os
import stat
import tarfile
import zipfile
import zlib
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
    sample = head[:8192]
    nul = sample.count(b"\x00")
    if nul > len(sample) // 10:
        return "binary data (many NUL bytes)"
    text = sample.decode("utf-8", "replace")
    odd = text.count("\ufffd") + sum(
        1 for ch in text if ch < " " and ch not in "\t\n\r\x0b\x0c\x1b"
    )
    if odd > len(text) // 10:
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
    expanded = [(p, arg) for arg in paths for p in _expand(arg)]
    for path, _arg in expanded:
        if path.is_dir():
            root = path
            for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
                dirnames.sort()
                for name in sorted(filenames):
                    file_path = Path(dirpath) / name
                    display = str(file_path.relative_to(root)) if root != file_path else name
                    _add_file(found, file_path, display, root, follow_links, seen)
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
    return found


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
    found: Discovery, path: Path, display: str, root: Path, follow_links: bool, seen: set
) -> None:
    if path.is_symlink():
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


def _add_archive(found: Discovery, path: Path, display: str, st: os.stat_result) -> None:
    try:
        if path.name.lower().endswith(".zip"):
            with zipfile.ZipFile(path) as zf:
                members = [(i.filename, i.file_size, i.is_dir(), False) for i in zf.infolist()]
            kind = "zip"
        else:
            with tarfile.open(path, "r:*") as tf:
                members = [
                    (m.name, m.size, m.isdir(), not (m.isfile() or m.isdir()))
                    for m in tf.getmembers()
                ]
            kind = "tar"
    except (
        OSError,
        tarfile.TarError,
        zipfile.BadZipFile,
        EOFError,
        zlib.error,
        lzma.LZMAError,
    ) as exc:
        found.problems.append(Problem(display, f"unreadable bundle: {exc}"))
        return
    for name, size, is_dir, is_special in members:
        shown = f"{display}!{name}"
        if is_dir:
            continue
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
            )
        )


@dataclass
class ReadResult:
    """The decompressed bytes of a source and what went wrong reading it."""

    data: bytes
    problems: list[str] = field(default_factory=list)


@contextlib.contextmanager
def _open_raw(src: Source) -> Iterator[io.BufferedIOBase]:
    with contextlib.ExitStack() as stack:
        if src.archive == "zip":
            zf = stack.enter_context(zipfile.ZipFile(src.path))
            yield stack.enter_context(zf.open(src.member))  # type: ignore[arg-type]
        elif src.archive == "tar":
            tf = stack.enter_context(tarfile.open(src.path, "r:*"))
            member = tf.extractfile(src.member)  # type: ignore[arg-type]
            if member is None:
                raise OSError("bundle member is not a regular file")
            yield stack.enter_context(member)
        else:
            yield stack.enter_context(open(src.path, "rb"))


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


def _iter_decompressed(raw: io.BufferedIOBase, kind: str, problems: list[str]) -> Iterator[bytes]:
    dec = _decompressor(kind)
    consumed = 0
    while True:
        chunk = raw.read(_CHUNK)
        if not chunk:
            break
        consumed += len(chunk)
        while chunk:
            try:
                out = dec.decompress(chunk)
            except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError) as exc:
                problems.append(
                    f"corrupt {kind} data after {consumed:,} compressed bytes ({exc}); kept what came before"
                )
                return
            if out:
                yield out
            # gzip and bz2 files may hold several streams one after the other
            chunk = getattr(dec, "unused_data", b"") if getattr(dec, "eof", False) else b""
            if chunk:
                dec = _decompressor(kind)
    if not getattr(dec, "eof", True):
        problems.append(
            f"truncated {kind} stream (it ends before its end marker); kept what it held"
        )


def read_source(src: Source, *, max_bytes: int = DEFAULT_MAX_BYTES) -> ReadResult:
    """Read a source's bytes, decompressed, stopping at ``max_bytes``.

    Never raises for bad data: a truncated or corrupt stream keeps what was decoded and
    adds a problem; a file that cannot be opened raises ``OSError`` for the caller to report.
    """
    problems: list[str] = []
    parts: list[bytes] = []
    total = 0
    with _open_raw(src) as raw:
        stream: Iterable[bytes]
        if src.compression:
            stream = _iter_decompressed(raw, src.compression, problems)
        else:
            stream = iter(lambda: raw.read(_CHUNK), b"")
        for part in stream:
            if total + len(part) > max_bytes:
                parts.append(part[: max_bytes - total])
                total = max_bytes
                problems.append(
                    f"stopped reading at the cap of {max_bytes:,} bytes (decompressed); the rest is not analyzed"
                )
                break
            parts.append(part)
            total += len(part)
    return ReadResult(b"".join(parts), problems)
