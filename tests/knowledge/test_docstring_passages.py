"""A paragraph of a docstring below its first sentence, when that is what a question asks (`layer_text.
answering_paragraph`), and a symbol's source chunk taking its catalog row's place for it."""

from dataclasses import replace

import pytest

from knowledge.search import answers, code_names, composer, layer_text, planned, retrieval
from tests.factories import make_kb
from tests.knowledge.test_composer import hit

# schedule's `Scheduler.run_pending` and `Job.at` (a field whose list a blank line parts from it).
RUN_PENDING = '''    def run_pending(self) -> None:
        """
        Run all jobs that are scheduled to run.

        Please note that it is *intended behavior that run_pending()
        does not run missed jobs*. For example, if you've registered a job
        that should run every minute and you only call run_pending()
        in one hour increments then your job won't be run 60 times in
        between but only once.
        """
        runnable_jobs = (job for job in self.jobs if job.should_run)
'''
AT = '''    def at(self, time_str: str, tz: Optional[str] = None):
        """
        Specify a particular time that the job should be run at.

        :param time_str: A string in one of the following formats:

            - For daily jobs -> `HH:MM:SS` or `HH:MM`
            - For hourly jobs -> `MM:SS` or `:MM`

            The format must make sense given how often the job is
            repeating.

        :param tz: The timezone that this timestamp refers to.

        :return: The invoked job instance
        """
        if self.unit not in ("days", "hours", "minutes"):
'''


def test_the_paragraph_sharing_the_questions_words_answers():
    assert layer_text.answering_paragraph(RUN_PENDING, "Does run_pending run jobs that were missed?",
                                          "schedule.Scheduler.run_pending") == (
        "Please note that it is intended behavior that run_pending() does not run missed jobs. For example, if you've "
        "registered a job that should run every minute and you only call run_pending() in one hour increments then "
        "your job won't be run 60 times in between but only once.")
    assert layer_text.answering_paragraph(AT, "What formats does at() accept for daily jobs?", "schedule.Job.at") == (
        "time_str: A string in one of the following formats: For daily jobs -> HH:MM:SS or HH:MM; For hourly jobs "
        "-> MM:SS or :MM.")
    # What the symbol is for is its first sentence: a question of its own names and one word finds no paragraph.
    assert layer_text.answering_paragraph(RUN_PENDING, "What does run_pending do?", "schedule.Scheduler.run_pending") \
        == ""
    assert layer_text.answering_paragraph(AT, "How do I run a job at a time?", "schedule.Job.at") == ""
    # A how-to is answered by what the symbol is for and its examples, not a note sharing its words.
    assert layer_text.answering_paragraph(RUN_PENDING, "How do I run missed jobs with run_pending?",
                                          "schedule.Scheduler.run_pending") == ""


# schedule's `Job.do` and humanize's `ordinal`: what a how-to asks is a later paragraph's sentence.
DO = '''    def do(self, job_func: Callable, *args, **kwargs):
        """
        Specifies the job_func that should be called every time the
        job runs.

        Any additional arguments are passed on to job_func when
        the job runs.

        :param job_func: The function to be scheduled
        :return: The invoked job instance
        """
        self.job_func = functools.partial(job_func, *args, **kwargs)
'''
ORDINAL = '''def ordinal(value: NumberOrString, gender: str = "male") -> str:
    """Converts an integer to its ordinal as a string.

    For example, 1 is "1st", 2 is "2nd", 3 is "3rd", etc. Works for any integer or
    anything `int()` will turn into an integer. Anything else will return the output
    of str(value).

    Examples:
        ```pycon
        >>> ordinal(1)
        '1st'
        ```
    """
'''


