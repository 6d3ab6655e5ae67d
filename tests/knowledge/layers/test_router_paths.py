"""Source files named by their paths: "Who imports lib/option.js?" asks about the module `lib.option`."""

import pytest
from django.test import SimpleTestCase

from knowledge.search.intent import code_name, plan_question
from knowledge.search.planned import plan_and_search
from knowledge.search.vocabulary import Vocabulary
from tests.factories import make_indexed_repo
from tests.knowledge.layers.test_router_code import REPO


class FilePathTests(SimpleTestCase):
    def test_a_file_of_the_bases_named_by_its_path_is_its_module(self):
        # "Who imports lib/option.js?" (commander.js, whose modules are files): no code name was found, and the
        # question was searched as prose.
        vocabulary = Vocabulary(code={"lib.option", "option", "attr._make"}, symbols={"lib.option", "attr._make"},
                                modules={"lib/option.js": "lib.option", "src/attr/_make.py": "attr._make",
                                         "typings/option.d.ts": "typings.option.d"})
        for question, name in [("Who imports lib/option.js?", "lib.option"),
                               ("Which modules import `lib/option.js`?", "lib.option"),
                               ("What does lib/option do?", "lib.option"),
                               ("Кто импортирует src/attr/_make.py?", "attr._make"),
                               ("Who imports attr/_make.py?", "attr._make"), ("Who imports lib/missing.js?", ""),
                               # A file's name alone is the asker's as often: "my project's urls.py".
                               ("Who imports option.js?", ""), ("Who imports option?", "")]:
            with self.subTest(question=question):
                self.assertEqual(code_name(question, vocabulary), name)
        plan = plan_question("Which modules import lib/option.js?", vocabulary)
        self.assertEqual((plan.intent, plan.steps[0].filters), ("imports", {"edge_type": "imports",
                                                                            "dst_ref": ["lib.option"]}))


@pytest.fixture
def kb(tmp_path):
    return make_indexed_repo(tmp_path / "cfgkit-repo", REPO)


@pytest.mark.django_db
def test_who_imports_a_file_named_by_its_path(kb):
    plan, hits = plan_and_search("Which modules import cfgkit/server.py?", [kb.pk])
    found = plan.trace[0]["hits"]
    assert plan.intent == "imports" and found
    assert {(hit.metadata["src_qname"], hit.metadata["dst_ref"]) for hit in hits[:found]} == {
        ("cfgkit.cli", "cfgkit.server")}
