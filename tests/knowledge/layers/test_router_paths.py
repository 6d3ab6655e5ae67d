"""Source files named by their paths ("Who imports lib/option.js?" asks about the module `lib.option`) or as
modules ("Who imports the router module?" asks about `lib/router/index.js`'s)."""

import pytest
from django.test import SimpleTestCase

from knowledge.search.intent import code_name, plan_question
from knowledge.search.planned import plan_and_search
from knowledge.search.vocabulary import Vocabulary
from tests.factories import make_indexed_repo


class ModuleNameTests(SimpleTestCase):
    """A module named by its file's path, or by a word before "module"."""

    def test_a_file_of_the_bases_named_by_its_path_is_its_module(self):
        # "Who imports lib/option.js?" (commander.js, whose modules are files): no code name was found, and the
        # question was searched as prose.
        vocabulary = Vocabulary(code={"lib.option", "option", "attr._make"}, symbols={"lib.option", "attr._make"},
                                modules={"lib/option.js": "lib.option", "src/attr/_make.py": "attr._make",
                                         "typings/option.d.ts": "typings.option.d"})
        self.assert_names(vocabulary, [
            ("Who imports lib/option.js?", "lib.option"), ("Which modules import `lib/option.js`?", "lib.option"),
            ("What does lib/option do?", "lib.option"), ("Кто импортирует src/attr/_make.py?", "attr._make"),
            ("Who imports attr/_make.py?", "attr._make"), ("Who imports lib/missing.js?", ""),
            # A file's name alone is the asker's as often: "my project's urls.py".
            ("Who imports option.js?", ""), ("Who imports option?", "")])
        self.assert_imports("Which modules import lib/option.js?", vocabulary, "lib.option")

    def test_a_plain_word_before_module_names_the_bases_module_of_that_name(self):
        # "Who imports the router module?" (express, whose router is lib/router/index.js) was planned as a
        # question about an entrypoint "router" and named no module.
        names = {"lib.router.index", "lib.router.layer", "lib.utils", "pkg.utils", "app.fields"}
        modules = {"lib/router/index.js": "lib.router.index", "lib/router/layer.js": "lib.router.layer",
                   "lib/utils.js": "lib.utils", "pkg/utils.py": "pkg.utils", "app/fields/__init__.py": "app.fields"}
        vocabulary = Vocabulary(code=names, symbols=names, modules=modules)
        self.assert_names(vocabulary, [
            ("Who imports the router module?", "lib.router.index"),
            ("Which files import the Layer module?", "lib.router.layer"),
            ("What imports the fields module?", "app.fields"),
            # Two modules so named: the question does not say which.
            ("Who imports the utils module?", ""), ("Who imports the http module?", ""),
            ("Which module handles errors?", "")])
        self.assert_imports("Who imports the router module?", vocabulary, "lib.router.index")

    def assert_names(self, vocabulary: Vocabulary, cases: list[tuple[str, str]]) -> None:
        for question, name in cases:
            with self.subTest(question=question):
                self.assertEqual(code_name(question, vocabulary), name)

    def assert_imports(self, question: str, vocabulary: Vocabulary, module: str) -> None:
        plan = plan_question(question, vocabulary)
        self.assertEqual((plan.intent, plan.steps[0].filters), ("imports", {"edge_type": "imports",
                                                                            "dst_ref": [module]}))


@pytest.mark.django_db
def test_who_imports_a_file_named_by_its_path(tmp_path):
    kb = make_indexed_repo(tmp_path / "cli-repo", {
        "lib/option.js": "class Option {\n  constructor(flags) {\n    this.flags = flags;\n  }\n}\n\n"
                         "module.exports = { Option };\n",
        "lib/command.js": "const { Option } = require('./option.js');\n\nclass Command {\n  option(flags) {\n"
                          "    return new Option(flags);\n  }\n}\n\nmodule.exports = { Command };\n",
        "index.js": "const { Command } = require('./lib/command.js');\n"
                    "const { Option } = require('./lib/option.js');\n\nmodule.exports = { Command, Option };\n",
    })
    for question in ["Which modules import lib/option.js?", "Who imports ./lib/option?"]:
        plan, hits = plan_and_search(question, [kb.pk])
        found = plan.trace[0]["hits"]
        assert plan.intent == "imports" and found, question
        assert {(hit.metadata["src_qname"], hit.metadata["dst_ref"]) for hit in hits[:found]} == {
            ("lib.command", "lib.option"), ("index", "lib.option")}, question
