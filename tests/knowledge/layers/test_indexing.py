"""Storing the layers: per-file documents, idempotent re-runs, incremental git re-index, the command."""

import os
import shutil
import subprocess
import threading
import zipfile
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import TestCase, override_settings

from knowledge.indexing.layers import store
from knowledge.indexing.layers.repository import RepositoryError, open_repository
from knowledge.models import Chunk, Document
from knowledge.search import retrieval
from knowledge.search.planned import plan_and_search
from tests.factories import make_kb
from tests.stubs import counting_embedder

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
PROJECT = Path(__file__).resolve().parents[3]

# Rows per layer for the two fixture folders together (asserted row by row in test_docs/test_code).
FIXTURE_COUNTS = {"C0": 32, "C1": 43, "C2": 50, "C3": 15, "C4": 15,
                  "D0": 8, "D1": 3, "D2": 17, "D3": 6, "D4": 2, "D5": 7, "D6": 2}


def make_repo(root: Path) -> Path:
    shutil.copytree(FIXTURES / "layered_docs", root / "docs")
    shutil.copytree(FIXTURES / "sample_pkg", root, dirs_exist_ok=True)
    return root


def git(root: Path, *args: str) -> str:
    command = ["git", "-C", str(root), "-c", "user.email=test@example.com", "-c", "user.name=Test", *args]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()


def chunk_ids(kb, path: str) -> set[int]:
    return set(Chunk.objects.filter(document__knowledge_base=kb, document__path=path).values_list("pk", flat=True))


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path / "shop")


@pytest.mark.django_db
def test_a_folder_becomes_one_ready_document_per_file_with_every_layer(repo):
    kb = make_kb()
    result = store.index_repository(kb, repo)
    assert (result.repo_id, result.commit_sha, result.files) == ("shop", "", 13)
    assert dict(result.outcomes) == {"created": 13}
    assert dict(result.rows_written) == FIXTURE_COUNTS
    assert store.layer_counts(kb) == dict(sorted(FIXTURE_COUNTS.items()))
    documents = Document.objects.filter(knowledge_base=kb)
    assert {d.source_kind for d in documents} == {"repository"}
    assert {d.status for d in documents} == {"ready"}
    billing = documents.get(path="docs/services/billing.md")
    assert (billing.source_uri, billing.title, billing.mime) == ("repo:shop:docs/services/billing.md",
                                                                 "Billing service", "text/markdown")
    assert billing.metadata["layers"] == {"D0": 5, "D1": 1, "D2": 15, "D3": 3, "D4": 1, "D5": 5, "D6": 2}
    assert billing.chunk_count == 32
    chunk = Chunk.objects.get(document=billing, layer="D6", position=0)
    assert chunk.metadata["target"] == "Stripe" and chunk.metadata["repo_id"] == "shop"
    assert chunk.embedding is not None and chunk.search_vector is not None
    code = documents.get(path="shop/billing.py")
    assert (code.title, code.mime) == ("shop/billing.py", "text/x-source")
    symbol = Chunk.objects.get(document=code, layer="C1", metadata__qname="shop.billing.charge")
    assert (symbol.span_start, symbol.span_end, symbol.language) == (24, 29, "python")


@pytest.mark.django_db
def test_running_again_changes_nothing_and_a_removed_file_is_deleted(repo):
    kb = make_kb()
    store.index_repository(kb, repo)
    before = chunk_ids(kb, "shop/models.py")
    result = store.index_repository(kb, repo)
    assert dict(result.outcomes) == {"unchanged": 13}
    assert chunk_ids(kb, "shop/models.py") == before
    (repo / "docs" / "notes.md").unlink()
    result = store.index_repository(kb, repo)
    assert (result.outcomes["deleted"], result.outcomes["unchanged"]) == (1, 12)
    assert not Document.objects.filter(knowledge_base=kb, path="docs/notes.md").exists()


