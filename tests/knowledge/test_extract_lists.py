"""An extract and a page's lists of topics ("You will learn", "Recap"): items opening with a question word
name what a page covers, they answer nothing, with or without full stops."""

from dataclasses import replace

from django.test import TestCase

from knowledge.indexing import ingestion
from knowledge.models import Chunk
from knowledge.search import code_blocks, composer, readable, source_text
from knowledge.search.retrieval import SearchHit
from knowledge.search.words import word_stems
from tests.factories import make_kb
from tests.knowledge.test_composer import hit
from tests.knowledge.test_extract_code import DATA, compose


class TopicListTests(TestCase):
    def test_react_docs_you_will_learn_list_is_not_what_its_intro_introduces(self):
        # The Russian page's intro ends with the operators in a code span ("Такие, как `if`, `&&` и `? :`"),
        # which read as a sentence ending with a colon: the extract quoted it with the topics listed next.
        kb = make_kb()
        page = DATA / "documents" / "md" / "ru" / "react-learn-conditional-rendering.md"
        self.assertEqual(ingestion.ingest_file(kb, page).outcome, "created")
        chunk = Chunk.objects.filter(document__knowledge_base=kb, content__contains="Такие, как").first()
        text = compose("Как отрендерить JSX по условию?", chunk.content)
        self.assertNotIn("Как вернуть разный JSX", text)
        self.assertNotIn("Такие, как", text)
        self.assertIn("В React вы можете рендерить JSX в зависимости от его условий", text)

    def test_a_recap_of_topics_with_full_stops_is_never_quoted(self):
        source = ("Keys identify each item of a list between renders, so React can match them up.\n\n"
                  "On this page you learned:\n\n* How to render a list of items with map().\n"
                  "* Why and how to set a key on each component in a collection so React can keep track of them.\n"
                  "* How to filter a list of items.\n")
        self.assertEqual(compose("Why do list items need keys?", source),
                         "Keys identify each item of a list between renders, so React can match them up. [1]")

    def test_a_plain_text_table_of_contents_is_never_quoted(self):
        # Debian's FAQ as text: "Сколько стоит Debian?" quoted "14. Распространение Debian GNU/Linux в коммерческом
        # продукте", a line of its contents, whose sub-entries are numbers ("14.1.") and questions.
        kb = make_kb()
        faq = DATA / "documents" / "txt" / "debian-faq.ru.txt"
        self.assertEqual(ingestion.ingest_file(kb, faq).outcome, "created")
        for chunk in Chunk.objects.filter(document__knowledge_base=kb, content__contains="14. Распространение"):
            # In the middle of a chunk and first in the next one.
            self.assertNotIn("Распространение Debian", compose("Сколько стоит распространение Debian в коммерческом "
                                                               "продукте?", chunk.content))
        self.assertIn("1. Install Node.js and npm on the build machine [1]",
                      compose("What do I install on the build machine?", "Steps:\n\n1. Install Node.js and npm on "
                              "the build machine\n2. Run the build script from the project folder\n"))

    def test_a_markdown_table_of_contents_is_never_quoted(self):
        # tomli's README opens with its contents, each line a link to a section of the page: "How do I parse a TOML
        # string?" quoted "• Construct decimal.Decimals from TOML floats".
        readme = ("# tomli\n\n- [Usage](#usage)\n  - [Parse a TOML string](#parse-a-toml-string)\n"
                  "  - [Construct `decimal.Decimal`s from TOML floats](#construct-decimaldecimals-from-toml-floats)\n"
                  "- [Performance](#performance)\n\nTomli is a Python library for parsing TOML.\n")
        text = compose("How do I parse TOML floats?", readme)
        self.assertEqual(text, "Tomli is a Python library for parsing TOML. [1]")
        # A list of links elsewhere is content.
        guides = ("## Guides\n\n- [Parse TOML floats with the decimal module](guides/floats.md)\n"
                  "- [Write TOML](guides/write.md)\n- [Read TOML](guides/read.md)\n")
        self.assertIn("• Parse TOML floats with the decimal module", compose("How do I parse TOML floats?", guides))

    def test_a_list_with_one_item_opening_with_a_question_word_is_content(self):
        source = ("The cache of the portal is cleared:\n\n* When you deploy a new version of the portal.\n"
                  "* After an hour without requests.\n* On a restart of the worker.\n")
        self.assertIn("The cache of the portal is cleared: [1]\n• When you deploy a new version of the portal. [1]",
                      compose("When is the cache of the portal cleared?", source))


