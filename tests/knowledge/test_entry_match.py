"""Which FAQ entry a question is (entries.match_entry), and when it is the clear match quoted verbatim."""

from django.test import TestCase

from knowledge.search import composer, entries
from knowledge.search.retrieval import SearchHit
from tests.factories import make_kb
from tests.knowledge.test_composer import hit


class MatchEntryTests(TestCase):
    """Which FAQ entry a question is: its question and its answer together, the entry's own question first."""

    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()  # the hashing embedder: questions sharing words are close

    def entry(self, n: int, question: str, answer: str, similarity: float) -> SearchHit:
        found = hit(n, answer, entry={"question": question})
        found.knowledge_base_id, found.distance = self.kb.pk, 1.0 - similarity
        return found

    def test_the_entry_whose_question_and_answer_come_closest_goes_first_but_not_as_a_clear_match(self):
        # FAQ questions lean on their product's name, which only the answer says: the question words of
        # "Дом"'s entry are closer, the entry of "Старт" is closer as a whole.
        hits = [self.entry(1, "Какая максимальная сумма кредита?", "Кредит «Дом» выдаётся на сумму до 200 000 рублей.",
                           0.4),
                self.entry(2, "Какая максимальная сумма?", "Кредит «Старт» выдаётся на сумму до 20 000 рублей.", 0.8)]
        index, closeness, clear = entries.match_entry("Какая максимальная сумма кредита Старт?", hits,
                                                       {self.kb.pk: self.kb})
        self.assertEqual(index, 1)
        self.assertGreaterEqual(closeness, composer.setting("ENTRY_MATCH_RELEVANCE"))
        # Its question alone is not the closest: a person reads the draft, it is never sent as the entry's answer.
        self.assertFalse(clear)

    def test_the_entry_whose_own_question_is_asked_wins_however_close_another_answer_is(self):
        hits = [self.entry(1, "Как бесплатно пополнить карточку MORE?", "Через банкоматы с функцией Cash-In.", 0.9),
                self.entry(2, "Как можно бесплатно пополнить карточку MORE?", "Через ЕРИП и Белпочту.", 0.3)]
        index, closeness, _ = entries.match_entry("как можно бесплатно пополнить карточку MORE", hits,
                                                   {self.kb.pk: self.kb})
        self.assertEqual((index, closeness), (1, 1.0))

    def test_an_entry_is_not_the_clear_match_of_a_question_asking_what_other_entries_ask_and_it_does_not(self):
        hits = [self.entry(1, "Какая ставка по карте MORE?", "Ставка по карте MORE указана в тарифах банка.", 0.9),
                self.entry(2, "Какой срок действия карты Форсаж?", "Карта Форсаж выдаётся на 4 года.", 0.5),
                self.entry(3, "Какой срок вклада СуперСемь?", "Вклад СуперСемь размещается на 7 дней.", 0.5)]
        kbs = {self.kb.pk: self.kb}
        index, _, clear = entries.match_entry("Какая ставка по карте MORE?", hits, kbs)
        self.assertEqual((index, clear), (0, True))
        # "срок" is not in the entry, and two other entries ask with it: the question is not (only) the entry's.
        index, _, clear = entries.match_entry("Какая ставка по карте MORE на срок?", hits, kbs)
        self.assertEqual((index, clear), (0, False))
        # A word no other entry asks with is the customer's own: "подскажите" leaves the match clear.
        index, _, clear = entries.match_entry("Подскажите, какая ставка по карте MORE?", hits, kbs)
        self.assertEqual((index, clear), (0, True))
        # Triage puts the ticket's subject line above the question: the subject's words do not count.
        index, _, clear = entries.match_entry("Срок\n\nКакая ставка по карте MORE?", hits, kbs)
        self.assertEqual((index, clear), (0, True))

    def test_an_entry_answered_verbatim_reads_as_its_lines_not_as_its_source_wraps_them(self):
        # A Markdown FAQ written at 80 columns: the reply broke mid-sentence where the file did.
        answer = ("No. Packages can be upgraded in place, even on a running system. If a\nprocess must be "
                  "stopped, the package restarts it,\nso nothing is lost.\n\nSee also:\n- `start-stop-daemon`"
                  "\n- the Policy Manual")
        text = composer.compose("Do I need single-user mode?", [hit(1, answer)], entry_match=True).text
        self.assertEqual(text, "No. Packages can be upgraded in place, even on a running system. If a process must be "
                               "stopped, the package restarts it, so nothing is lost.\n\nSee also:\n"
                               "• start-stop-daemon\n• the Policy Manual [1]")