def test_a_later_sentence_of_the_docstring_answers_what_its_first_does_not_say():
    assert layer_text.answering_sentence(DO, "How do I pass arguments to a job?", "schedule.Job.do") == (
        "Any additional arguments are passed on to job_func when the job runs.")
    row = replace(hit(1, DO, qname="schedule.Job.do", source_path="schedule/__init__.py"), layer="C0")
    assert layer_text.quotable(row, question="How do I pass arguments to a job?") == (
        "`schedule.Job.do` (schedule/__init__.py): Specifies the job_func that should be called every time the job "
        "runs. Any additional arguments are passed on to job_func when the job runs.")
    assert layer_text.answering_sentence(ORDINAL, "How do I get ordinal numbers like 1st and 2nd?",
                                         "humanize.number.ordinal") == (
        'For example, 1 is "1st", 2 is "2nd", 3 is "3rd", etc. Works for any integer or anything int() will turn into '
        'an integer.')  # ("etc." ends no sentence)
    # Not when the first sentence says something asked, to a how-to: run_pending's "Run all jobs that are scheduled to
    # run." and its note on missed jobs, asked how to run a job only once; nor a sentence sharing one word.
    assert layer_text.answering_sentence(RUN_PENDING, "How do I run a job only once?",
                                         "schedule.Scheduler.run_pending") == ""
    assert layer_text.answering_sentence(DO, "How do I remove arguments?", "schedule.Job.do") == ""


def test_the_chunk_answering_takes_its_rows_place():
    row = replace(hit(1, "method schedule.Scheduler.run_pending\ndef run_pending(self) -> None\nRun all jobs.",
                      qname="schedule.Scheduler.run_pending", kind="method", source_path="schedule/__init__.py",
                      docstring="Run all jobs that are scheduled to run."), layer="C1")
    readme = hit(2, "## Usage\n\nCall run_pending in a loop.")
    chunk = replace(hit(3, RUN_PENDING, qname="schedule.Scheduler.run_pending", source_path="schedule/__init__.py"),
                    layer="C0")
    question = "Does run_pending run jobs that were missed?"
    assert layer_text.chunks_saying_more([row, readme, chunk], question) == [chunk, readme, row]
    quoted = layer_text.quotable(chunk, question=question)
    assert quoted.startswith("`schedule.Scheduler.run_pending` (schedule/__init__.py): Run all jobs that are "
                             "scheduled to run. Please note that it is intended behavior that run_pending() does not "
                             "run missed jobs.")
    # A chunk saying no more than the row leaves it in its place.
    assert layer_text.chunks_saying_more([row, readme, chunk], "What does run_pending do?") == [row, readme, chunk]


def test_of_a_symbol_not_named_the_paragraph_says_all_asked_and_examples_are_no_paragraphs():
    # tenacity's `sleep`: "the default strategy" is no answer to "What is the default stop strategy?".
    sleep = ('def sleep(seconds: float) -> None:\n    """\n    Sleep strategy that delays execution for a given '
             'number of seconds.\n\n    This is the default strategy, and may be mocked out for unit testing.\n'
             '    """\n')
    assert layer_text.answering_paragraph(sleep, "What is the default stop strategy?", "tenacity.nap.sleep") == ""
    assert layer_text.answering_paragraph(sleep, "Is sleep the default strategy?", "tenacity.nap.sleep") == (
        "This is the default strategy, and may be mocked out for unit testing.")
    # humanize's `intword`: its examples in a Markdown block are no paragraph answering.
    intword = ('def intword(value, format="%.1f"):\n    """Converts a large integer to a friendly text representation.'
               '\n\n    Examples:\n        ```pycon\n        >>> intword("1000000")\n        \'1.0 million\'\n'
               '        ```\n    """\n')
    assert layer_text.answering_paragraph(intword, "Which value is 1000000 as a million in intword?",
                                          "humanize.number.intword") == ""


# pluggy's `HookimplMarker.__call__`: each `:param` field's text on the lines below it.
MARKER_CALL = '''    def __call__(self, function=None, tryfirst: bool = False, trylast: bool = False):
        """If passed a function, directly sets attributes on the function.

        :param tryfirst:
            If ``True``, this hook implementation will run as early as possible
            in the chain of N hook implementations for a specification. See
            :ref:`callorder`.

        :param trylast:
            If ``True``, this hook implementation will run as late as possible.
        """
'''


def test_a_field_whose_text_is_below_its_name_is_the_parameters_entry():
    assert layer_text.parameter_named(MARKER_CALL, "What does the tryfirst option do?",
                                      "pluggy._hooks.HookimplMarker.__call__") == "tryfirst"
    assert layer_text.naming_paragraph(MARKER_CALL, "What does the tryfirst option do?",
                                       "pluggy._hooks.HookimplMarker.__call__").startswith(
        "tryfirst: If True, this hook implementation will run as early as possible in the chain of N hook "
        "implementations for a specification.")


