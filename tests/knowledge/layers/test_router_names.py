"""Code names a question spells as plain words, followed by their kind; a kind asked how to make."""

from django.test import SimpleTestCase

from knowledge.search.code_names import asks_signature, qualified_forms
from knowledge.search.intent import code_name, plan_question
from knowledge.search.vocabulary import Vocabulary

# Flask's names: `route` is a method of Scaffold, and "route" also asks for an HTTP entrypoint.
VOCABULARY = Vocabulary(code={"route", "flask.sansio.scaffold.scaffold.route", "test"},
                        symbols={"route", "flask.sansio.scaffold.Scaffold.route", "test", "tests.test"})

COMMANDS = Vocabulary(code={"qcluster"}, symbols={"qcluster"}, commands={"qcluster", "run", "init-db", "routes"})


class NamedByKindTests(SimpleTestCase):
    def test_a_plain_word_before_its_kind_is_the_symbol_asked_about(self):
        # "What does the route decorator do?" listed routes (an entrypoint question), not Scaffold.route.
        self.assertEqual(code_name("What does the route decorator do?", VOCABULARY), "route")
        self.assertEqual(plan_question("What does the route decorator do?", VOCABULARY).intent, "symbol")
        self.assertEqual(code_name("Where is the route method defined?", VOCABULARY), "route")

    def test_a_word_the_code_names_are_made_of_is_one_asked_the_doing_of(self):
        # pluggy's "What does tryfirst do?": `tryfirst=True` is an option no symbol is, but its tests' names say it.
        names = {"testing.test_hookcaller.test_adding_nonwrappers_tryfirst", "pluggy.HookCaller.callExtra"}
        vocabulary = Vocabulary(code={name.lower() for name in names}, symbols=names)
        self.assertEqual(code_name("What does tryfirst do?", vocabulary), "tryfirst")
        self.assertEqual(code_name("What does extra do?", vocabulary), "extra")  # a camelCase hump is a part
        self.assertEqual(plan_question("What does tryfirst do?", vocabulary).intent, "symbol")
        # Not a part of a name, nor a word the question does not ask the doing of.
        self.assertEqual(code_name("What does trylast do?", vocabulary), "")
        self.assertEqual(code_name("How do I add a test?", vocabulary), "")

    def test_a_name_opening_with_an_acronym_is_code_when_the_bases_spell_it_so(self):
        # cachetools' "What is the difference between LRUCache and LFUCache?" planned no symbol step: "LRUCache" has
        # no shape of code ("LruCache" has), and LRUCache's docstring was never quoted.
        names = {"cachetools.LRUCache", "cachetools.LFUCache", "cachetools.TTLCache"}
        vocabulary = Vocabulary(code={name.lower() for name in names}, symbols=names)
        question = "What is the difference between LRUCache and LFUCache?"
        self.assertEqual(code_name(question, vocabulary), "LRUCache")
        plan = plan_question(question, vocabulary)
        self.assertEqual(plan.intent, "symbol")
        self.assertEqual([step.filters.get("name") for step in plan.steps[:2]], ["LRUCache", "LFUCache"])
        # Not when the bases spell no such name: an acronym in a plural is a word.
        self.assertEqual(code_name("How do I upload PDFs?", vocabulary), "")

    def test_plain_words_compared_are_the_symbols_the_bases_define(self):
        # marshmallow's "What is the difference between load and dump?" planned no symbol step: "load" is a plain word.
        names = {"marshmallow.schema.Schema.load", "marshmallow.schema.Schema.dump", "tests.test_load_and_dump"}
        vocabulary = Vocabulary(code={name.lower() for name in names}, symbols=names)
        for question in ["What is the difference between load and dump?", "load vs dump: which one should I use?",
                         "How does load compare with dump?"]:
            plan = plan_question(question, vocabulary)
            self.assertEqual([step.filters.get("name") for step in plan.steps[:2]], ["load", "dump"], question)
        # Not a word the bases define no name of, nor one the question does not compare, nor a comparing word.
        self.assertEqual(code_name("What is the difference between a schema and a field?", vocabulary), "")
        self.assertEqual(code_name("Compare the load times of two schemas.", vocabulary), "")
        self.assertEqual(code_name("How do I load data?", vocabulary), "")

    def test_a_plain_word_asked_its_signature_parameters_or_return_value_is_the_symbol(self):
        # humanize's "What is the signature of intcomma?" planned no symbol step and was refused.
        names = {"humanize.number.intcomma", "humanize.number.intword"}
        vocabulary = Vocabulary(code={name.lower() for name in names}, symbols=names)
        for question in ["What is the signature of intcomma?", "What arguments does intcomma accept?",
                         "What are the parameters of intcomma?", "What does intcomma return?",
                         "Какие параметры intcomma?", "Что возвращает intcomma?", "Какие параметры у intcomma?",
                         "Какие аргументы принимает intcomma?", "Какая сигнатура у функции intcomma?"]:
            self.assertEqual(code_name(question, vocabulary), "intcomma", question)
            self.assertEqual(plan_question(question, vocabulary).steps[0].filters, {"name": "intcomma"}, question)
        # (Asked of its kind too: schedule's "What does the at method accept?" quoted "Schedule's documentation lives
        # at schedule.readthedocs.io.")
        self.assertTrue(asks_signature("What does the intcomma function accept?"))
        self.assertFalse(asks_signature("What does intcomma do?"))
        self.assertFalse(asks_signature("What does the ndigits parameter of intcomma do?"))  # one of them
        # Not a word the bases define no symbol of.
        self.assertEqual(code_name("What is the signature of a webhook?", vocabulary), "")
        self.assertEqual(code_name("What does the server return?", vocabulary), "")

    def test_a_dotted_name_no_symbol_ends_with_is_the_packages_symbol_of_its_last_name(self):
        # arrow's "What does arrow.now() return?": `arrow.now` is `arrow.api.now`, as arrow's package exports it.
        names = {"arrow.api.now", "arrow.arrow.Arrow.now", "arrow.factory.ArrowFactory.now", "other.now"}
        vocabulary = Vocabulary(code={name.lower() for name in names}, symbols=names)
        self.assertEqual(qualified_forms("arrow.now", vocabulary), ["arrow.api.now", "arrow.now"])
        self.assertEqual(qualified_forms("Arrow.now", vocabulary), ["arrow.arrow.Arrow.now", "Arrow.now"])
        self.assertEqual(qualified_forms("dates.now", vocabulary), ["dates.now"])

    def test_a_how_tos_verb_and_the_words_after_it_name_the_symbol_they_join_into(self):
        # python-dotenv's "How do I set a key in a .env file from code?" quoted `get_key` and never `set_key`.
        names = {"dotenv.main.set_key", "dotenv.main.get_key", "schedule.Scheduler.run_pending",
                 "schedule.Scheduler._run_job", "app.util.addItems"}
        vocabulary = Vocabulary(code={name.lower() for name in names}, symbols=names)
        question = "How do I set a key in a .env file from code?"
        self.assertEqual(code_name(question, vocabulary), "set_key")
        plan = plan_question(question, vocabulary)
        self.assertEqual((plan.intent, plan.steps[0].filters.get("name")), ("symbol", "set_key"))
        self.assertEqual(code_name("How do I run pending jobs?", vocabulary), "run_pending")
        self.assertEqual(code_name("How can I add items to the cart?", vocabulary), "addItems")  # camelCase, plural
        # Not a private name, nor words the bases join into no name, nor a question asking no how-to.
        self.assertEqual(code_name("How do I run a job every hour?", vocabulary), "")
        self.assertEqual(code_name("How do I set up the project?", vocabulary), "")
        self.assertEqual(code_name("Why does it set a key?", vocabulary), "")

    def test_a_word_describing_the_kind_is_no_name(self):
        self.assertEqual(code_name("How do I write a test function?", VOCABULARY), "")
        self.assertEqual(code_name("Which class handles the routes?", VOCABULARY), "")
        # django-ninja's "How do I change the pagination class for the whole project?": `ninja.pagination` is a
        # module, and the question is about the class the project uses.
        self.assertEqual(code_name("How do I change the route class for the whole project?", VOCABULARY), "")
        self.assertEqual(plan_question("Which handler serves GET /items?", VOCABULARY).intent, "entrypoint")

    def test_a_how_to_naming_no_command_variable_route_or_model_asks_the_documentation(self):
        # Flask's "How do I add a custom CLI command?" was answered with the commands Flask declares, click's
        # "How do I read an environment variable into an option?" with the variables its docs name.
        for question in ["How do I add a custom CLI command?", "How can I write my own command?",
                         "How to register a new CLI command?", "Как добавить свою команду в CLI?",
                         "How do I test a click command?", "How do I read an environment variable into an option?",
                         "How do I add a route?", "Как создать фоновую задачу?", "How do I define a model?",
                         # structlog's: its pages' mentions of github.com and 12factor.net were the answer.
                         "How do I integrate structlog with the standard library logging?",
                         "Как интегрировать structlog со стандартным logging?"]:
            plan = plan_question(question, COMMANDS)  # "my own" asks for no owner either
            documentation = plan.steps[1 if len(plan.steps) > 1 else 0]
            assert plan.intent in {"workflow", "general"} and "D0" in documentation.layers, question
        plan = plan_question("How do I make the qcluster command use two workers?", COMMANDS)
        assert plan.steps[0].filters == {"entry_type": "cli", "route_or_command": "qcluster"}

    def test_the_command_named_beside_the_word_command(self):
        # Flask's "How do I run the init-db command?" filtered on `run`, the verb, and "What does the routes command
        # show?" asked for HTTP routes.
        for question, command in [("How do I run the init-db command?", "init-db"),
                                  ("What does the routes command show?", "routes"),
                                  ("Что делает команда routes?", "routes")]:
            plan = plan_question(question, COMMANDS)
            assert (plan.intent, plan.steps[0].filters) == ("cli", {"entry_type": "cli",
                                                                    "route_or_command": command}), question
        assert plan_question("Which routes does the app define?", COMMANDS).intent == "entrypoint"
        # A plain word that is a command only beside the word: click's examples declare a command `group`.
        plan = plan_question("How do I create a group of commands?", Vocabulary(commands={"group"}))
        assert plan.intent != "cli", plan.steps

    def test_a_plain_word_naming_a_symbol_in_a_how_to_asks_the_documentation(self):
        # attrs' "How do I make a class frozen?" searched the symbol `frozen` (the word "class" read as a question
        # about a definition) and was answered with `attr._next_gen.frozen`'s file.
        names = Vocabulary(code={"frozen", "attr._next_gen.frozen"}, symbols={"frozen", "attr._next_gen.frozen"})
        plan = plan_question("How do I make a class frozen?", names)
        assert plan.intent == "workflow", plan.steps
        assert [step.layers for step in plan.steps] == [["D4"], ["D0"], ["C0"]]
        # Asked what it is, or where, it is the symbol; so is one written as code in a how-to.
        for question in ["Where is the frozen function defined?", "What does the frozen function do?",
                         "How do I use the `frozen` class?"]:
            assert plan_question(question, names).intent == "symbol", question
