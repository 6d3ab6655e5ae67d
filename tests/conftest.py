"""Test-wide set-up: tasks run in-process, uploads go to a temporary folder."""

import os
import signal
from pathlib import Path

import pytest
from django_q.conf import Conf

from portal.catalogues import compile_catalogues

# django-q2 reads its configuration once at import; tests run tasks synchronously unless a test
# starts a real qcluster process (tests/e2e).
Conf.SYNC = True

# The Russian catalogue as bin/test and bin/up compile it, for runs that call pytest directly.
compile_catalogues()

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path_factory):
    settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")


@pytest.fixture(autouse=True)
def _fresh_query_vectors():
    """Each test starts with an empty query-vector cache: a question another test asked is embedded again."""
    from knowledge.search import query_vectors

    query_vectors.clear()


@pytest.fixture(autouse=True)
def _fresh_search_statistics():
    """Each test reads the statistics a search weighs terms and plans by as its own data left them, not
    those an earlier test's search kept for the next few minutes."""
    from knowledge.search import ann_plan, term_shares

    term_shares.forget()
    ann_plan.forget_index_rows()


@pytest.fixture(autouse=True)
def _default_language_after():
    """Each test leaves no language active: a request in Russian (LocaleMiddleware activates the
    reader's language for the thread, as a server does per request) must not make the next test's
    workers write Russian."""
    from django.utils import translation

    yield
    translation.deactivate()


def stop_server_left_running(pgdata: Path) -> None:
    """After a failed test that started an embedded server of its own: a fast shutdown of it, so it
    does not outlive the run."""
    pid_file = pgdata / "postmaster.pid"
    if pid_file.exists():
        try:
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGINT)
        except (ProcessLookupError, FileNotFoundError):
            pass  # it ended meanwhile


@pytest.fixture
def openai_stub():
    from tests.stubs.openai_stub import OpenAIStub

    stub = OpenAIStub().start()
    yield stub
    stub.stop()


# Browser fixtures (`browser`, `page`) for tests that drive headless Chromium.
from tests.browser import browser, page  # noqa: E402,F401
