import io
import json
import tempfile
import tracemalloc
from pathlib import Path

from django.contrib.auth import get_user_model
from django.test import TestCase

from evaluation import golden, proposals
from evaluation.exceptions import InvalidGoldenSetError
from evaluation.models import ExpectedSource, Feedback, GoldenQuestion
from tests.conftest import DATA
from tests.factories import make_document, make_kb
from tests.tickets.helpers import make_help_centre
from tickets import inbox, triage

TYDI = DATA / "ru" / "tydiqa_goldp_ru"


def beir_slice(folder, docs: int = 30):
    """The first `docs` TyDi-ru passages with the queries judged on them, as a BEIR folder."""
    corpus = TYDI.joinpath("corpus.jsonl").read_text(encoding="utf-8").splitlines()[:docs]
    ids = {json.loads(line)["_id"] for line in corpus}
    qrels = [line for line in TYDI.joinpath("qrels/test.tsv").read_text(encoding="utf-8").splitlines()[1:]
             if line.split("\t")[1] in ids]
    judged = {line.split("\t")[0] for line in qrels}
    queries = TYDI.joinpath("queries.jsonl").read_text(encoding="utf-8").splitlines()
    (folder / "qrels").mkdir(parents=True)
    folder.joinpath("corpus.jsonl").write_text("\n".join(corpus) + "\n", encoding="utf-8")
    # Two unjudged queries stand for another split's queries: they are skipped, not imported.
    kept = [q for q in queries if json.loads(q)["_id"] in judged] + [
        q for q in queries if json.loads(q)["_id"] not in judged][:2]
    folder.joinpath("queries.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")
    folder.joinpath("qrels/test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "\n".join(qrels) + "\n",
                                                 encoding="utf-8")
    return folder, len(judged)


class HandWrittenQuestionTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.other = make_kb()
        cls.doc = make_document(cls.kb, "# Refunds\n\nRefunds take five working days.", source_uri="kb:refunds")
        cls.foreign = make_document(cls.other, "# Elsewhere\n\nAnother base's text.")
        cls.set = golden.create_golden_set(cls.kb, name="Support")

    def test_a_question_keeps_its_expected_document(self):
        item = golden.add_question(self.set, question="  How long   do refunds take? ", document_ids=[self.doc.pk])
        self.assertEqual(item.question, "How long do refunds take?")
        self.assertEqual(list(item.expected.values_list("document_id", flat=True)), [self.doc.pk])

    def test_bad_questions_are_refused_with_the_reason(self):
        cases = [({"question": "  ", "document_ids": [self.doc.pk]}, "empty"),
                 ({"question": "Where?", "document_ids": [self.foreign.pk]}, f"No document with id {self.foreign.pk}"),
                 ({"question": "Where?", "document_ids": [10 ** 9]}, "No document with id 1000000000"),
                 ({"question": "Where?"}, "should refuse")]
        for kwargs, message in cases:
            with self.subTest(message), self.assertRaisesMessage(InvalidGoldenSetError, message):
                golden.add_question(self.set, **kwargs)
        golden.add_question(self.set, question="Refund time?", document_ids=[self.doc.pk])
        with self.assertRaisesMessage(InvalidGoldenSetError, "already has the question"):
            golden.add_question(self.set, question="Refund time?", should_refuse=True)

    def test_a_second_set_of_one_name_is_refused(self):
        with self.assertRaisesMessage(InvalidGoldenSetError, "already has a golden set named 'Support'"):
            golden.create_golden_set(self.kb, name="Support")


class RowImportTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.refunds = make_document(cls.kb, "# Refunds\n\nRefunds take five days.", source_uri="kb:refunds")
        cls.delivery = make_document(cls.kb, "# Delivery\n\nParcels arrive in three days.", source_uri="kb:delivery",
                                     metadata={"slug": "delivery"})

    def setUp(self):
        self.set = golden.create_golden_set(self.kb, name="Rows")

    def test_jsonl_rows_with_documents_and_refusals(self):
        data = io.StringIO("\n".join(json.dumps(row) for row in [
            {"question": "How long do refunds take?", "document": "kb:refunds"},
            {"question": "Refund or delivery?", "documents": ["kb:refunds", "kb:delivery"]},
            {"question": "What is the weather on Mars?", "should_refuse": True},
        ]))
        report = golden.import_rows(self.set, "set.jsonl", data)
        self.assertEqual((report.questions, report.expected), (3, 3))
        mars = self.set.questions.get(question="What is the weather on Mars?")
        self.assertTrue(mars.should_refuse)
        self.assertEqual(mars.origin, GoldenQuestion.Origin.IMPORT)

    def test_csv_rows_and_a_metadata_key(self):
        data = io.StringIO("question,document,should_refuse\nWhen does my parcel arrive?,delivery,\n")
        report = golden.import_rows(self.set, "set.csv", data, document_key="metadata:slug")
        self.assertEqual(report.questions, 1)
        self.assertEqual(self.set.questions.get().expected.get().document, self.delivery)

    def test_a_file_with_problems_imports_nothing_and_names_each_line(self):
        golden.add_question(self.set, question="Already here?", document_ids=[self.refunds.pk])
        data = io.StringIO("\n".join([
            json.dumps({"question": "Fine question?", "document": "kb:refunds"}),
            json.dumps({"question": "Unknown?", "document": "kb:nowhere"}),
            json.dumps({"question": "", "document": "kb:refunds"}),
            json.dumps({"question": "Fine question?", "document": "kb:delivery"}),
            json.dumps({"question": "No answer named?"}),
            "not json",
            json.dumps({"question": "Already here?", "document": "kb:refunds"}),
        ]))
        with self.assertRaises(InvalidGoldenSetError) as caught:
            golden.import_rows(self.set, "set.jsonl", data)
        message = str(caught.exception)
        for expected in ["6 problem(s), nothing imported", "line 2: document 'kb:nowhere' matches no document",
                         "line 3: The question is empty", "line 4: duplicate question 'Fine question?'",
                         "line 5: name the expected document", "line 6: not a JSON object",
                         "line 7: the set already has the question 'Already here?'"]:
            self.assertIn(expected, message)
        self.assertEqual(list(self.set.questions.values_list("question", flat=True)), ["Already here?"])

    def test_a_hundred_thousand_questions_stream_in_bounded_memory_with_progress(self):
        lines = (json.dumps({"question": f"Question number {n} about nothing?", "should_refuse": True}) + "\n"
                 for n in range(100_000))
        with tempfile.NamedTemporaryFile("w+", suffix=".jsonl", encoding="utf-8") as handle:
            handle.writelines(lines)
            handle.seek(0)
            progress = []
            tracemalloc.start()
            report = golden.import_rows(self.set, "big.jsonl", handle, progress=lambda stage, n: progress.append(n))
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        self.assertEqual(report.questions, 100_000)
        self.assertEqual(self.set.questions.count(), 100_000)
        self.assertEqual(progress[:2], [1000, 2000])
        self.assertEqual(progress[-1], 100_000)
        # The file is ~6 MB of text; holding every question as a row object would take several times that.
        self.assertLess(peak, 40 * 1024 * 1024)


class BeirImportTests(TestCase):
    def test_a_beir_folder_with_its_corpus(self):
        kb = make_kb()
        folder, judged = beir_slice(self._tmp() / "tydi")
        ingested = golden.ingest_beir_corpus(kb, folder)
        golden_set = golden.create_golden_set(kb, name="TyDi")
        report = golden.import_beir(golden_set, folder)
        self.assertEqual(ingested, 30)
        self.assertEqual((report.questions, report.without_judgments), (judged, 2))
        self.assertEqual(report.expected, ExpectedSource.objects.filter(question__golden_set=golden_set).count())
        first = golden_set.questions.order_by("pk").first()
        document = first.expected.get().document
        self.assertTrue(document.source_uri.startswith("beir:tydiru-p"))
        self.assertEqual(document.metadata["beir_id"], document.source_uri.removeprefix("beir:"))

    def test_qrels_naming_unknown_corpus_ids_import_nothing(self):
        kb = make_kb()
        folder, _ = beir_slice(self._tmp() / "tydi", docs=5)
        golden_set = golden.create_golden_set(kb, name="TyDi")  # the corpus was never ingested
        message = "qrels line 2: corpus id 'tydiru-p0001' matches no document"
        with self.assertRaisesMessage(InvalidGoldenSetError, message):
            golden.import_beir(golden_set, folder)
        self.assertFalse(golden_set.questions.exists())

    def test_a_folder_without_qrels_is_refused(self):
        kb = make_kb()
        folder = self._tmp() / "empty"
        folder.mkdir()
        folder.joinpath("queries.jsonl").write_text("")
        with self.assertRaisesMessage(InvalidGoldenSetError, "test.tsv is missing"):
            golden.import_beir(golden.create_golden_set(kb, name="x"), folder)

    def _tmp(self):
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        return Path(directory.name)


class ProposalTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, cls.agent = make_help_centre(auto_reply=False)
        cls.user = get_user_model().objects.create_user("sam", password="pw", is_staff=True)

    def _ticket(self, body):
        with self.captureOnCommitCallbacks(execute=True):
            ticket = triage.submit_ticket(body=body)
        ticket.refresh_from_db()
        return ticket

    def test_sent_drafts_become_positives_and_rejected_ones_refusal_candidates(self):
        sent = self._ticket("How long does standard delivery take?")
        inbox.send_reply(sent, user=self.user, text=inbox.current_draft(sent).body + " Thanks!")
        rejected = self._ticket("Can I exchange a parcel for another size?")
        inbox.reject(rejected, user=self.user, reason="wrong")
        golden_set = golden.create_golden_set(self.kb, name="From tickets")

        self.assertEqual(proposals.propose_from_tickets(golden_set), 2)
        self.assertEqual(proposals.propose_from_tickets(golden_set), 0)  # idempotent
        positive = golden_set.questions.get(external_id=f"ticket:{sent.pk}")
        self.assertEqual((positive.status, positive.question), (GoldenQuestion.Status.PROPOSED,
                                                                "How long does standard delivery take?"))
        self.assertIn(self.documents["delivery"].pk, positive.expected.values_list("document_id", flat=True))
        self.assertIn("8 characters of edits", positive.note)
        negative = golden_set.questions.get(external_id=f"ticket:{rejected.pk}")
        self.assertTrue(negative.should_refuse)
        self.assertEqual(golden.confirm_question(negative).status, GoldenQuestion.Status.CONFIRMED)

    def test_a_customers_card_number_and_code_never_reach_a_golden_question(self):
        rejected = self._ticket("Can I exchange a parcel paid with my card 4111 1111 1111 1111, CVV 123?")
        inbox.reject(rejected, user=self.user, reason="wrong")
        golden_set = golden.create_golden_set(self.kb, name="From tickets")
        self.assertEqual(proposals.propose_from_tickets(golden_set), 1)
        question = golden_set.questions.get(external_id=f"ticket:{rejected.pk}").question
        self.assertEqual(question, "Can I exchange a parcel paid with my card •••• 1111, CVV •••?")

    def test_thumbs_down_becomes_a_proposal_a_person_must_complete(self):
        Feedback.objects.create(knowledge_base=self.kb, question="Do you ship to Mars?", rating=Feedback.Rating.DOWN,
                                comment="wrong answer")
        Feedback.objects.create(knowledge_base=self.kb, question="Refunds?", rating=Feedback.Rating.UP)
        golden_set = golden.create_golden_set(self.kb, name="From feedback")
        self.assertEqual(proposals.propose_from_feedback(golden_set), 1)
        item = golden_set.questions.get()
        self.assertEqual((item.question, item.note), ("Do you ship to Mars?", "Thumbs down: wrong answer"))
        with self.assertRaisesMessage(InvalidGoldenSetError, "no expected document"):
            golden.confirm_question(item)
        ExpectedSource.objects.create(question=item, document=self.documents["delivery"])
        self.assertEqual(golden.confirm_question(item).status, GoldenQuestion.Status.CONFIRMED)
