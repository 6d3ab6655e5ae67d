from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from knowledge.models import Document
from tests.conftest import DATA
from tests.factories import make_kb


@pytest.mark.django_db
def test_ingest_command_walks_folders_and_prints_a_summary(tmp_path):
    kb = make_kb()
    (tmp_path / "notes.md").write_text("# Notes\n\nThe portal indexes notes.\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    (tmp_path / "sub" / "image.gif").write_bytes(b"GIF89a")
    out = StringIO()
    call_command("ingest", kb.slug, str(tmp_path), str(DATA / "documents/csv/hflabs-city-ru.csv"), stdout=out)
    text = out.getvalue()
    assert "ready: 2 (new 2, updated 0), unchanged: 0, failed: 1" in text
    assert "broken.pdf" in text
    assert Document.objects.filter(knowledge_base=kb, status="ready").count() == 2

    out = StringIO()
    call_command("ingest", kb.slug, str(tmp_path / "notes.md"), stdout=out)
    assert "unchanged: 1" in out.getvalue()


@pytest.mark.django_db
def test_ingest_command_rejects_an_unknown_base():
    with pytest.raises(CommandError, match="No knowledge base"):
        call_command("ingest", "missing", "README.md")


@pytest.mark.django_db
def test_reindex_command_reports_the_job():
    kb = make_kb()
    out = StringIO()
    call_command("ingest", kb.slug, str(DATA / "documents/md/en/react-learn-installation.md"), stdout=StringIO())
    call_command("reindex", kb.slug, "--force", stdout=out)
    assert "succeeded: 1/1 documents, updated 1" in out.getvalue()