@pytest.mark.django_db
def test_layers_and_metadata_filters_work_through_search(repo):
    kb = make_kb()
    store.index_repository(kb, repo)
    hits = retrieval.search("integrations", [kb.pk], top_k=10, layers=["D6"], filters={"source_id": "billing-service"})
    assert sorted(hit.metadata["target"] for hit in hits) == ["Orders service", "Stripe"]
    hits = retrieval.search("POST /orders", [kb.pk], top_k=10, layers=["C3"],
                            filters={"http_method": "POST", "declared_route_key": "/orders"})
    assert sorted(hit.metadata["handler_symbol"] for hit in hits) == ["shop.api.create_order",
                                                                      "shop.ninja_api.create_order_ninja"]
    hits = retrieval.search("who calls charge", [kb.pk], top_k=20, mode="keyword", layers=["C2"],
                            filters={"edge_type": "calls", "dst_name": "charge"})
    # Every caller of a `charge`: the function, and the gateway methods (`super().charge`, `gateway.charge`).
    assert {hit.metadata["src_qname"] for hit in hits} == {
        "shop.api.create_order", "shop.web.refund", "tests.test_billing.test_charge_marks_the_order_paid",
        "shop.billing.StripeGateway.charge", "shop.billing.charge"}


@pytest.mark.django_db
def test_incremental_reindex_touches_only_the_changed_file(tmp_path):
    repo = make_repo(tmp_path / "shop")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "first")
    first = git(repo, "rev-parse", "HEAD")
    kb = make_kb()
    assert store.index_repository(kb, repo).commit_sha == first
    untouched = {path: chunk_ids(kb, path) for path in ("shop/api.py", "shop/models.py", "docs/services/billing.md")}
    billing_before = chunk_ids(kb, "shop/billing.py")

    source = (repo / "shop" / "billing.py").read_text()
    (repo / "shop" / "billing.py").write_text(source + "\n\ndef refund(order: Order) -> None:\n    log_payment(0)\n")
    (repo / "docs" / "notes.md").unlink()
    git(repo, "commit", "-qam", "refunds")
    second = git(repo, "rev-parse", "HEAD")

    result = store.index_repository(kb, repo, since=first)
    assert (result.commit_sha, result.files) == (second, 1)
    assert dict(result.outcomes) == {"updated": 1, "deleted": 1}
    assert {path: chunk_ids(kb, path) for path in untouched} == untouched
    assert chunk_ids(kb, "shop/billing.py").isdisjoint(billing_before)
    assert Chunk.objects.filter(knowledge_base=kb, layer="C1", metadata__qname="shop.billing.refund").exists()
    edge = Chunk.objects.get(knowledge_base=kb, layer="C2", metadata__src_qname="shop.billing.refund")
    assert (edge.metadata["dst_ref"], edge.metadata["resolution"]) == ("shop.billing.log_payment", "resolved")
    assert set(Document.objects.filter(knowledge_base=kb).values_list("commit_sha", flat=True)) == {second}
    assert not Document.objects.filter(knowledge_base=kb, path="docs/notes.md").exists()


@pytest.mark.django_db
def test_an_edited_file_re_embeds_only_its_rows_that_changed(tmp_path):
    repo = make_repo(tmp_path / "shop")
    with counting_embedder.registered() as embedder:
        kb = make_kb(embedder="counting")
        store.index_repository(kb, repo)
        embedder.reset()
        billing = repo / "shop" / "billing.py"
        billing.write_text(f"{billing.read_text()}\n\ndef refund(order: Order) -> None:\n    log_payment(0)\n")
        assert dict(store.index_repository(kb, repo).outcomes)["updated"] == 1
    rows = Chunk.objects.filter(knowledge_base=kb, document__path="shop/billing.py").count()
    assert any("refund" in text for text in embedder.passages)
    assert 0 < len(embedder.passages) < rows / 2, (len(embedder.passages), rows)