@pytest.mark.django_db
def test_a_question_naming_a_parameter_a_quoted_docstring_documents_is_about_it():
    # "What does the tryfirst option do?" found the docs' "First result only" first and `__call__` second, at a
    # confidence of 0.59: refused, though `:param tryfirst:` answers it.
    kb = make_kb()
    section = hit(1, "## First result only\n\nA hookspec can be marked such that the call loop stops at the first "
                     "result.", source_uri="docs/index.rst")
    call = replace(hit(2, MARKER_CALL, qname="pluggy._hooks.HookimplMarker.__call__",
                       source_path="src/pluggy/_hooks.py"), layer="C0")
    for source in (section, call):
        source.knowledge_base_id = kb.pk
    result = retrieval.Retrieval(hits=[section, call], best_similarity=0.5, keyword_fallback_used=False, timings={},
                                 best_relevance=0.3, relevant_count=2)
    grounding = answers.judge("What does the tryfirst option do?", result)
    assert grounding.refusal is None and grounding.confidence == answers.NAMED_ENTRY_CONFIDENCE
    # A parameter it does not document leaves the confidence the search's.
    assert answers.judge("What does the optionalhook option do?", result).refusal is not None


@pytest.mark.django_db
def test_an_extract_quoting_the_entry_of_a_parameter_named_in_words_says_what_is_asked():
    # filelock's "What does the mode parameter do?" quoted "mode: file permissions for the lockfile", 0.296 close in
    # meaning to it where 0.3 is needed: refused.
    kb = make_kb()
    code = ('    def __init__(self, lock_file, timeout: float = -1, mode: int = 0o644) -> None:\n        """\n'
            '        Create a new lock object.\n\n        :param lock_file: path to the file\n'
            '        :param mode: file permissions for the lockfile\n        """\n')
    init = replace(hit(1, code, qname="filelock.BaseFileLock.__init__", source_path="src/filelock/_api.py"),
                   layer="C0", knowledge_base_id=kb.pk)
    result = retrieval.Retrieval(hits=[init], best_similarity=0.5, keyword_fallback_used=False, timings={},
                                 best_relevance=0.3, relevant_count=1)
    quoted = composer.Composition("`filelock.BaseFileLock.__init__` (src/filelock/_api.py): mode: file permissions "
                                  "for the lockfile. [1]", [1], False, 0.296)
    assert answers._says_code_asked(answers.judge("What does the mode parameter do?", result), quoted)
    # Not a parameter it does not document, though the extract writes the word.
    assert not answers._says_code_asked(answers.judge("What does the blocking parameter do?", result), quoted)


@pytest.mark.django_db
def test_a_question_asking_where_a_quoted_symbol_is_defined_is_about_it():
    # humanize: "Where is naturalsize defined?" found `humanize.filesize.naturalsize` second at a confidence of 0.55:
    # refused, though its answer says where it is.
    kb = make_kb()
    section = hit(1, "## File size humanization\n\nFormat sizes for people.", source_uri="README.md")
    code = replace(hit(2, 'def naturalsize(value):\n    """Format a number of bytes for people."""\n',
                       qname="humanize.filesize.naturalsize", source_path="src/humanize/filesize.py"), layer="C0")
    for source in (section, code):
        source.knowledge_base_id = kb.pk
    result = retrieval.Retrieval(hits=[section, code], best_similarity=0.35, keyword_fallback_used=False, timings={},
                                 best_relevance=0.2, relevant_count=2)
    for question in ("Where is naturalsize defined?", "In which module is humanize.filesize.naturalsize?"):
        grounding = answers.judge(question, result)
        assert grounding.refusal is None and grounding.confidence == answers.NAMED_ENTRY_CONFIDENCE, question
    # Where to do something, or another name, leaves the confidence the search's.
    for question in ("Where do I put naturalsize?", "Where is intword defined?"):
        assert answers.judge(question, result).refusal is not None, question


