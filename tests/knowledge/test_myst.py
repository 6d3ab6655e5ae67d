"""MyST Markdown (Sphinx's Markdown) and reference links read as plain CommonMark, line for line.

structlog's documentation, indexed as a new user would, answered "How do I configure structlog?" with
"… the API documentation of {func}structlog.configure …" and "How do I render logs as JSON?" with its
page's link definition "[python-json-logger]: https://github.com/madzak/python-json-logger".
"""

import tempfile
from pathlib import Path

from django.test import SimpleTestCase

from knowledge.indexing import rst
from knowledge.indexing.myst import markdown_as_read, myst_targets
from knowledge.indexing.parsing import parse_file
from knowledge.search.source_text import quotable_text, sentences

PAGE = """(configuration)=

# Configuration

% This comment is for the maintainers.

You can call {func}`structlog.configure` repeatedly; see {doc}`the getting started guide <getting-started>`
and {class}`~structlog.processors.JSONRenderer`.

:::{note}
:class: tip

Configure it once, at start-up, with {func}`structlog.configure`:

```python
structlog.configure(processors=[])
```
:::

```{code-block} python
:caption: app.py

import structlog
```

```{toctree}
:maxdepth: 2

getting-started
```

```{mermaid}
graph LR
  A --> B
```

```{python}
print("a Quarto cell")
```

```{eval-rst}
.. warning:: Do not call it from a thread, see :func:`structlog.reset_defaults`.
```

Format your logs as JSON with [*python-json-logger*] or the [JSON renderer][renderer], as the [FAQ][]
says; the command line takes [OPTIONS] and a footnote[^1].

[*python-json-logger*]: https://github.com/madzak/python-json-logger
[renderer]: <https://www.structlog.org/en/stable/api.html> "The API"
[faq]: faq.md
[^1]: A footnote is text, not a link.

```markdown
[renderer]
```
"""


class MystTests(SimpleTestCase):
    def setUp(self):
        self.read = markdown_as_read(PAGE)
        self.lines = self.read.split("\n")

    def test_every_line_stays_where_it_was(self):
        self.assertEqual(len(self.lines), len(PAGE.split("\n")))
        self.assertEqual(self.lines[2], "# Configuration")

    def test_roles_read_as_their_text_in_code(self):
        self.assertIn("You can call `structlog.configure` repeatedly; see `the getting started guide`", self.read)
        self.assertIn("and `JSONRenderer`.", self.read)  # "~": its last part, as Sphinx shows it
        self.assertNotIn("{func}", self.read)

    def test_targets_and_comments_are_left_out(self):
        self.assertEqual(self.lines[0], "")
        self.assertNotIn("maintainers", self.read)

    def test_an_admonition_is_its_text_under_its_name_and_its_code_stays_code(self):
        start = self.lines.index("Note:")
        self.assertEqual(self.lines[start + 1:start + 4],
                         ["", "", "Configure it once, at start-up, with `structlog.configure`:"])
        self.assertEqual(self.lines[start + 5:start + 8], ["```python", "structlog.configure(processors=[])", "```"])
        self.assertEqual(self.lines[start + 8], "")  # the closing ":::"

    def test_code_directives_are_code_with_their_language_and_cells_stay_code(self):
        start = self.lines.index("```python", self.lines.index("Note:") + 6)
        self.assertEqual(self.lines[start:start + 5], ["```python", "", "", "import structlog", "```"])
        self.assertIn('```python\nprint("a Quarto cell")\n```', self.read)

    def test_tables_of_contents_and_diagrams_are_left_out(self):
        self.assertNotIn("maxdepth", self.read)
        self.assertNotIn("getting-started\n", self.read)
        self.assertNotIn("A --> B", self.read)

    def test_doctests_hidden_set_up_and_clean_up_are_left_out(self):
        # structlog's "How do I capture logs in my tests?" quoted its page's `{testcleanup}` block
        # ("import structlog / structlog.reset_defaults()") after the example, which its pages never show.
        read = markdown_as_read("Capture them:\n\n```{testsetup}\nimport structlog\n```\n\n```{doctest}\n"
                                ">>> structlog.get_logger()\n```\n\n:::{testcleanup}\nstructlog.reset_defaults()\n"
                                ":::\nDone.\n")
        self.assertEqual(read.split("\n"), ["Capture them:", "", "", "", "", "", "```doctest",
                                            ">>> structlog.get_logger()", "```", "", "", "", "", "Done.", ""])

    def test_an_objects_description_at_the_margin_is_a_section_of_its_own(self):
        read = markdown_as_read("# API\n\n## Settings\n\n```{py:data} TIMEOUT\nSeconds to wait.\n```\n\n"
                                "```{py:class} Client\n  ```{py:method} send(data)\n  Send it.\n  ```\n```\n")
        lines = read.split("\n")
        self.assertIn("### `TIMEOUT`", lines)
        self.assertIn("### `Client`", lines)  # a second one: under the section, not under the first
        self.assertIn("  `send(data)`", lines)  # one inside another's text stays a line

    def test_eval_rst_is_read_as_restructured_text(self):
        self.assertIn("Warning: Do not call it from a thread, see `structlog.reset_defaults`.", self.read)

    def test_reference_links_are_inline_and_their_definitions_left_out(self):
        self.assertIn("Format your logs as JSON with [*python-json-logger*](https://github.com/madzak/python-json-"
                      "logger) or the [JSON renderer](https://www.structlog.org/en/stable/api.html), as the "
                      "[FAQ](faq.md)",
                      self.read)
        self.assertNotIn("]: https://github.com", self.read)
        # No definition, no link: a command's [OPTIONS], a footnote; nor inside code.
        self.assertIn("takes [OPTIONS] and a footnote[^1].", self.read)
        self.assertIn("[^1]: A footnote is text, not a link.", self.read)
        self.assertIn("```markdown\n[renderer]\n```", self.read)

    def test_an_uploaded_page_quotes_none_of_it(self):
        quoted = sentences(quotable_text(self.read))
        self.assertIn("Format your logs as JSON with python-json-logger or the JSON renderer, as the FAQ says; the "
                      "command line takes [OPTIONS] and a footnote.", quoted)
        self.assertFalse([sentence for sentence in quoted if "{" in sentence or "]: http" in sentence], quoted)