def test_git_snapshots_list_changes_and_refuse_unknown_commits(tmp_path):
    repo = make_repo(tmp_path / "shop")
    (repo / ".gitignore").write_text("ignored/\n")
    (repo / "ignored").mkdir()
    (repo / "ignored" / "skip.py").write_text("x = 1\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "first")
    first = git(repo, "rev-parse", "HEAD")
    (repo / "shop" / "cli.py").write_text("# edited, not committed\n")
    (repo / "shop" / "new.py").write_text("def new():\n    pass\n")
    with open_repository(repo, since=first, indexable=store.is_indexable) as snapshot:
        assert snapshot.is_git and snapshot.commit_sha == first
        assert "ignored/skip.py" not in snapshot.files
        assert snapshot.changed == ["shop/cli.py", "shop/new.py"]
    for bad in ("0" * 40, f"--output={tmp_path / 'written'}", "HEAD --output=x"):
        with pytest.raises(RepositoryError, match="Unknown commit"), open_repository(repo, since=bad):
            pass
    assert not (tmp_path / "written").exists()  # never reached git as an option
    with open_repository(repo, since="HEAD~0", indexable=store.is_indexable) as snapshot:
        assert snapshot.changed == ["shop/cli.py", "shop/new.py"]
    with open_repository(repo / "shop", indexable=store.is_indexable) as snapshot:
        assert snapshot.prefix == "shop/"  # a folder inside the checkout keeps its project paths
        assert "new.py" in snapshot.files


def test_a_zip_archive_is_unpacked_and_checked(tmp_path):
    repo = make_repo(tmp_path / "shop")
    archive = tmp_path / "shop-main.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in repo.rglob("*"):
            if path.is_file():
                zf.write(path, f"shop-main/{path.relative_to(repo).as_posix()}")
    with open_repository(archive, indexable=store.is_indexable) as snapshot:
        assert snapshot.repo_id == "shop-main"
        assert "shop/billing.py" in snapshot.files and "docs/services/billing.md" in snapshot.files
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("../escape.py", "x = 1\n")
    with pytest.raises(RepositoryError, match="unsafe path"), open_repository(bad):
        pass
    with pytest.raises(RepositoryError, match="needs a git checkout"), open_repository(archive, since="HEAD"):
        pass
    # GitHub names every branch archive "main.zip": the folder inside names the repository.
    github = tmp_path / "main.zip"
    shutil.copy(archive, github)
    with open_repository(github, indexable=store.is_indexable) as snapshot:
        assert snapshot.repo_id == "shop-main"


@pytest.mark.django_db
def test_index_repo_command_prints_rows_per_layer_and_records_a_job(repo):
    kb = make_kb()
    out, err = StringIO(), StringIO()
    call_command("index_repo", kb.slug, str(repo), stdout=out, stderr=err)
    text = out.getvalue()
    assert "succeeded: repository shop at -; files: new 13, updated 0, unchanged 0, deleted 0, failed 0" in text
    assert "Python module roots: (top folder)" in text
    assert "C1    Symbols                        43       43" in text
    assert "D6    Integrations                    2        2" in text
    assert "13/13" in err.getvalue()  # the progress bar
    job = kb.jobs.get()
    assert (job.kind, job.status, job.progress_done, job.counters["rows_C3"]) == ("index_repo", "succeeded", 13, 15)
    with pytest.raises(CommandError, match="No knowledge base"):
        call_command("index_repo", "missing", str(repo))


@pytest.mark.django_db
def test_a_second_folder_of_the_same_name_needs_a_name_of_its_own(tmp_path):
    first, second = make_repo(tmp_path / "one" / "src"), make_repo(tmp_path / "two" / "src")
    (second / "extra.py").write_text("def extra():\n    return 2\n")
    kb = make_kb()
    call_command("index_repo", kb.slug, str(first), stdout=StringIO(), stderr=StringIO())
    paths = set(store.repo_documents(kb, "src").values_list("path", flat=True))
    # Indexed as "src" too, the second folder would have replaced the first: refused, nothing touched.
    with pytest.raises(CommandError, match=r"already holds the repository src, indexed from .*one/src"):
        call_command("index_repo", kb.slug, str(second), stdout=StringIO(), stderr=StringIO())
    assert set(store.repo_documents(kb, "src").values_list("path", flat=True)) == paths
    call_command("index_repo", kb.slug, str(first), stdout=StringIO(), stderr=StringIO())  # the same folder again
    call_command("index_repo", kb.slug, str(second), "--name", "src-two", stdout=StringIO(), stderr=StringIO())
    assert "extra.py" in set(store.repo_documents(kb, "src-two").values_list("path", flat=True))
    assert set(store.repo_documents(kb, "src").values_list("path", flat=True)) == paths
    call_command("index_repo", kb.slug, str(second), "--name", "src", stdout=StringIO(), stderr=StringIO())
    assert set(store.repo_documents(kb, "src").values_list("path", flat=True)) == paths | {"extra.py"}


@pytest.mark.django_db
def test_the_commands_a_package_installs_are_entrypoints_of_the_repository(repo):
    (repo / "pyproject.toml").write_text('[project]\nname = "shop"\n\n'
                                         '[project.scripts]\nshop-admin = "shop.cli:main"\n')
    (repo / "web").mkdir()
    (repo / "web" / "package.json").write_text('{"name": "shop-web", "bin": {"shop-web": "bin/serve.js"}, '
                                               '"scripts": {"start": "node bin/serve.js"}}')
    kb = make_kb()
    result = store.index_repository(kb, repo)
    assert result.outcomes["created"] == 15 and not result.failures
    declared = Chunk.objects.filter(document__knowledge_base=kb, layer="C3",
                                    document__path__in=["pyproject.toml", "web/package.json"])
    assert declared.count() == 3  # the installed command, the npm bin and the npm script
    text = " ".join(declared.values_list("content", flat=True))
    assert "shop-admin" in text and "shop.cli.main" in text and "shop-web" in text and "start" in text


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="gives the checkout to another user")
def test_a_checkout_git_refuses_to_read_is_an_error_not_a_plain_folder(tmp_path):
    repo = make_repo(tmp_path / "shop")
    (repo / ".gitignore").write_text("secrets.py\n")
    (repo / "secrets.py").write_text("TOKEN = 'not for the index'\n")
    git(repo, "init", "-q")
    for path in [repo, *repo.rglob("*")]:
        os.chown(path, 4321, 4321, follow_symlinks=False)  # git's safe.directory check refuses it
    with pytest.raises(RepositoryError, match="belongs to another user.*safe.directory"), open_repository(repo):
        pass


