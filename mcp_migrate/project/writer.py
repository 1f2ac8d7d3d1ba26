"""Writing fixed files safely: atomically, only if unchanged since read, modes preserved,
symlinks followed only to targets inside the paths being fixed.

Like an editor, `fix` refuses a read-only file and a file it could not give back to its owner
(another user's file in a folder we can write: the replacement would belong to us). The
temporary file of a write is named `.NAME.<8 random characters>.mcp-migrate` beside NAME; it never outlives
a failed or interrupted write (SIGINT, SIGTERM, SIGHUP, any exit path), and the ones a killed
(SIGKILL) run left behind are removed by the next write in that folder once they are stale.

What "refuses to clobber concurrent edits" guarantees (`write_atomic`): where the system swaps
two names in one step (Linux's renameat2 RENAME_EXCHANGE: ext4, xfs, btrfs, tmpfs; not NFS),
a save made by renaming a new file over the original, or a deletion, at any moment after the
file was read, is kept: the replacement is swapped in, the file that came out is compared with
what was read, and it goes back if it differs. A save written in place is kept too, unless
its writer opened the file before the swap and writes after that comparison (microseconds):
those bytes go to the file that came out, which is removed. Elsewhere the last comparison is
made just before a plain rename, and a save in the microseconds between is lost.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import signal
import stat
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.record import record
from mcp_migrate.project import exchange  # (read when used: the fault tests wrap exchange.exchange)
from mcp_migrate.project.regular import read_regular

#: The suffix of our temporary files (tempfile.mkstemp adds 8 random characters before it).
TEMP_SUFFIX = ".mcp-migrate"
#: `.NAME.<8 random characters>.mcp-migrate` (fixes, baselines) and the baseline's older `NAME.tmp-mcp-migrate`.
_OUR_TEMP = lazy_compile(r"(\..+\.[a-z0-9_]{8}\.mcp-migrate|.+\.tmp-mcp-migrate)\Z", re.DOTALL)
#: A temporary file of ours older than this was left by a killed run: a live write of even a
#: large file takes well under a second, so ten minutes never races a concurrent run.
STALE_SECONDS = 600
#: Folders already swept for stale temporary files in this process.
_swept: set = set()
#: The temporary files this process is writing now: removed at exit (atexit) whatever cut a
#: write short, so only a SIGKILL can leave one behind (and the next write sweeps that).
_live: set = set()


class WriteRefused(OSError):
    """A write that policy forbids (read-only file, an owner we cannot keep); its text is the reason."""

    def __init__(self, reason: str):
        super().__init__(0, reason)


@record(frozen=True)
class Snapshot:
    """What a file looked like when it was read: its bytes and the stat fields an editor's
    save changes (a save by rename gives a new inode, one in place a new mtime or size)."""

    data: bytes
    mtime_ns: int
    size: int
    ino: int = 0
    dev: int = 0


def snapshot(path: Path, max_size: int = 0) -> Snapshot:
    """Read a regular file (anything else is an OSError: a FIFO would block the run); one over
    `max_size` bytes (max-file-size) is regular.TooLarge, found before reading it."""
    data, st = read_regular(str(path), max_size=max_size)
    return Snapshot(data, st.st_mtime_ns, st.st_size, st.st_ino, st.st_dev)


def write_target(path: Path, roots: Iterable[Path]) -> tuple:
    """(real file to write, None) or (None, reason to skip) for a discovered path."""
    if not path.is_symlink():
        return path, None
    target = path.resolve()
    for root in roots:
        root = root.resolve()
        if target == root or root in target.parents:
            return target, None
    return None, f"symlink to {target}, outside the paths being fixed: skipped"


def refusal(st: os.stat_result, path: Path) -> str | None:
    """Why an editor would not silently overwrite this file, or None. Read-only means the
    owner's write bit is off (root may write anyway, and neither vim nor we do that silently)
    or the file is not writable for us. Another user's file can be replaced only by root,
    who can give the new file back to its owner."""
    if not st.st_mode & stat.S_IWUSR or not os.access(path, os.W_OK):
        return "read-only file: not overwritten (make it writable to change it)"
    euid = os.geteuid() if hasattr(os, "geteuid") else None
    if euid not in (None, 0, st.st_uid):
        return f"owned by another user (uid {st.st_uid}): not replaced (the new file would belong to you)"
    return None


CHANGED = "changed on disk during the run (after it was read): not overwritten"
DELETED = "deleted during the run (after it was read): not written back"


def changed_since(path: Path, before: Snapshot) -> str | None:
    """Why `path` is no longer what `before` read (CHANGED, DELETED), or None: its size, mtime,
    inode and device, then its bytes (read no further than one past the old size)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return DELETED
    if (st.st_size, st.st_mtime_ns) != (before.size, before.mtime_ns):
        return CHANGED
    if before.ino and (st.st_ino, st.st_dev) != (before.ino, before.dev):
        return CHANGED
    try:
        data = read_regular(str(path), len(before.data) + 1)[0]
    except OSError:  # swapped for a FIFO, made unreadable: not the file that was read
        return CHANGED
    return CHANGED if data != before.data else None


