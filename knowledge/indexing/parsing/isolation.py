"""Parsing in a child process with a memory limit and a time limit.

Third-party parsers (mammoth, openpyxl, pypdf, BeautifulSoup) build whole documents in memory and
can take minutes on hostile input. `parse_file_isolated()` forks, lowers the child's address-space
limit (`resource.setrlimit(RLIMIT_AS)`) and waits at most the parse timeout, so a bomb ends only
that parse — with a `FileTooLargeError` the document shows — never the worker or the machine.
The child touches no database connection: it parses, sends the result through a pipe and `_exit`s.
"""

import os
import pickle
import resource
import select
import signal
import time
from pathlib import Path

from django.conf import settings
from django.utils.formats import number_format
from django.utils.translation import gettext

from knowledge.documents import ParsedDocument
from knowledge.exceptions import FileTooLargeError, KnowledgeError, ParseError, UnsupportedFileError

MB = 1024 * 1024
# The errors a child reports by class name; anything else arrives as a `ParseError`.
ERRORS = {cls.__name__: cls for cls in (KnowledgeError, ParseError, FileTooLargeError, UnsupportedFileError)}


def parse_file_isolated(path: str | Path, *, memory_mb: int | None = None,
                        timeout: float | None = None) -> ParsedDocument:
    """`parse_file(path)` in a forked child limited to `memory_mb` more memory and `timeout` seconds."""
    from knowledge.indexing.parsing import parse_file

    path = Path(path)
    return run_isolated(lambda: parse_file(path), name=path.name, memory_mb=memory_mb, timeout=timeout)


def run_isolated(work, *, name: str, memory_mb: int | None = None, timeout: float | None = None):
    """`work()` in a forked child under the parse limits; its result, or its error re-raised here."""
    memory_mb = settings.PORTAL["PARSE_MEMORY_MB"] if memory_mb is None else memory_mb
    timeout = settings.PORTAL["PARSE_TIMEOUT_SECONDS"] if timeout is None else timeout
    if not memory_mb:
        return work()  # isolation switched off (PORTAL_PARSE_MEMORY_MB=0)
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(reader)
        _child(writer, work, memory_mb, name)
    os.close(writer)
    try:
        payload, timed_out = _read_all(reader, pid, timeout)
    finally:
        os.close(reader)
        _, status = os.waitpid(pid, 0)
    if timed_out:
        raise ParseError(gettext("%(name)s took longer than %(seconds)s seconds to read; the limit is %(limit)s s")
                         % {"name": name, "seconds": f"{timeout:g}", "limit": f"{timeout:g}"})
    if not payload:
        # Killed (by the kernel's OOM killer, or a crash inside a C extension) before it could answer.
        raise FileTooLargeError(_memory_message(name, memory_mb, status=status))
    kind, value = pickle.loads(payload)
    if kind == "ok":
        return value
    if kind == "memory":
        raise FileTooLargeError(_memory_message(name, memory_mb))
    error_class, message = value
    raise ERRORS.get(error_class, ParseError)(message)


def _memory_message(name: str, memory_mb: int, *, status: int | None = None) -> str:
    values = {"name": name, "memory": number_format(memory_mb, force_grouping=True),
              "limit": number_format(memory_mb, force_grouping=True), "status": status}
    if status is None:
        return gettext("%(name)s needs more than %(memory)s MB of memory to read; the limit is %(limit)s MB") % values
    return gettext("%(name)s needs more than %(memory)s MB of memory to read; the limit is %(limit)s MB "
                   "(the parser ended with status %(status)d)") % values


def _child(writer: int, parse, memory_mb: int, name: str) -> None:
    """Parse under the memory limit and send `(kind, value)`; never returns."""
    code = 0
    try:
        # The child shares the parent's address space at fork: the limit is what it has plus the allowance.
        with open("/proc/self/statm") as statm:
            current = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        limit = current + memory_mb * MB
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        try:
            result = ("ok", parse())
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which records it on the document
            result = _report(exc, name)
        try:
            data = pickle.dumps(result)
        except MemoryError:
            data = pickle.dumps(("memory", None))
        with os.fdopen(writer, "wb") as pipe:
            pipe.write(data)
    except BaseException:  # noqa: BLE001 - a child must never return into the parent's code
        code = 1
    finally:
        os._exit(code)


def _report(exc: BaseException, name: str) -> tuple[str, object]:
    """What the child sends for a failed parse."""
    cause: BaseException | None = exc
    while cause is not None:
        # Parsers wrap whatever their library raised in a ParseError ("damaged"); running out of
        # memory is what really happened, and the document should say so.
        if isinstance(cause, MemoryError):
            return "memory", None
        cause = cause.__cause__ or cause.__context__
    if isinstance(exc, KnowledgeError):
        return "error", (type(exc).__name__, str(exc))
    if isinstance(exc, RecursionError):
        return "error", ("ParseError", gettext("%(name)s is nested too deeply to read") % {"name": name})
    message = gettext("%(name)s: unexpected error while reading (%(type)s: %(error)s)")
    return "error", ("ParseError", message % {"name": name, "type": type(exc).__name__, "error": exc})


def _read_all(reader: int, pid: int, timeout: float) -> tuple[bytes, bool]:
    """Everything the child writes, or `(b"", True)` after killing it at the timeout."""
    deadline = time.monotonic() + timeout
    parts = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            os.kill(pid, signal.SIGKILL)
            return b"", True
        ready, _, _ = select.select([reader], [], [], remaining)
        if not ready:
            continue
        part = os.read(reader, 1024 * 1024)
        if not part:
            return b"".join(parts), False
        parts.append(part)