@pytest.mark.django_db
def test_a_search_not_about_tests_ranks_a_test_file_below_the_code_it_tests(repo):
    kb = make_kb()
    store.index_repository(kb, repo)
    question = "charge order paid"
    hits = retrieval.search(question, [kb.pk], top_k=10, mode="keyword")
    paths = [Document.objects.get(pk=hit.document_id).path for hit in hits]
    with override_settings(PORTAL={**settings.PORTAL, "TEST_FILE_WEIGHT": 1.0}):
        undemoted = [Document.objects.get(pk=hit.document_id).path
                     for hit in retrieval.search(question, [kb.pk], top_k=10, mode="keyword")]
    assert undemoted[0] == "tests/test_billing.py"  # the test names charge, order and paid the most
    assert paths[0].startswith("shop/") and "tests/test_billing.py" in paths
    # Asked about the tests, they rank as they are.
    asked = retrieval.search(f"test: {question}", [kb.pk], top_k=10, mode="keyword")
    assert Document.objects.get(pk=asked[0].document_id).path == "tests/test_billing.py"


class OwnRepositoryTests(TestCase):
    """The project's own `knowledge` package as a real-world check."""

    def test_the_knowledge_package_indexes_with_sensible_counts(self):
        kb = make_kb()
        result = store.index_repository(kb, PROJECT / "knowledge", name="portal")
        counts = store.layer_counts(kb)
        print(f"\nown knowledge package: {result.files} files, layers {counts}")
        self.assertEqual(result.outcomes["failed"], 0, result.failures)
        self.assertGreater(result.files, 30)
        self.assertGreater(counts["C1"], 300)
        self.assertGreater(counts["C2"], counts["C1"])
        entrypoints = set(Chunk.objects.filter(knowledge_base=kb, layer="C3")
                          .values_list("metadata__route_or_command", flat=True))
        self.assertTrue({"POST /search", "ingest", "reindex", "index_repo"} <= entrypoints, entrypoints)
        symbol = Chunk.objects.get(knowledge_base=kb, layer="C1",
                                   metadata__qname="knowledge.indexing.chunks.replace_chunks")
        self.assertEqual(symbol.metadata["kind"], "function")
        callers = set(Chunk.objects.filter(knowledge_base=kb, layer="C2", metadata__edge_type="calls",
                                           metadata__dst_ref="knowledge.indexing.chunks.replace_chunks")
                      .values_list("metadata__src_qname", flat=True))
        self.assertIn("knowledge.indexing.layers.store.store_file", callers)
        # The router over the real index.
        plan, hits = plan_and_search("Where is POST /search handled?", [kb.pk])
        self.assertEqual([hit.metadata["handler_symbol"] for hit in hits if hit.layer == "C3"],
                         ["knowledge.api.search"])
        self.assertEqual([hit.metadata["qname"] for hit in hits if hit.layer == "C0"], ["knowledge.api.search"])
        plan, hits = plan_and_search("Кто вызывает функцию replace_chunks?", [kb.pk])
        self.assertEqual(plan.intent, "calls")
        self.assertIn("knowledge.indexing.layers.store.store_file",
                      {hit.metadata["src_qname"] for hit in hits if hit.layer == "C2"})