class CutIntroductionTests(TestCase):
    def test_the_tail_of_a_sentence_the_chunk_cut_introduces_no_list(self):
        # The Debian maintainer's guide: a chunk opening mid-sentence ("описанием, предполагающим … Makefile:")
        # was quoted as what introduced the list after it.
        source = ("описанием, предполагающим использование типичной среды сборки на основе Makefile:\n\n"
                  "- Команда dh_auto_build, обычно, выполняет первую цель в Makefile, если он существует.\n"
                  "- Команда dh_auto_test, обычно, выполняет цель test, если она есть.\n")
        text = compose("Что выполняет команда dh_auto_build?", source)
        self.assertIn("• Команда dh_auto_build, обычно, выполняет первую цель в Makefile, если он существует. [1]",
                      text)
        self.assertNotIn("описанием", text)
        # Nor is it what "This" refers back to.
        source = "so each key stays the same across renders.\n\nThis lets React match each item between renders."
        self.assertEqual(compose("How does React match each item between renders?", source),
                         "This lets React match each item between renders. [1]")
        # Nor is the tail of a list's item, without a full stop: helmet's "but makes things worse, so Helmet disables
        # it" opened the answer to "Which headers does helmet set by default?".
        source = "but makes things worse, so Helmet disables it\n\nEach header can be configured for Helmet."
        self.assertEqual(compose("Which headers does Helmet disable?", source),
                         "Each header can be configured for Helmet. [1]")
        # A README's card is no chunk the chunker cut: docopt's title "docopt creates beautiful command-line
        # interfaces" opens it in lower case.
        card = hit(1, "docopt creates beautiful command-line interfaces")
        card.layer = "D1"
        self.assertEqual(composer.compose("What is docopt?", [card], entry_match=False).text,
                         "docopt creates beautiful command-line interfaces [1]")

    def test_a_chunk_opening_inside_a_link_quotes_neither_the_link_nor_the_sentence_it_ends(self):
        # structlog's "Context Variables": a chunk's overlap opened on "FastAPI](https://github.com/…)) where
        # context variables …", quoted as it stood. A repository's section row carries its heading over each
        # piece of the section; this is not the first.
        source = ("# Context Variables\n\nFastAPI](https://github.com/tiangolo/fastapi/discussions/5999)) where "
                  "context variables set in a synchronous context don't appear in logs from an async context.\n\n"
                  "Bind context variables in a middleware so that every log entry of a request carries them.\n")
        question = "How do I use context variables in an async context?"
        for metadata in ({"artifact_type": "DOCS", "section_start": False}, {"artifact_type": "DOCS"}):
            text = composer.compose(question, [hit(1, source, **metadata)], entry_match=False).text
            self.assertEqual(text, "Bind context variables in a middleware so that every log entry of a request "
                                   "carries them. [1]")


class ListCutShortTests(TestCase):
    def test_a_list_is_not_introduced_by_less_than_half_of_its_items(self):
        # marshmallow: "There are three ways to create a custom-formatted field for a Schema: [1] • Create a custom
        # Field class [1]", the other two left out for what was left of the extract.
        source = ("There are three ways to create a custom field for a schema:\n\n* Create a custom Field class "
                  "with its own methods\n* Use a Method field with a method of the schema\n* Use a Function field "
                  "with a function of its own\n")
        lines = source_text.sentences(source_text.quotable_text(source))
        self.assertEqual(readable.introduced(lines, 0, 700, set()), [1, 2, 3])
        self.assertEqual(readable.introduced(lines, 0, 60, set()), [])