# The second chunk of pluggy's `HookimplMarker.__call__`: it opens inside the docstring the first chunk opened.
MARKER_CALL_TAIL = '''        :param hookwrapper:
            If ``True`` ("old-style hook wrapper"), the hook implementation
            needs to execute exactly one ``yield``. This option is mutually
            exclusive with ``wrapper``.

        :param specname:
            If provided, the given name will be used instead of the function
            name when matching this hook implementation to a hook specification
            during registration.
        """

        def setattr_hookimpl_opts(func: _F) -> _F:
            opts: HookimplOpts = {"wrapper": wrapper, "hookwrapper": hookwrapper}
            setattr(func, self.project_name + "_impl", opts)
            return func
'''


def test_a_chunk_opening_inside_a_docstring_documents_its_parameters():
    # "What is a hookwrapper?" quoted `HookimplOpts`' "Options for a hook implementation.": the chunk holding the
    # `:param hookwrapper:` field opens inside its function's docstring, so its fields were read as code.
    symbol = "pluggy._hooks.HookimplMarker.__call__"
    assert layer_text.opens_inside_docstring(MARKER_CALL_TAIL)
    assert not layer_text.opens_inside_docstring(MARKER_CALL)
    assert not layer_text.opens_inside_docstring('    def run(self):\n        query = (\n            """SELECT 1"""\n')
    assert layer_text.parameter_named(MARKER_CALL_TAIL, "What is a hookwrapper?", symbol, "src/pluggy/_hooks.py") \
        == "hookwrapper"
    assert layer_text.naming_paragraph(MARKER_CALL_TAIL, "What is a hookwrapper?", symbol, "src/pluggy/_hooks.py") \
        .startswith('hookwrapper: If True ("old-style hook wrapper"), the hook implementation needs to execute '
                    'exactly one yield.')
    # Its code is still code: "opts" is no name its docstring documents.
    assert layer_text.parameter_named(MARKER_CALL_TAIL, "What are the opts?", symbol, "src/pluggy/_hooks.py") == ""


# The third chunk of `tabulate()`: all of it inside the docstring, no triple quotes in it.
TABULATE_MIDDLE = '''    `floatfmt` is a format specification used for columns which
    contain numeric data with a decimal point. This can also be
    a list or tuple of format strings, one per column.

    `None` values are replaced with a `missingval` string (like
    `floatfmt`, this can also be a list of values for different
    columns):

    >>> print(tabulate([["spam", 1, None]], missingval="?"))
    ----  -  -
    spam  1  ?
    ----  -  -

    Various plain-text table formats (`tablefmt`) are supported:
    'plain', 'simple', 'grid', 'pipe', 'orgtbl', 'rst', 'mediawiki'.
'''


@pytest.mark.django_db
def test_a_chunk_in_the_middle_of_a_docstring_says_what_a_parameter_is():
    # "What does the missingval argument do?" quoted `_expand_iterable`'s "Expands the `original` argument …" and was
    # refused (0.54): the chunk of `tabulate()`'s docstring that says it holds no triple quotes, so it read as code.
    symbol, path, question = "tabulate.tabulate", "tabulate/__init__.py", "What does the missingval argument do?"
    assert layer_text.opens_inside_docstring(TABULATE_MIDDLE)
    assert not layer_text.opens_inside_docstring("    if missingval is None:\n        missingval = ''\n"
                                                 "    rows = [format(row) for row in rows]\n")
    # (Its sentence's last word on a line of its own, "columns):", is the sentence's.)
    assert layer_text.naming_paragraph(TABULATE_MIDDLE, question, symbol, path) == (
        "None values are replaced with a missingval string (like floatfmt, this can also be a list of values for "
        "different columns).")
    kb = make_kb()
    middle = replace(hit(1, TABULATE_MIDDLE, qname=symbol, source_path=path), layer="C0", knowledge_base_id=kb.pk)
    other = replace(hit(2, '    def _expand_iterable(original, num_desired, default):\n        """Expands the '
                           '`original` argument to return a list of length `num_desired`."""\n',
                        qname="tabulate._expand_iterable", source_path=path), layer="C0", knowledge_base_id=kb.pk)
    found = planned.option_entry_first(question, [other, middle], [kb.pk], 6)
    assert [source.chunk_id for source in found] == [1, 2]
    result = retrieval.Retrieval(hits=found, best_similarity=0.4, keyword_fallback_used=False, timings={},
                                 best_relevance=0.34, relevant_count=2)
    grounding = answers.judge(question, result)
    assert grounding.refusal is None and grounding.confidence == answers.NAMED_ENTRY_CONFIDENCE, grounding.reasons