class JobAndReindexTests(TestCase):
    def test_a_queued_job_indexes_the_repository_in_a_worker(self):
        kb = make_kb()
        with self.captureOnCommitCallbacks(execute=True):
            job = store.start_index_repo(kb, str(FIXTURES / "layered_docs"), name="docs")
        job.refresh_from_db()
        self.assertEqual((job.kind, job.status, job.progress_done, job.progress_total),
                         ("index_repo", "succeeded", 3, 3))
        self.assertEqual((job.counters["created"], job.counters["rows_D6"], job.options["repo_id"]), (3, 2, "docs"))
        self.assertTrue(job.task_id)

    def test_a_missing_path_fails_the_job_with_the_reason(self):
        kb = make_kb()
        # The task re-raises so that django-q2 records the failure too.
        with (self.assertLogs("portal.jobs", "WARNING") as logs, self.assertRaises(RepositoryError),
              self.captureOnCommitCallbacks(execute=True)):
            store.start_index_repo(kb, "/no/such/folder")
        # Said for people, in one line: no traceback in the worker's log for a path that does not exist.
        self.assertEqual([record.exc_info for record in logs.records], [None])
        self.assertIn("No such folder or archive: /no/such/folder", logs.output[0])
        job = kb.jobs.get()
        self.assertEqual(job.status, "failed")
        self.assertIn("No such folder or archive", job.error_message)

    def test_reindex_document_rebuilds_the_layers_from_the_stored_text(self):
        kb = make_kb()
        store.index_repository(kb, FIXTURES / "sample_pkg", name="shop")
        document = Document.objects.get(knowledge_base=kb, path="shop/billing.py")
        before = chunk_ids(kb, "shop/billing.py")
        Chunk.objects.filter(knowledge_base=kb).update(embedding=None)  # as after an embedder switch
        result = store.reindex_document(document)
        self.assertEqual((result.outcome, result.document.chunk_count), ("updated", document.chunk_count))
        rebuilt = Chunk.objects.filter(document=document)
        self.assertTrue(before.isdisjoint(set(rebuilt.values_list("pk", flat=True))))
        self.assertEqual(sorted(set(rebuilt.values_list("layer", flat=True))), ["C0", "C1", "C2"])
        self.assertFalse(rebuilt.filter(embedding=None).exists())
        # Cross-file resolution still works from the stored texts of the other files.
        edge = rebuilt.get(layer="C2", metadata__src_qname="shop.billing.charge",
                           metadata__dst_ref="shop.models.Order.mark_paid")
        self.assertEqual(edge.metadata["resolution"], "resolved")


def test_hidden_folders_and_files_are_skipped_in_every_source_kind(tmp_path):
    repo = make_repo(tmp_path / "shop")
    for rel in (".claude/agent.md", ".agents/helper.py", "docs/.drafts/wip.md", "shop/.secret.py"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("# hidden\n")
    hidden = {".claude/agent.md", ".agents/helper.py", "docs/.drafts/wip.md", "shop/.secret.py"}
    with open_repository(repo, indexable=store.is_indexable) as snapshot:  # a plain folder
        assert not hidden & set(snapshot.files) and "shop/billing.py" in snapshot.files
    archive = tmp_path / "shop.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in repo.rglob("*"):
            if path.is_file():
                zf.write(path, f"shop-main/{path.relative_to(repo).as_posix()}")
    with open_repository(archive, indexable=store.is_indexable) as snapshot:
        assert not hidden & set(snapshot.files) and "shop/billing.py" in snapshot.files
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "hidden folders committed")
    assert ".claude/agent.md" in git(repo, "ls-files")
    with open_repository(repo, indexable=store.is_indexable) as snapshot:  # a git checkout lists them
        assert not hidden & set(snapshot.files) and "shop/billing.py" in snapshot.files


@pytest.mark.django_db(transaction=True)
def test_two_runs_of_one_repository_at_once_take_turns(repo):
    """Two runs started together (two workers given one job, a script and the admin) stored the same files
    at once: the second's new documents broke the base's one-document-per-file rule (duplicate keys)."""
    kb = make_kb()
    start, results, errors = threading.Barrier(2), [], []

    def index():
        start.wait(10)
        try:
            results.append(store.index_repository(kb, repo))
        except Exception as exc:  # pragma: no cover - the failure this test is about
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=index) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert sorted(sorted(result.outcomes.items()) for result in results) == [[("created", 13)], [("unchanged", 13)]]
    assert [result.failures for result in results] == [[], []]
    assert Document.objects.filter(knowledge_base=kb).count() == 13
    assert store.layer_counts(kb) == dict(sorted(FIXTURE_COUNTS.items()))