class CountedListTests(TestCase):
    """An item chosen for its words came with the sentence introducing its list alone, which for a list
    the introduction counts read as the only one ("There are three ways…: • one")."""

    def test_an_item_of_a_list_its_introduction_counts_comes_with_the_others(self):
        source = ("Orders are settled when they are collected.\n\nThere are three ways to settle an order:\n\n"
                  "* By card at the desk when you collect it.\n* By bank transfer to the account on the invoice.\n"
                  "* In cash at any of our branches.\n")
        text = compose("Can I pay by bank transfer?", source)
        self.assertIn("There are three ways to settle an order: [1]\n• By card at the desk", text)
        self.assertIn("• In cash at any of our branches. [1]", text)
        russian = ("Есть несколько способов рассчитаться:\n\n* Картой на кассе при получении.\n"
                   "* Банковским переводом по счёту.\n* Наличными в любом отделении.\n")
        self.assertIn("• Наличными в любом отделении.", compose("Можно ли оплатить переводом по счёту?", russian))

    def test_an_item_of_alternatives_comes_with_the_others(self):
        # marshmallow's "…the unknown option, which accepts one of the following:" quoted two of its three values,
        # the third too short to be chosen for its words: the list read as complete.
        source = ("This behavior can be modified with the unknown option, which accepts one of the following:\n\n"
                  "- RAISE (default): raise a ValidationError if there are any unknown fields\n"
                  "- EXCLUDE: exclude unknown fields\n- INCLUDE: accept and include the unknown fields\n")
        text = compose("How do I handle unknown fields?", source)
        self.assertIn("• EXCLUDE: exclude unknown fields [1]", text)
        self.assertIn("• INCLUDE: accept and include the unknown fields [1]", text)

    def test_an_item_of_a_list_not_counted_comes_with_its_introduction_alone(self):
        source = ("If the LED stays off:\n\n* Check that the cable is plugged in firmly at both ends.\n"
                  "* Press the reset button for ten seconds.\n* Call the support line.\n")
        self.assertEqual(compose("What if the cable is not plugged in?", source),
                         "If the LED stays off: [1]\n• Check that the cable is plugged in firmly at both ends. [1]")


    def test_an_item_over_a_block_too_long_for_what_is_left_is_quoted_without_it(self):
        # path-to-regexp's compile options: the last item, "• encode Function for encoding … or `false` to disable
        # entirely. (default: `encodeURIComponent`)", ends without a full stop over a block of eleven lines; read as a
        # sentence running on into its code, it was dropped when the block did not fit, and "How do I disable encoding
        # in compile?" quoted other sources.
        block = code_blocks.CODE_BLOCK + "\x04".join(f"`toPath{n}({{\x05id:\x05{n}\x05}});`" for n in range(9))
        source = ["The compile function will return a function for transforming parameters into a valid path:",
                  "• path A string.", "• encode Function for encoding input strings for output into the path, or "
                  "false to disable entirely. (default: encodeURIComponent)", block]
        unit = readable.unit((1, 2, source[2], set()), source, 260, word_stems("How do I disable encoding?"), True)
        self.assertEqual(unit, {(1, 0): source[0], (1, 2): source[2]})
        # A short step without its command is still nothing to quote ("1. Install" over `npm install uuid`).
        step = ["1. Install", code_blocks.CODE_BLOCK + "`npm\x05install\x05uuid`\x04`npm\x05test`" + "\x04`x`" * 90]
        self.assertIsNone(readable.unit((1, 0, step[0], set()), step, 100, word_stems("How do I install uuid?"), True))

    def test_a_sentence_announcing_its_list_with_a_full_stop_introduces_it(self):
        # isodate's README: "Which parsing methods are available?" quoted "The following parsing methods are
        # available." alone, the list under it left out for a sentence not ending with ":".
        source = ("This module implements ISO 8601 date, time and duration parsing.\n\n"
                  "The following parsing methods are available.\n\n- parse_time: parses an ISO 8601 time string\n"
                  "- parse_date: parses an ISO 8601 date string\n- parse_duration: parses an ISO 8601 duration\n")
        self.assertEqual(compose("Which parsing methods are available?", source),
                         "The following parsing methods are available. [1]\n• parse_time: parses an ISO 8601 time "
                         "string [1]\n• parse_date: parses an ISO 8601 date string [1]\n• parse_duration: parses an "
                         "ISO 8601 duration [1]")
        # Over no list, it is a sentence as any other.
        alone = "The following parsing methods are available. They parse what ISO 8601 defines.\n"
        self.assertTrue(compose("Which parsing methods are available?", alone).startswith(
            "The following parsing methods are available. [1]"))

    def test_an_item_sending_away_is_left_out_of_a_counted_list_brought_along(self):
        # shortuuid's README: "you have multiple options of installation:" brings all three along, and the last one's
        # "download it from https://github.com/…" kept every one out: "How do I install shortuuid?" said only
        # "To install shortuuid you need: • Python 3.6+".
        text = ("To install `shorty` you need:\n\n- Python 3.8+\n\nYou have several options of installation:\n\n"
                "- With pip (preferred), do `pip install shorty`.\n- With conda, do `conda install shorty`.\n"
                "- From source, download it from https://example.org/shorty and run `python setup.py install`.\n")
        self.assertEqual(compose("How do I install shorty?", text),
                         "To install shorty you need: [1]\n• Python 3.8+ [1]\nYou have several options of "
                         "installation: [1]\n• With pip (preferred), do pip install shorty. [1]\n• With conda, do "
                         "conda install shorty. [1]")
        # A block of commands is quoted whole or not at all: ratelimit's "Installing the latest version from Github:"
        # came without its `git clone https://github.com/…` line.
        text = ("To install shorty, simply:\n\n```\n$ pip install shorty\n```\n\nInstalling the latest version "
                "from GitHub:\n\n```\n$ git clone https://github.com/someone/shorty\n$ cd shorty\n"
                "$ python setup.py install\n```\n")
        self.assertEqual(compose("How do I install shorty?", text), "To install shorty, simply: [1]\n"
                                                                    "    $ pip install shorty")


