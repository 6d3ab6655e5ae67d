"""An extract sharing only the base's common words with the question answers another question."""

from dataclasses import replace

from django.test import TestCase

from knowledge.indexing import term_statistics
from knowledge.search import answers, reasons
from knowledge.search.common_words import only_common_shared
from tests.factories import make_document, make_kb
from tests.knowledge.test_composer import hit

PAGES = {
    "Installing": "To install Acme, run pip install acme in a virtual environment. Acme runs on Python 3.9.",
    "Welcome": "Acme is a small web framework. Acme depends on a template engine and a routing toolkit.",
    "Templates": "Acme renders templates from the templates folder. Call render_template with the file name.",
    "Sessions": "Acme keeps sessions in signed cookies. Set a secret key before you use sessions in Acme.",
    "Logging": "Acme logs through the standard logging module. Configure handlers before you create the Acme app.",
    "Testing": "Acme gives every app a test client. Send requests to the test client and read the Acme response.",
}


def base_with_statistics(name: str, documents: dict[str, str]):
    """A base of `documents` (title → text) with its term statistics taken, as the worker's sweep does."""
    kb = make_kb(name=name)
    for title, text in documents.items():
        make_document(kb, text, title=title)
    term_statistics.take(kb.pk)
    kb.refresh_from_db()
    return kb


class CommonWordsTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = base_with_statistics("Docs", {title: f"# {title}\n\n{text}" for title, text in PAGES.items()})

    def test_an_extract_sharing_only_the_products_name_is_refused(self):
        result = answers.answer("Does Acme support websockets?", [self.kb.pk], threshold=0.0)
        self.assertTrue(result.refused, result.text)
        self.assertIn("common_words_only", result.reasons)
        self.assertNotIn("nothing_to_quote", result.reasons)
        self.assertEqual(reasons.reason_sentences(["common_words_only"], "ru"), [
            "Выдержка делит с вопросом лишь слова, которые есть почти везде в базе знаний, и ни одного из того, "
            "о чём он спрашивает: она ответила бы на другой вопрос."])

    def test_an_extract_sharing_no_word_with_a_question_in_its_language_answers_another(self):
        # With the default embedder, django-cors-headers' "How do I contribute?" quoted "CORS_PREFLIGHT_MAX_AGE — The
        # number of seconds the browser can cache the preflight response." (0.72), close enough in meaning.
        passages = answers.ground("How do I contribute to Acme?", [self.kb.pk], threshold=0.0).sources
        sources = [replace(each, metadata={**(each.metadata or {}), "repo_id": "acme-1.0"}) for each in passages]
        extract = "Acme keeps sessions in signed cookies. [1]"
        self.assertTrue(only_common_shared("How do I contribute?", extract, sources, {self.kb.pk: self.kb}))
        self.assertFalse(only_common_shared("How do I keep sessions?", extract, sources, {self.kb.pk: self.kb}))
        # Asked in another language, an extract shares only names: that is no measure. Nor of passages of prose, which
        # may say what is asked in other words.
        self.assertFalse(only_common_shared("Как помочь проекту?", extract, sources, {self.kb.pk: self.kb}))
        self.assertFalse(only_common_shared("How do I contribute?", extract, passages, {self.kb.pk: self.kb}))

    def test_an_extract_sharing_what_is_asked_is_answered(self):
        result = answers.answer("How do I install Acme?", [self.kb.pk], threshold=0.0)
        self.assertFalse(result.refused, result.reasons)
        self.assertIn("pip install acme", result.text)

    def test_a_question_about_the_product_itself_is_answered(self):
        result = answers.answer("What is Acme?", [self.kb.pk], threshold=0.0)
        self.assertFalse(result.refused, result.reasons)
        self.assertIn("web framework", result.text)

    def test_a_code_names_parts_are_its_words(self):
        # "calls" is in every row of a call graph; the function asked about is the last part of a dotted name,
        # which full-text search reads as one token ("pkg.keys.hashkey").
        calls = {f"module{n}": f"pkg.module{n}.run calls pkg.module{n}.step" for n in range(4)}
        kb = base_with_statistics("Code", {**calls, "test_keys": "tests.test_keys.test_one calls pkg.keys.hashkey"})
        sources = answers.ground("What calls the hashkey function?", [kb.pk], threshold=0.0).sources
        extract = "`tests.test_keys.test_one` calls pkg.keys.hashkey. [1]"
        self.assertFalse(only_common_shared("What calls the hashkey function?", extract, sources, {kb.pk: kb}))
        self.assertTrue(only_common_shared("What calls the hashkey function?", "`pkg.module1.run` calls step. [1]",
                                           sources, {kb.pk: kb}))

    def test_a_hyphenated_names_parts_are_its_words(self):
        # "What is python-slugify?" was refused: full-text search reads "python-slugify" as a word of its own besides
        # "python" and "slugify", which no extract saying "A Python slugify application …" holds.
        pages = {f"page{n}": f"# Page {n}\n\nThe Python slugify function of part {n}." for n in range(4)}
        kb = base_with_statistics("Slugs", {**pages, "other": "# Other\n\nKeys rotate every month."})
        sources = answers.ground("What is python-slugify?", [kb.pk], threshold=0.0).sources
        self.assertFalse(only_common_shared("What is python-slugify?", "A Python slugify application. [1]", sources,
                                            {kb.pk: kb}))
        self.assertTrue(only_common_shared("What is python-slugify for keys?", "A Python slugify application. [1]",
                                           sources, {kb.pk: kb}))

    def test_the_words_of_quoted_code_are_its_names_parts(self):
        # "How do I run a job every Monday?" answered "Usage:" and `schedule.every().monday.do(job)`, and was refused:
        # full-text search read "monday.do" as a host name, so the extract shared only "job", in every chunk.
        jobs = {f"jobs{n}": f"# Jobs {n}\n\nA job runs in the worker {n}." for n in range(4)}
        kb = base_with_statistics("Jobs", {**jobs, "days": "# Days\n\nThe scheduler knows the days of the week."})
        question = "How do I run a job every Monday?"
        sources = answers.ground(question, [kb.pk], threshold=0.0).sources
        extract = "Usage: [1]\n    scheduler.every().monday.do(job)"
        self.assertFalse(only_common_shared(question, extract, sources, {kb.pk: kb}))
        self.assertTrue(only_common_shared(question, "Usage: [1]\n    scheduler.hourly().do(job)", sources,
                                           {kb.pk: kb}))

    def test_a_repositorys_rows_answer_what_they_were_found_for(self):
        # dotenv's "Which environment variables does dotenv read?": its rows ("`dotenv` mentions DOTENV_PATH
        # (environment variable).") share only words every chunk of its README holds, and were refused.
        question = "Which settings does Acme read at start?"
        for layer, refused in (("D6", False), ("D0", True)):
            source = hit(1, "Acme mentions ACME_HOME (environment variable), in: Installing", layer=layer)
            source.layer, source.knowledge_base_id = layer, self.kb.pk
            grounding = answers.Grounding([source], 0.9, [], {}, question=question, kbs={self.kb.pk: self.kb})
            composition = answers.compose_extractive(grounding)
            self.assertEqual(("common_words_only" in grounding.reasons, not composition.text), (refused, refused),
                             (layer, composition.text))

    def test_a_comparison_asks_about_what_it_compares(self):
        # itsdangerous' "What is the difference between Signer and Serializer?": both are in most of its chunks, and
        # "A serializer wraps a signer …" was refused for not saying "difference".
        pages = {f"page{n}": f"# Page {n}\n\nThe signer and the serializer of part {n}." for n in range(4)}
        kb = base_with_statistics("Signing", {**pages, "other": "# Other\n\nKeys rotate every month."})
        sources = answers.ground("What is the difference between a signer and a serializer?", [kb.pk],
                                 threshold=0.0).sources
        extract = "A serializer wraps a signer to sign other data besides bytes. [1]"
        for question in ("What is the difference between a signer and a serializer?",
                         "How does a signer differ from a serializer?",
                         "Signer versus serializer: how do they compare?"):
            self.assertFalse(only_common_shared(question, extract, sources, {kb.pk: kb}), question)
        # What else it asks still counts.
        self.assertTrue(only_common_shared("What is the difference between a signer and a key?", extract, sources,
                                           {kb.pk: kb}))

    def test_a_sections_heading_is_what_its_text_is_about(self):
        # mitt's "Does mitt work with TypeScript?": the answer is its "Usage > Typescript" section, whose text says
        # "tsconfig.json" and never "TypeScript"; it shared only "mitt" with the question, and was refused.
        question = "Does Acme work with websockets?"
        for heading, refused in (("Websockets", False), ("Sessions", True)):
            source = hit(1, f"### {heading}\n\nAcme keeps one connection per client open in the worker.")
            source.section_path, source.knowledge_base_id = f"Acme > Usage > {heading}", self.kb.pk
            grounding = answers.Grounding([source], 0.9, [], {}, question=question, kbs={self.kb.pk: self.kb})
            composition = answers.compose_extractive(grounding)
            self.assertEqual(("common_words_only" in grounding.reasons, not composition.text), (refused, refused),
                             (heading, composition.text))

    def test_a_how_tos_further_unit_holding_nothing_asked_is_left_out(self):
        # yargs' "How do I install yargs?": after `npm i yargs`, "Yargs helps you build interactive command line tools
        # …"; dayjs' after `npm install dayjs --save`, "Day.js is a minimalist JavaScript library …".
        from knowledge.search import asides, composer

        question = "How do I install Acme?"
        sources = [hit(1, PAGES["Installing"]), hit(2, PAGES["Welcome"]), hit(3, "Acme logs an installer's steps.")]
        for source in sources:
            source.knowledge_base_id = self.kb.pk
        kbs = {self.kb.pk: self.kb}
        self.assertTrue(asides.says_nothing_asked(question, {(2, 0): PAGES["Welcome"]}, sources, kbs))
        self.assertFalse(asides.says_nothing_asked(question, {(3, 0): sources[2].content}, sources, kbs))
        # A command's words count ("pip install acme" installs), and a repository's rows are not prose to weigh.
        command = {(2, 1): f"{composer.COMMAND}`pip install acme`"}
        self.assertFalse(asides.says_nothing_asked(question, command, sources, kbs))
        sources[1].layer = "C1"
        self.assertFalse(asides.says_nothing_asked(question, {(2, 0): PAGES["Welcome"]}, sources, kbs))
        # A repository's name is not what is asked: "cookies-1.0" names "cookies".
        for repo_id, nothing in (("cookies-1.0", True), ("", False)):
            cookies = hit(4, PAGES["Sessions"], repo_id=repo_id)
            cookies.knowledge_base_id = self.kb.pk
            self.assertEqual(asides.says_nothing_asked("How do I install Cookies?", {(1, 0): PAGES["Sessions"]},
                                                          [cookies], kbs), nothing, repo_id)

    def test_a_readmes_tagline_answers_what_the_project_is_never_a_how_to(self):
        from dataclasses import replace

        from knowledge.search import composer

        readme = replace(hit(1, "# tinycolors\n\nThe tiniest library for terminal output formatting with colors.\n\n"
                                "Colors are turned off when the output is no terminal.", doc_kind="readme",
                             repo_id="tinycolors-1.0", section_start=True), section_path="tinycolors",
                         document_title="tinycolors")
        how_to = composer.compose("How do I format terminal output?", [readme], entry_match=False).text
        self.assertNotIn("The tiniest library", how_to)
        self.assertIn("The tiniest library", composer.compose("What is tinycolors?", [readme], entry_match=False).text)
        # Another section's first sentence is no tagline, a top-level one's neither (minimist's "# install").
        for heading, path in (("## Formatting", "tinycolors > Formatting"), ("# Formatting", "Formatting")):
            section = replace(readme, content=readme.content.replace("# tinycolors", heading), section_path=path)
            self.assertIn("The tiniest library",
                          composer.compose("How do I format terminal output?", [section], entry_match=False).text)

    def test_a_readmes_tagline_leading_into_its_example_answers_how_to_use_it(self):
        # helmet's README: "Help secure Express apps by setting HTTP response headers." over `app.use(helmet())`;
        # "How do I use helmet?" was refused, the tagline left out of every how-to and its example with it.
        from dataclasses import replace

        from knowledge.search import composer

        readme = replace(hit(1, "# Helmet\n\nHelp secure Express apps by setting HTTP response headers.\n\n```js\n"
                                "import helmet from \"helmet\";\n\napp.use(helmet());\n```\n\nEach header can be "
                                "configured.", doc_kind="readme", repo_id="helmet-8.0.0", section_start=True),
                         section_path="Helmet", document_title="Helmet")
        self.assertEqual(composer.compose("How do I use helmet?", [readme], entry_match=False).text,
                         "Help secure Express apps by setting HTTP response headers. [1]\n"
                         "    import helmet from \"helmet\";\n    app.use(helmet());")
        # Only how to use the project: picocolors' tagline and example answered "How do I disable colors?".
        self.assertNotIn("Help secure", composer.compose("How do I set response headers?", [readme],
                                                         entry_match=False).text)

    def test_a_projects_name_is_not_what_a_question_asks_about(self):
        # yargs' README says "yargs" in fewer than 30 % of its base's chunks (its code outnumbers its prose): "Yargs
        # helps you build interactive command line tools …" held "yargs" of "How do I install yargs?", and stayed.
        from knowledge.search.common_words import shares_nothing_asked

        question, extract = "How do I install Cookies?", PAGES["Sessions"]
        sources = [hit(1, PAGES["Sessions"])]
        sources[0].knowledge_base_id = self.kb.pk
        kbs = {self.kb.pk: self.kb}
        self.assertFalse(shares_nothing_asked(question, extract, sources, kbs))
        self.assertTrue(shares_nothing_asked(question, extract, sources, kbs, named="cookies 1 0"))

    def test_an_extract_sharing_only_its_repositorys_name_is_refused(self):
        # qs' README says "qs" in fewer than 30 % of its base's chunks: "The maintainers of qs and thousands of other
        # packages are working with Tidelift …" shared only "qs" with "How do I install qs?", and was quoted.
        # (An install question saying nothing of installing is refused before it now: `installs.says_how_to_install`.)
        question = "How do I install Cookies?"
        for asked, content, refused in (("How do I configure Cookies?", PAGES["Sessions"], True),
                                        (question, "Run `pip install cookies` to get it.", False),
                                        (question, "Stable version:\n\n```\nnpm i cookies\n```", False)):
            source = hit(1, content, repo_id="cookies-1.0")
            source.knowledge_base_id = self.kb.pk
            grounding = answers.Grounding([source], 0.9, [], {}, question=asked, kbs={self.kb.pk: self.kb})
            composition = answers.compose_extractive(grounding)
            self.assertEqual(("common_words_only" in grounding.reasons, not composition.text), (refused, refused),
                             (content, composition.text))
        source = hit(1, PAGES["Sessions"], repo_id="cookies-1.0")
        source.knowledge_base_id = self.kb.pk
        grounding = answers.Grounding([source], 0.9, [], {}, question=question, kbs={self.kb.pk: self.kb})
        self.assertFalse(answers.compose_extractive(grounding).text)
        # Not a document's title, in a repository or not: what that document is about, not what all of them are
        # (django-ninja's "How does throttling work?" was refused, its guide being titled "Throttling").
        for metadata in ({}, {"repo_id": "acme-1.0"}):
            source = hit(1, PAGES["Sessions"], **metadata)
            source.knowledge_base_id, source.document_title = self.kb.pk, "Cookies"
            grounding = answers.Grounding([source], 0.9, [], {}, question=question, kbs={self.kb.pk: self.kb})
            self.assertTrue(answers.compose_extractive(grounding).text, metadata)
