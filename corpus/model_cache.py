"""Built typing models kept on disk, so a process loads in a fraction of a second what takes seconds to build.

Building the phonetic model (``corpus.romanization``) from its shipped files means parsing a 4 MB JSON n-gram model
and a 150,000-word lexicon into about a million dict entries, about 5 CPU-seconds; every app server and test worker
paid it. The built object is kept as a pickle in a cache directory and read back with the C unpickler (a few tenths of
a second). A cached file is named by its key, the SHA-256 of everything the built object depends on: the data
files, the source of the modules that build it (this one included) and the Python version. Any change to one gives
another name, so a stale file is never read; it is only left behind (the newest ``KEEP`` per name are kept).

Files are written to a temporary name and renamed, so a reader (another worker, another server) sees a whole file
or none. A cached file must belong to this user and be writable by nobody else (unpickling runs what the file says);
otherwise, or when the directory cannot be written or a file is damaged, the model is built as before and nothing
is lost but time. The data's licences (CC BY-SA credit, among others) are copied next to the files derived from it.

``CORPUS_MODEL_CACHE`` names the directory (default ``$XDG_CACHE_HOME/hindi-aspect-corpus`` or
``~/.cache/hindi-aspect-corpus``); ``off`` builds every time.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import os
import pickle
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

log = logging.getLogger(__name__)

CACHE_ENV = "CORPUS_MODEL_CACHE"
CACHE_NAME = "hindi-aspect-corpus"
# Bumped when the way files are written changes in a way the sources' hashes would not show.
FORMAT = 1
PROTOCOL = 5
# Files of one name (older keys) kept after a new one is written: another checkout may still use them.
KEEP = 3
# How long a process waits for another one's build of the same model before building it itself.
BUILD_WAIT_S = 120.0

T = TypeVar("T")


def cache_dir() -> Path | None:
    """Where built models are kept, or None when caching is off."""
    chosen = os.environ.get(CACHE_ENV, "").strip()
    if chosen.lower() == "off":
        return None
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # no home directory to be found: build every time
            return None
    return Path(base) / CACHE_NAME


def cache_key(sources: Sequence[Path]) -> str:
    """SHA-256 over the format, the Python version and each source's name and bytes (a missing file counts as
    missing): equal keys mean the same inputs built by the same code."""
    digest = hashlib.sha256(f"{FORMAT}|{PROTOCOL}|{sys.implementation.cache_tag}|{sys.version}".encode())
    for path in [*sources, Path(__file__)]:
        path = Path(path)
        digest.update(b"\0" + path.name.encode() + b"\0")
        try:
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        except FileNotFoundError:
            digest.update(b"missing")
    return digest.hexdigest()


def cached(name: str, sources: Sequence[Path], build: Callable[[], T], licences: Sequence[Path] = (),
           directory: Path | None = None) -> T:
    """``build()``, read from the cache when a file of this name and key is there, else built and written to it.

    ``sources`` are every file the result depends on, the building module's own source among them; ``licences``
    are copied next to the cached file. ``directory`` overrides ``cache_dir()``."""
    folder = directory if directory is not None else cache_dir()
    if folder is None:
        return build()
    path = folder / f"{name}-{cache_key(sources)}.pickle"
    found = _read(path)
    if found is not None:
        return found
    with _building(folder / f".{name}.lock"):
        found = _read(path)  # built by another process while this one waited for the lock
        if found is not None:
            return found
        value = build()
        try:
            _write(path, value, sources, licences)
        except (OSError, pickle.PicklingError) as exc:
            log.warning("could not cache %s in %s: %s", name, folder, exc)
    return value


@contextmanager
def _building(lock: Path) -> Iterator[None]:
    """One process at a time builds a model: servers or test workers started together on a fresh machine would
    each spend the seconds of a build on the same file; the others wait and read it. Without a lock to be had
    (no ``fcntl``, a directory that cannot be written, a builder that takes past ``BUILD_WAIT_S``), build anyway."""
    handle = None
    try:
        import fcntl

        lock.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle = open(lock, "a")  # noqa: SIM115 - held for the whole build
        deadline = time.monotonic() + BUILD_WAIT_S
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    log.warning("%s held past %.0f s: building without it", lock, BUILD_WAIT_S)
                    break
                time.sleep(0.05)
    except (ImportError, OSError) as exc:
        log.debug("building without a lock (%s)", exc)
    try:
        yield
    finally:
        if handle is not None:
            handle.close()  # releases the lock


def _read(path: Path):
    """The object in ``path``, or None when there is none this user may trust or it cannot be read."""
    try:
        with open(path, "rb") as fh:
            info = os.fstat(fh.fileno())
            if info.st_uid != os.getuid() or info.st_mode & 0o022:
                log.warning("not reading %s: it must belong to this user and be writable by nobody else", path)
                return None
            # Collections would walk the half-built tables again and again: none until the whole object is read.
            enabled = gc.isenabled()
            gc.disable()
            try:
                return pickle.load(fh)
            finally:
                if enabled:
                    gc.enable()
    except FileNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 - a damaged or foreign file is rebuilt, whatever the unpickler says
        log.warning("could not read %s (%s): building it again", path, exc)
        return None


def _notice(name: str, sources: Sequence[Path], licences: Sequence[Path]) -> str:
    """What a cached file is derived from and where its credits and licences are."""
    data = ", ".join(Path(s).name for s in sources if not Path(s).name.endswith(".py"))
    credits = ", ".join(licence.name for licence in licences)
    return (f"{name}-<key>.pickle: a Python object built from {data} (shipped in corpus/data of the Hindi aspect "
            f"corpus) and distributed under the same terms. Credits and licences: {credits}, in this directory.\n")


def _write(path: Path, value, sources: Sequence[Path], licences: Sequence[Path]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    name = path.name.rsplit("-", 1)[0]
    licences = [Path(licence) for licence in licences if Path(licence).exists()]
    for licence in licences:
        _replace(path.parent / licence.name, licence.read_bytes())
    if licences:
        _replace(path.parent / f"{name}.NOTICE", _notice(name, sources, licences).encode())
    _replace(path, pickle.dumps(value, protocol=PROTOCOL))
    _prune(path)


def _replace(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (a temporary file in the same directory, then a rename)."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _prune(path: Path) -> None:
    """Remove all but the newest ``KEEP`` cached files of this name (other keys: older data or code)."""
    name = path.name.rsplit("-", 1)[0]
    files = sorted(path.parent.glob(f"{name}-*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[KEEP:]:
        if old != path:
            old.unlink(missing_ok=True)