class TableAsListTests(TestCase):
    SOURCE = ("You can add callback hooks to a command for life cycle events.\n\n"
              "The callback hook can be async, in which case you call `.parseAsync` rather than `.parse`.\n\n"
              "The supported events are:\n\n| event name | when hook called | callback parameters |\n"
              "| :-- | :-- | :-- |\n"
              "| `preAction`, `postAction` |  before/after action handler for this command |"
              "   `(thisCommand, actionCommand)` |\n"
              "| `preSubcommand` | before parsing direct subcommand  | `(thisCommand, subcommand)` |\n\n"
              "For an overview of the life cycle events see the guide.\n")

    def test_a_tables_rows_read_as_the_items_of_a_list(self):
        # commander.js' README, its hooks: the rows ran together into one "sentence" of the extract, the header
        # row's words and the delimiter row's ":-- :-- :--" at its head.
        text = source_text.clean_text(self.SOURCE)
        self.assertIn("The supported events are:\n\n• preAction, postAction — before/after action handler for this "
                      "command — (thisCommand, actionCommand)\n• preSubcommand — before parsing direct subcommand — "
                      "(thisCommand, subcommand)\n\nFor an overview", text)
        self.assertNotIn("event name", text)
        answer = compose("What events are supported for hooks?", self.SOURCE)
        self.assertIn("The supported events are: [1]\n• preAction, postAction — before/after action handler", answer)
        self.assertNotIn(":--", answer)

    def test_an_empty_row_is_no_item(self):
        self.assertEqual(source_text.clean_text("Plans:\n\n| Plan | Price |\n|---|---|\n| Basic | $5 |\n|  |  |\n"),
                         "Plans:\n\n• Basic — $5")

    def test_rows_without_their_header_read_as_items_and_a_lone_row_as_its_cells(self):
        # A chunk holding a table's rows after its first chunk's (the chunker cuts a table at its rows' ends): the rows
        # ran together into one "sentence" of every option (express-rate-limit's "[passOnStoreError] boolean Allow …
        # [keyGenerator] function Identify users …").
        rows = "| `preSubcommand` | before parsing. |\n| `postAction` | after. |"
        self.assertEqual(source_text.clean_text(rows), "• preSubcommand — before parsing.\n• postAction — after.")
        self.assertEqual(source_text.clean_text("| `preSubcommand` | before parsing |"),
                         "preSubcommand before parsing")