def test_a_source_chunk_asked_its_parameters_says_the_signature_it_opens_with():
    # validators' "What parameters does url take?" found `url`'s source chunk, and quoted only its first sentence.
    row = replace(hit(1, ORDINAL, qname="humanize.number.ordinal", source_path="src/humanize/number.py"), layer="C0")
    assert layer_text.quotable(row, question="What parameters does ordinal take?") == (
        "`humanize.number.ordinal` (src/humanize/number.py): Converts an integer to its ordinal as a string. Its "
        "signature is `def ordinal(value: NumberOrString, gender: str='male') -> str`.")
    assert layer_text.quotable(row, question="What does ordinal return?").endswith(" It returns `str`.")
    # Not asked its signature, nor of another symbol.
    assert "signature" not in layer_text.quotable(row, question="What does ordinal do?")
    assert "signature" not in layer_text.quotable(row, question="What parameters does intcomma take?")


@pytest.mark.django_db
def test_a_parameter_asked_of_a_named_function_is_not_another_functions_of_that_name():
    # humanize's "What does the minimum_unit argument of precisedelta do?" said `naturaldelta`'s ":param minimum_unit:"
    # first: another function's parameter of the same name.
    assert code_names.parameter_owner("What does the minimum_unit argument of precisedelta do?") == "precisedelta"
    assert code_names.parameter_owner("What does precisedelta()'s minimum_unit parameter do?") == "precisedelta"
    assert code_names.parameter_owner("What does the minimum_unit argument do?") == ""
    path = "humanize/time.py"
    natural = replace(hit(1, '    def naturaldelta(value, minimum_unit="seconds"):\n        """Return a natural delta.'
                             '\n\n        Args:\n            minimum_unit: The lowest unit that can be used.\n'
                             '        """\n', qname="humanize.time.naturaldelta", source_path=path), layer="C0")
    precise = replace(hit(2, '    def precisedelta(value, minimum_unit="seconds"):\n'
                             '        """Return a precise delta.\n\n        Instead, the `minimum_unit` can be '
                             'changed to have a better resolution; the function will still readjust the unit.\n'
                             '        """\n',
                          qname="humanize.time.precisedelta", source_path=path), layer="C0")
    kb = make_kb()
    natural, precise = (replace(row, knowledge_base_id=kb.pk) for row in (natural, precise))
    question = "What does the minimum_unit argument of precisedelta do?"
    assert planned.option_entry_first(question, [natural, precise], [kb.pk], 6)[0].chunk_id == 2
    # Asked of naturaldelta, or of no function, its entry.
    for question in ["What does the minimum_unit argument of naturaldelta do?",
                     "What does the minimum_unit argument do?"]:
        assert planned.option_entry_first(question, [precise, natural], [kb.pk], 6)[0].chunk_id == 1, question


@pytest.mark.django_db
def test_a_symbol_asked_what_it_is_by_its_name_is_about_its_catalog_row():
    # django-model-utils' "What is Choices?" found `Choices`' row first, its docstring the answer, at a confidence of
    # 0.53: refused.
    kb = make_kb()
    row = replace(hit(1, "class model_utils.choices.Choices\nclass Choices(Generic[T])\nA class to encapsulate handy "
                         "functionality for lists of choices for a Django model field.",
                      qname="model_utils.choices.Choices", source_path="model_utils/choices.py",
                      docstring="A class to encapsulate handy functionality for lists of choices for a Django model "
                                "field."), layer="C1", knowledge_base_id=kb.pk)
    result = retrieval.Retrieval(hits=[row], best_similarity=0.5, keyword_fallback_used=False, timings={},
                                 best_relevance=0.3, relevant_count=1)
    for question in ("What is Choices?", "What does Choices do?", "What is Choices used for?"):
        assert answers.judge(question, result).confidence == answers.NAMED_ENTRY_CONFIDENCE, question
    # Not a word the name is not written as, a how-to, nor a row without a docstring.
    for question in ("What are choices?", "How do I use Choices?"):
        assert answers.judge(question, result).confidence < answers.answer_threshold(), question
    bare = replace(row, metadata={**row.metadata, "docstring": ""})
    assert answers.judge("What is Choices?", replace(result, hits=[bare])).confidence < answers.answer_threshold()