def write_atomic(path: Path, new: bytes, before: Snapshot) -> str | None:
    """Replace `path` with `new` unless it changed since `before` or an editor would refuse to
    (see `refusal`); None on success, else why not. The file is compared with `before` again
    once the new bytes are on disk, and, where the system can swap two names in one step
    (`replace_file`), once more on the very file the swap moved out, which goes back if it is
    not what was read: an editor's save by rename, or a deletion, made at any moment after the
    read is kept, not lost."""
    try:
        changed = changed_since(path, before)
        if changed is not None:
            return changed
        st = os.stat(path)
        problem = refusal(st, path)
        if problem is not None:
            return problem
        replace_file(path, new, like=st, unchanged=lambda where: changed_since(where, before))
    except OSError as exc:
        if isinstance(exc, WriteRefused):
            return exc.strerror
        return f"cannot write: {exc.strerror or exc}"
    return None


def replace_file(
    path: Path, data: bytes, like: os.stat_result | None = None, unchanged: Callable | None = None
) -> None:
    """Write `data` to a temporary file beside `path`, flush it to disk, give it `like`'s
    permission bits and owner (else the mode a new file gets), then rename it over `path`, so a
    reader never sees half a file. `unchanged(where)` says why the file at `where` is no longer
    the one to replace (a reason), or None: it is asked of `path` once the new bytes are on
    disk, and may veto the write (WriteRefused). With it, the rename is an exchange where the
    system has one (`_swap_in`): no save can slip in between that last look and the rename.
    Raises OSError (WriteRefused when the owner cannot be kept or `unchanged` vetoes); the
    temporary file never survives a failure."""
    import tempfile  # here: a warm check imports this module (the cache) but writes nothing

    _sweep_once(path.parent)
    fd, tmp = tempfile.mkstemp(dir=str(path.parent), prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    _live.add(tmp)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, stat.S_IMODE(like.st_mode) if like is not None else _new_file_mode())
        if like is not None:
            _keep_owner(tmp, like)
        veto = unchanged(path) if unchanged is not None else None
        if veto is not None:
            raise WriteRefused(veto)
        if unchanged is None or not _swap_in(tmp, path, unchanged):
            os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise
    finally:
        _live.discard(tmp)


def _swap_in(tmp: str, path: Path, unchanged: Callable) -> bool:
    """Exchange the replacement at `tmp` with the file at `path` (project.exchange), then ask
    `unchanged` of the file that came out, now at `tmp`: the file as it was at the instant of
    the swap, whatever an editor did after the last look. What was read: it is removed, and the
    write is done (True). Anything else (a save landed in between) goes back to `path` and the
    write is refused (WriteRefused), as is a file deleted in between (the swap finds no file:
    nothing is recreated). False where the system cannot swap (the caller renames).

    Signals wait until the swap is settled: a Ctrl-C in between would remove the file at
    `tmp`, which may be the editor's save. What stays open: bytes written in place by a program
    that opened the file before the swap and writes after the comparison go to the file that
    came out, which is removed (no call locks out such a write)."""
    ours = os.lstat(tmp).st_ino
    with _signals_held():
        try:
            swapped = exchange.exchange(tmp, str(path))
        except FileNotFoundError:
            raise WriteRefused(DELETED) from None
        if not swapped:
            return False
        veto = unchanged(Path(tmp))
        if veto is not None:
            _put_back(tmp, path, ours)
        os.unlink(tmp)
    if veto is not None:
        raise WriteRefused(veto)
    return True