class RowLookedUpTests(TestCase):
    SIGNALS = ("A short tool that stops what you started.\n\n#### Signals it sends\n\n"
               "|Number|Signal name|\n|------|-----------|\n|1|SIGHUP|\n|2|SIGINT|\n|9|SIGKILL|\n|15|SIGTERM|\n"
               "|19|SIGSTOP|\n\n#### Fields\n\n|Field|Type|\n|---|---|\n|returns|String|\n")

    def test_a_row_one_of_whose_cells_the_question_writes_is_its_answer(self):
        # http-errors' "List of all constructors": "Which constructor is used for 429 errors?" quoted its code's
        # docstrings — "• 429 — TooManyRequests" is of two words, too short to answer.
        for question, row in [("Which signal name is number 15?", "• 15 — SIGTERM [1]"),
                              ("What number is SIGKILL?", "• 9 — SIGKILL [1]")]:
            self.assertTrue(compose(question, self.SIGNALS).startswith(row), question)
        # A row the question writes every cell of, or none, is no lookup; nor is one by a word (uuid's "• returns —
        # String" came first for "How do I convert a UUID string to bytes?").
        self.assertFalse(composer._looks_up_row("• 9 — SIGKILL", composer.row_keys("Is 9 SIGKILL?")))
        self.assertFalse(composer._looks_up_row("• 9 — SIGKILL", composer.row_keys("Which signals are there?")))
        self.assertFalse(composer._looks_up_row("• returns — String",
                                                composer.row_keys("How do I convert a string to bytes?")))

    def test_the_sentence_introducing_a_table_brings_only_the_row_looked_up(self):
        # debug's environment variables: "What does DEBUG_HIDE_DATE do?" quoted the sentence introducing the table and
        # with it all five rows.
        table = ("## Environment Variables\n\nWhen running through Node.js, you can set a few environment variables "
                 "that will change the behavior of the debug logging:\n\n| Name | Purpose |\n|---|---|\n"
                 "| `DEBUG` | Enables/disables specific debugging namespaces. |\n"
                 "| `DEBUG_HIDE_DATE` | Hide date from debug output (non-TTY). |\n"
                 "| `DEBUG_COLORS` | Whether or not to use colors in the debug output. |\n")
        answer = compose("What does DEBUG_HIDE_DATE do?", table)
        self.assertIn("• DEBUG_HIDE_DATE — Hide date from debug output (non-TTY). [1]", answer)
        self.assertNotIn("DEBUG_COLORS", answer)
        self.assertNotIn("namespaces", answer)

    def test_a_what_is_question_naming_no_project_is_not_answered_by_its_card(self):
        # "What is the constructor name for status 418?" was answered by http-errors' card, "Create HTTP errors for
        # Express, Koa, Connect, etc. with ease." — every "What is …?" put the card first.
        card = SearchHit(chunk_id=1, document_id=1, knowledge_base_id=1, document_title="stopper", source_uri="",
                         section_path="", page=None, layer="D1", content="stopper\n\nStops what you started.",
                         snippet="", distance=0.1, score=1.0, rank=1, metadata={})
        answer = composer.compose("What is the signal name for number 15?", [card, hit(2, self.SIGNALS)],
                                  entry_match=False).text
        self.assertTrue(answer.startswith("• 15 — SIGTERM [2]"), answer)
        self.assertTrue(composer.compose("What is stopper?", [card, hit(2, self.SIGNALS)], entry_match=False)
                        .text.startswith("Stops what you started. [1]"))


    def test_a_row_of_the_option_a_question_names_is_looked_up(self):
        # picomatch's options table: "What does the nocase option do?" opened with the flags row's "If defined, the
        # nocase option will be overridden." — the row of nocase, a word in lower case, was no key to look it up by.
        row = "• nocase — boolean — false — Make matching case-insensitive."
        for question in ("What does the nocase option do?", "What is the default of the `nocase` setting?"):
            self.assertTrue(composer._looks_up_row(row, composer.row_keys(question)), question)
        # A word the question does not say is an option's is no key.
        self.assertFalse(composer._looks_up_row(row, composer.row_keys("How does nocase work?")))
        # A list's entry of the option is looked up too (slugify's options read from their comments), unless the
        # question asks more of it than its entry says ("… if it is a string?").
        entry = "• remove: remove characters that match regex, defaults to undefined."
        self.assertTrue(composer._looks_up_row(entry, composer.row_keys("What is the remove option's default?")))
        self.assertTrue(composer._looks_up_row(entry, composer.row_keys("What does the remove option do?")))
        self.assertFalse(composer._looks_up_row(entry, composer.row_keys(
            "What should the remove option be if it is a string?")))
        self.assertFalse(composer._looks_up_row("• If the value of remove is a string, it should be one character.",
                                                composer.row_keys("What does the remove option do?")))

    def test_a_functions_entry_the_question_names_is_looked_up_not_its_examples(self):
        # semver's "### Clean": "What does clean do?" quoted three of its examples and not its entry.
        entry = "• clean(version): Clean a string to be a valid semver if possible"
        self.assertTrue(composer._looks_up_row(entry, composer.row_keys("What does clean do?")))
        self.assertFalse(composer._looks_up_row("• s.clean(' = v 2.1.5foo'): null",
                                                composer.row_keys("What does clean do?")))
        self.assertFalse(composer._looks_up_row(entry, composer.row_keys("What does coerce do?")))
        text = ("### Clean\n\n* `clean(version)`: Clean a string to be a valid semver if possible\n\n"
                "This will return a cleaned and trimmed semver version.\n\nex.\n"
                "* `s.clean(' = v 2.1.5foo')`: `null`\n* `s.clean(' = v 2.1.5foo', { loose: true })`: `'2.1.5-foo'`\n"
                "* `s.clean('=v2.1.5')`: `'2.1.5'`\n")
        # It goes on with the paragraph under it, up to its examples.
        self.assertTrue(compose("What does clean do?", text).startswith(
            "• clean(version): Clean a string to be a valid semver if possible [1] This will return a cleaned and "
            "trimmed semver version. [1]"))

    def test_a_row_of_a_symbol_the_question_writes_is_looked_up(self):
        # picomatch's tables of glob syntax: "What does the !(pattern) extglob match?" is after the row of
        # "!(pattern)", which no word of the question named.
        row = "• !(pattern) — Match anything but pattern"
        self.assertTrue(composer._looks_up_row(row, composer.row_keys("What does the !(pattern) extglob match?")))
        for question, symbol in [("What does ** match?", "**"), ("What does `[abc]` match?", "[abc]"),
                                 ("What does the ? wildcard match?", "?")]:
            self.assertTrue(composer._looks_up_row(f"• {symbol} — Matches something.", composer.row_keys(question)),
                            question)
        # The question's own mark is no symbol it asks about.
        self.assertFalse(composer._looks_up_row("• ? — Matches one character.",
                                                composer.row_keys("What does a wildcard match ?")))

    def test_another_entrys_sentences_answer_nothing_of_the_entry_asked(self):
        # serve-static: "What is the default value of the fallthrough option?" ended with "extensions — The default
        # value is false.", another option's default.
        def entry(n: int, name: str, text: str):
            return replace(hit(n, f"##### {name}\n\n{text}\n"), section_path=f"API > Options > {name}")

        fallthrough = entry(1, "fallthrough", "Set the middleware to have client errors fall-through as unhandled "
                                              "requests.\n\nThe default value is `true`.")
        extensions = entry(2, "extensions", "Set file extension fallbacks.\n\nThe default value is `false`.")
        caching = entry(3, "cacheControl", "Disabling this will ignore the `fallthrough` option's caching too.")
        text = composer.compose("What is the default value of the fallthrough option?",
                                [fallthrough, extensions, caching], entry_match=False).text
        self.assertIn("The default value is true. [1]", text)
        self.assertNotIn("false", text)
        # So does a quoted entry's name the question writes as a word ("What is the default store?").
        text = composer.compose("What is the default value of fallthrough?", [fallthrough, extensions],
                                entry_match=False).text
        self.assertIn("The default value is true. [1]", text)
        self.assertNotIn("false", text)
        # One writing the name asked stays a candidate.
        text = composer.compose("What does cacheControl do to the fallthrough option?", [extensions, caching],
                                entry_match=False).text
        self.assertIn("Disabling this will ignore the fallthrough option's caching too. [2]", text)

    def test_a_row_looked_up_goes_on_with_the_rest_of_its_text(self):
        # picomatch's dot row: "By default, dotfiles are ignored unless …", its second sentence, was left out once the
        # row was said first; not the next row's, nor a sentence introducing what is not quoted.
        options = ("### Options\n\n| Option | Type | Default | Description |\n|---|---|---|---|\n"
                   "| `dot` | `boolean` | `false` | Enable dotfile matching. By default, dotfiles are ignored unless "
                   "a `.` is explicitly defined. |\n| `nocase` | `boolean` | `false` | Make matching "
                   "case-insensitive. Equivalent to the regex `i` flag. |\n")
        self.assertEqual(compose("What does the dot option do?", options),
                         "• dot — boolean — false — Enable dotfile matching. By default, dotfiles are ignored "
                         "unless a . is explicitly defined. [1]")
        origin = ("## Options\n\n* `origin`: Configures the origin header. Possible values:\n"
                  "  - `Boolean` - reflect it.\n  - `String` - set one origin.\n* `methods`: Sets the methods.\n")
        self.assertNotIn("header. [1] Possible values:", compose("What does the origin option do?", origin))

    def test_the_word_naming_an_option_asked_about_answers_nothing(self):
        # "What should the remove option be if it is a string?" was answered by slugify's "Options:" over its options'
        # block and their list, sharing "option" with it, before "If the value of remove is a string, it should be a
        # single character.".
        readme = ("## Options\n\nThe options of the call are all optional, and options unknown are ignored.\n\n"
                  "## Remove\n\n* If the value of `remove` is a string, it should be a single character.\n")
        self.assertEqual(compose("What should the remove option be if it is a string?", readme),
                         "• If the value of remove is a string, it should be a single character. [1]")