class MystFileTests(SimpleTestCase):
    def test_a_markdown_file_is_parsed_as_read(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "configuration.md"
            path.write_text(PAGE)
            parsed = parse_file(path)
        self.assertEqual(parsed.title, "Configuration")
        self.assertIn("You can call `structlog.configure` repeatedly", parsed.text)
        self.assertNotIn("[renderer]: <https", parsed.text)


class MystDetailTests(SimpleTestCase):
    def test_a_definition_list_reads_as_term_and_definition_on_one_line(self):
        # structlog's exceptions page quoted ": Uses structlog.tracebacks.ExceptionDictTransformer to …".
        read = markdown_as_read("Helpers:\n\n{obj}`structlog.processors.dict_tracebacks`\n\n: Uses "
                                "{class}`structlog.tracebacks.ExceptionDictTransformer` for a structured key.\n")
        self.assertEqual(read.split("\n"), [
            "Helpers:", "", "", "",
            "`structlog.processors.dict_tracebacks`: Uses `structlog.tracebacks.ExceptionDictTransformer` for a "
            "structured key.",
            ""])
        # No term above it (a list item, nothing): the line as written.
        self.assertEqual(markdown_as_read("- an item\n: not a definition"), "- an item\n: not a definition")

    def test_a_role_in_a_directives_argument_reads_as_its_text(self):
        read = markdown_as_read(":::{versionchanged} 14.0.0 Allow final processor to return a {any}`dict`.\n:::\n")
        self.assertEqual(read, "Version changed: 14.0.0 Allow final processor to return a `dict`.\n\n")

    def test_a_footnote_reference_is_left_out_of_the_text_quoted(self):
        quoted = sentences(quotable_text("Filtering by level is easy[^stdlib], however it costs a call.\n"))
        self.assertEqual(quoted, ["Filtering by level is easy, however it costs a call."])

    def test_braces_inside_code_spans_open_no_role(self):
        # The portal's own docs/api.md read "`PATCH /knowledge-bases/{id}` | write | …" as a role named "id"
        # running to the next backtick, and README's placeholders "`{reply}`, `{agent}`" likewise.
        for line in ["| `PATCH /knowledge-bases/{id}` | write | any other field (the slug: `/reindex`) is a 422 |",
                     "placeholders `{reply}`, `{agent}`, `{customer}`, `{ticket}`), and falls back",
                     "a role's `` {func}`name` `` reads as `name`",
                     "see [renderer] in `[renderer]`\n\n[renderer]: x.md"]:
            self.assertEqual(markdown_as_read(line).split("\n")[0], line.split("\n")[0].replace("see [renderer]",
                                                                                               "see [renderer](x.md)"))

    def test_fences_are_read_by_the_projects_markdown_rules(self):
        # A line opening with backticks that has backticks after them is inline code, no fence (CommonMark):
        # the roles after it are read; a fence of tildes, or of more backticks, holds code as written.
        self.assertEqual(markdown_as_read("```a``` is inline code.\n\nUse {func}`send`."),
                         "```a``` is inline code.\n\nUse `send`.")
        self.assertEqual(markdown_as_read("~~~\n{func}`send`\n~~~\n{func}`send`"), "~~~\n{func}`send`\n~~~\n`send`")
        self.assertEqual(markdown_as_read("````\n```\n{func}`send`\n````"), "````\n```\n{func}`send`\n````")


class ReferenceTitleTests(SimpleTestCase):
    """Sphinx shows a {ref} or {doc} without a title as the title of what it names; they read as their label
    or path ("See `installation`")."""

    def test_a_reference_without_a_title_reads_as_the_heading_its_label_stands_over(self):
        text = "(install-label)=\n\n## Installing the kit\n\nRun pip.\n\nSee {ref}`install-label` or {ref}`gone`.\n"
        self.assertEqual(markdown_as_read(text).split("\n")[-2], "See `Installing the kit` or `gone`.")

    def test_a_repositorys_references_read_as_the_titles_in_its_other_files(self):
        texts = {"docs/install.md": "(setup)=\n# Installation\n\nRun pip.\n",
                 "docs/api.rst": "API reference\n=============\n\nThe calls.\n"}
        targets = myst_targets(texts) | rst.sphinx_targets(texts)
        page = "# Guide\n\nRead {ref}`setup`, {doc}`install`, {doc}`/api` and {doc}`elsewhere <install>`.\n"
        self.assertEqual(markdown_as_read(page, targets, "docs/guide.md").split("\n")[2],
                         "Read `Installation`, `Installation`, `API reference` and `elsewhere`.")
