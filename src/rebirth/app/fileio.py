"""Atomic file writes: a reader (or a crash) sees the old file or the new one, never a part."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from rebirth.engine.messages import UserError


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that it is replaced whole or not at all.

    The data goes to a temporary file in the same folder, which is flushed to disk
    and renamed over ``path``; the folder is then synced so the rename survives a
    crash. Text is written as UTF-8. Raises OSError when any step fails, and then
    leaves ``path`` as it was.
    """
    target = Path(path)
    folder = target.parent
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp makes the file private (0600); a record is an ordinary file.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_dir(folder)


def _sync_dir(folder: Path) -> None:
    # Some systems (and Windows) cannot open a folder for fsync: the file itself is safe then.
    try:
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def check_writable_file(path: str | os.PathLike[str]) -> UserError | None:
    """Why a file cannot be written at ``path`` (None when it can), checked before a long run.

    The reason is a :class:`UserError` that is returned, not raised: ``str(why)`` is the English
    sentence, and as an argument of another message it is nested and reads in every language."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        return UserError("error.file.is_folder")
    if not folder.is_dir():
        return UserError("error.file.no_folder", folder=repr(str(folder)))
    if not os.access(folder, os.W_OK | os.X_OK):
        return UserError("error.file.folder_not_writable", folder=repr(str(folder)))
    if target.exists() and not os.access(target, os.W_OK):
        # os.replace would work, but a read-only file says "do not overwrite".
        return UserError("error.file.read_only")
    return None


def check_writable_dir(path: str | os.PathLike[str]) -> UserError | None:
    """Why files cannot be written into folder ``path`` (None when they can); it may be created.
    The reason is returned as :func:`check_writable_file` returns it."""
    d = Path(path)
    if d.exists():
        if not d.is_dir():
            return UserError("error.file.exists_not_folder")
        if not os.access(d, os.W_OK | os.X_OK):
            return UserError("error.file.this_folder_not_writable")
        return None
    parent = d.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return UserError("error.file.not_a_folder", path=repr(str(parent)))
    if not os.access(parent, os.W_OK | os.X_OK):
        return UserError("error.file.folder_not_writable", folder=repr(str(parent)))
    return None