class DefinedTermTests(TestCase):
    def test_a_list_item_defining_a_term_in_the_questions_words_is_quoted(self):
        # chalk's readme: "- `bold` - Make the text bold." read as the question restated (a table of contents' line),
        # and "How do I make text bold?" was answered with the items on dim and italic.
        modifiers = ("### Modifiers\n\n- `reset` - Reset the current style.\n- `bold` - Make the text bold.\n"
                     "- `dim` - Make the text have lower opacity.\n")
        self.assertIn("• bold - Make the text bold. [1]", compose("How do I make text bold?", modifiers))
        # A line of a table of contents restating the question still is not.
        self.assertNotIn("• Make the text bold", compose("How do I make text bold?", "Contents:\n\n- Make the text "
                                                       "bold\n- Make the text dim\n\nMake the text bold with the "
                                                       "bold style of the theme."))


class NamedItemTests(TestCase):
    def test_a_yes_or_no_question_naming_a_list_item_is_answered_by_it_and_its_introduction(self):
        # humanize's README: "Does humanize support Russian?" was refused — "- Russian", under "It is localized to:",
        # was too short to quote.
        languages = ["Arabic", "Basque", "Bengali", "Catalan", "Danish", "Dutch", "Esperanto", "Finnish", "French",
                     "German", "Greek", "Hebrew", "Italian", "Japanese", "Korean", "Latvian", "Polish", "Russian",
                     "Slovak", "Spanish", "Swedish", "Turkish"]  # too many to quote whole
        readme = "## Languages\n\nThe package is localized to:\n\n" + "".join(f"- {name}\n" for name in languages)
        self.assertEqual(compose("Does it support Russian?", readme),
                         "The package is localized to: [1]\n• Russian [1]")
        # Not for a question that is no yes or no, nor for an item the question does not name.
        self.assertNotIn("• Russian", compose("Which languages is the package localized to?", readme))
        self.assertNotIn("• Russian", compose("Does the package support Klingon?", readme))

    def test_a_yes_or_no_question_naming_an_item_of_a_list_without_an_introduction_is_answered_by_it(self):
        # dayjs' README lists its features under its example, no sentence introducing them: "Is dayjs immutable?" was
        # answered with "• 🕒 Familiar Moment.js API & patterns", not "• 💪 Immutable".
        readme = ("Dates is a minimalist library that parses, validates and displays dates for modern browsers.\n\n"
                  "```js\ndates().add(1, 'day')\n```\n\n* 🕒 Familiar Moment.js API & patterns\n* 💪 Immutable\n"
                  "* 🔥 Chainable\n* 📦 2kb mini library\n")
        self.assertIn("• 💪 Immutable [1]", compose("Is dates immutable?", readme))
        # Not an item of two: a pair of lines says less of what its items are.
        pair = readme.replace("* 🔥 Chainable\n* 📦 2kb mini library\n", "")
        self.assertNotIn("Immutable", compose("Is dates immutable?", pair))

    def test_a_sentence_sending_the_reader_to_the_documentation_answers_only_where_it_is(self):
        # dayjs' README: "How do I change the locale?" was answered "You can find more details, API, and other docs
        # on day.js.org website."
        readme = ("## Documentation\n\nYou can find more details, API, and other docs on dates.org website.\n\n"
                  "## Locales\n\nA locale is loaded on demand before it is used.\n")
        self.assertEqual(compose("How do I change the locale?", readme), "A locale is loaded on demand before it is "
                                                                        "used. [1]")
        pointer = readme.split("## Locales")[0]
        self.assertEqual(compose("How do I change the locale?", pointer), "")
        self.assertTrue(compose("Where is the documentation?", readme).startswith("You can find more details"))
        # pluggy's "What does tryfirst do?": "Also see the pytest:firstresult section in the pytest docs."
        for pointer in ("Also see the tool:firstresult section in the tool docs.",
                        "For another example see the tool:plugin-hookorder section of the tool docs."):
            self.assertEqual(compose("What does firstresult do?", f"## First result\n\n{pointer}\n"), "", pointer)
        # Nor is one quoted for going on from the sentence chosen (pluggy's, after an example too long to quote).
        order = ("## Call order\n\nIf marked with a tryfirst option it will be executed first in the call loop:\n\n"
                 "```python\n" + "".join(f"hook_{n}(tryfirst=True)\n" for n in range(14)) + "```\n\n"
                 "For another example see the tool:hookorder section of the tool docs.\n")
        self.assertEqual(compose("What does the tryfirst option do?", order),
                         "If marked with a tryfirst option it will be executed first in the call loop: [1]")
        # A sentence leading into what follows is no pointer.
        self.assertIn("See the section below", compose("How do I set the order?", "## Order\n\nSee the section "
                                                                                 "below on order:\n\n    order=1\n"))

    def test_a_call_to_join_or_fund_the_project_answers_only_a_question_about_it(self):
        # yargs' "Having problems? want to contribute? join our community slack." answered "How do I add a required
        # option?"; debug's "Become a sponsor and get your logo on our README …" ended "How do I exclude a namespace?".
        for call in ("Having problems? want to contribute? join our community slack.",
                     "Become a sponsor and get your logo on our README on GitHub with a link to your site."):
            self.assertEqual(compose("How do I add a required option?", f"## Community\n\n{call}\n"), "", call)
        self.assertIn("join our community slack", compose(
            "Is there a community chat?", "## Community\n\nHaving problems? want to contribute? join our community "
                                          "slack.\n"))