def _put_back(tmp: str, path: Path, ours: int) -> None:
    """The file that came out of the swap (at `tmp`) back at `path`, where the replacement
    (inode `ours`) now is; the replacement then leaves at `tmp`. When `path` no longer holds
    the replacement (a newer save or a deletion came after the swap), that newer act stands and
    nothing moves. A save that lands between that look and the swap back comes out in its turn,
    and one more swap puts it back in place."""
    try:
        if os.lstat(path).st_ino != ours:
            return
        exchange.exchange(tmp, str(path))
        if os.lstat(tmp).st_ino != ours:
            exchange.exchange(tmp, str(path))
    except FileNotFoundError:  # deleted after the swap: the deletion stands
        pass


@contextlib.contextmanager
def _signals_held():
    """SIGINT, SIGTERM and SIGHUP held back for the block (main thread, POSIX): their handlers
    raise in Python, and an exception in the middle of an exchange could remove a saved file."""
    held = {getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)}
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def sweep_own_temps() -> None:
    """Remove the temporary files this process is still writing: an exit path or a signal
    (SIGTERM, SIGHUP: the CLI turns them into an exception) cut their write short."""
    for tmp in list(_live):
        try:
            os.unlink(tmp)
        except OSError:
            pass
        _live.discard(tmp)


atexit.register(sweep_own_temps)


def _keep_owner(tmp: str, like: os.stat_result) -> None:
    """Give `tmp` the original's owner and group. A group we cannot set is tolerated (the
    folder's group applies, as when the editor saves); an owner we cannot set is refused."""
    if not hasattr(os, "chown"):
        return
    try:
        os.chown(tmp, like.st_uid, like.st_gid)
    except OSError:
        if os.stat(tmp).st_uid != like.st_uid:
            raise WriteRefused(
                f"owned by another user (uid {like.st_uid}): not replaced (the new file would belong to you)"
            ) from None


def _new_file_mode() -> int:
    """0o666 minus the umask: what `open(path, "w")` would have given a new file."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _sweep_once(folder: Path) -> None:
    """Sweep each folder a run writes into once (a fix may write many files in one folder)."""
    key = os.path.abspath(folder)
    if key not in _swept:
        _swept.add(key)
        sweep_stale_temps(key)


def sweep_stale_temps(folder: str, now: float | None = None) -> int:
    """Remove the temporary files of ours in `folder` that a killed run left behind: only our
    name pattern, only regular files we own, only ones older than STALE_SECONDS (a concurrent
    run's live file is never touched). Returns how many."""
    now = time.time() if now is None else now
    removed = 0
    try:
        with os.scandir(folder) as entries:
            stale = [e for e in entries if _OUR_TEMP.match(e.name) and _is_stale(e, now)]
        for entry in stale:
            os.unlink(entry.path)
            removed += 1
    except OSError:
        pass  # an unreadable folder or a file that vanished: nothing of ours to clean
    return removed


def _is_stale(entry: os.DirEntry, now: float) -> bool:
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    ours = not hasattr(os, "geteuid") or st.st_uid == os.geteuid()
    return stat.S_ISREG(st.st_mode) and ours and now - st.st_mtime > STALE_SECONDS


def same_file_as_any(target: str, paths: Iterable[str]) -> bool:
    """Whether `target` exists and is one of `paths` (the same file: another spelling or a
    symlink counts), so an output option never replaces an input."""
    try:
        st = os.stat(target)
    except OSError:
        return False
    for path in paths:
        try:
            if os.path.samestat(st, os.stat(path)):
                return True
        except OSError:
            continue
    return False