class ListQuotedInPartTests(TestCase):
    def test_a_list_cut_short_says_it_goes_on(self):
        # Six items of nine (twelve of a list of names) were quoted as if they were the whole list.
        formats = ("## Features\n\nThe library supports the following formats:\n\n"
                   + "".join(f"- Format {n} files with their own reader and writer\n" for n in "ABCDEFGHI"))
        text = compose("Which formats does the library support?", formats)
        self.assertEqual(text.splitlines()[-2:], ["• Format F files with their own reader and writer [1]", "…"])
        colours = "black red green yellow blue purple cyan white grey pink orange brown teal".split()
        names = "## Colours\n\nThe available colour names are:\n\n" + "".join(f"- {name}\n" for name in colours)
        self.assertEqual(compose("What colour names are available?", names).splitlines()[-2:], ["• brown [1]", "…"])
        # A list quoted whole ends with its last item, and a row looked up is no list cut short.
        whole = names.split("- grey")[0]
        self.assertEqual(compose("What colour names are available?", whole).splitlines()[-1], "• white [1]")
        options = ("## Options\n\n- `dot` — Match dotfiles. Defaults to false.\n- `nocase` — Match without case.\n"
                   "- `noext` — Disable extglob support.\n")
        self.assertNotIn("…", compose("What does the dot option do?", options))
