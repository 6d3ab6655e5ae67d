"""The parameters a docstring documents in a section of its own (Google's "Args:", NumPy's "Parameters")."""

from dataclasses import replace

from knowledge.indexing.layers.docstrings import described_parameter, documented_parameters
from knowledge.search import composer, layer_text
from tests.knowledge.test_composer import hit

# structlog's `configure()`: Google's style, its entries parted by blank lines, a description under its name.
GOOGLE = '''def configure(processors=None, cache_logger_on_first_use=None):
    """
    Configures the **global** defaults.

    Args:
        processors: The processor chain. See :doc:`processors` for details.

        cache_logger_on_first_use:
            `wrap_logger` doesn't return an actual wrapped logger but a proxy
            that assembles one when it's first used. If this option is set to
            `True`, this assembled logger is cached. See `performance`.

    .. versionadded:: 0.3.0 *cache_logger_on_first_use*
    """
    if cache_logger_on_first_use is not None:
        _CONFIG.cache_logger_on_first_use = cache_logger_on_first_use
'''
# Google's style with types, one entry a line, then another section; and NumPy's.
TYPED = '''    def send(self, request, stream=False, timeout=None, **kwargs):
        """Send a request.

        Arguments:
            request (Request): The request to send.
            stream (bool, optional): Whether to stream the response
                body rather than read it at once.
            **kwargs: Passed on to the transport.

        Returns:
            Response: the response.
        """
'''
NUMPY = '''def read_csv(path, sep=",", header="infer"):
    """
    Read a comma-separated values file.

    Parameters
    ----------
    path : str
        Any valid string path.
    sep, delimiter : str, default ','
        Character or regex pattern to treat as the delimiter.

    Returns
    -------
    DataFrame
    """
'''


def test_google_style_entries_with_their_descriptions():
    assert documented_parameters(GOOGLE) == {
        "processors": "The processor chain. See :doc:`processors` for details.",
        "cache_logger_on_first_use": "`wrap_logger` doesn't return an actual wrapped logger but a proxy that "
                                     "assembles one when it's first used. If this option is set to `True`, this "
                                     "assembled logger is cached. See `performance`."}
    assert documented_parameters(TYPED) == {"request": "The request to send.",
                                 "stream": "Whether to stream the response body rather than read it at once.",
                                 "kwargs": "Passed on to the transport."}


def test_numpy_style_entries_with_their_descriptions():
    assert documented_parameters(NUMPY) == {"path": "Any valid string path.",
                                 "sep": "Character or regex pattern to treat as the delimiter.",
                                 "delimiter": "Character or regex pattern to treat as the delimiter."}


def test_a_signature_a_call_or_prose_documents_nothing():
    # The signature's "name: type = default," lines and a chunk cut before any section are no entries.
    code = 'def configure(\n    processors: list | None = None,\n    cache: bool = False,\n) -> None:\n    """Hi.\n'
    assert documented_parameters(code) == {}
    assert described_parameter(GOOGLE.split("Args:")[0], ["cache_logger_on_first_use"]) is None
    # A chunk ending inside a section reads it as far as it goes.
    assert described_parameter(GOOGLE[:GOOGLE.index("that assembles")], ["cache_logger_on_first_use"]) == (
        "cache_logger_on_first_use", "`wrap_logger` doesn't return an actual wrapped logger but a proxy")


def test_the_entry_of_the_parameter_asked_is_quoted_alone():
    # structlog's "What does cache_logger_on_first_use do?": its docstring's "Args:" entry, not the whole section.
    assert layer_text.naming_paragraph(GOOGLE, "What does cache_logger_on_first_use do?") == (
        "cache_logger_on_first_use: wrap_logger doesn't return an actual wrapped logger but a proxy that assembles "
        "one when it's first used. If this option is set to True, this assembled logger is cached. See performance.")
    assert layer_text.naming_paragraph(NUMPY, "What does the delimiter parameter mean?") == (
        "delimiter: Character or regex pattern to treat as the delimiter.")


# itsdangerous' `Signer`: Sphinx's `:param name:` fields, each with its default after what it is.
SIGNER = '''class Signer:
    """A signer securely signs bytes, then unsigns them to verify that
    the value hasn't been changed.

    :param secret_key: The secret key to sign and verify with.
    :param digest_method: Hash function to use when generating the HMAC
        signature. Defaults to :attr:`default_digest_method`, which
        defaults to :func:`hashlib.sha1`.
    """
'''
# filelock's `release`: code writing the name "the lock counter" spells, after its docstring's closing marks alone.
RELEASE = '''    def release(self, force: bool = False) -> None:
        """
        Releases the file lock. Please note, that the lock is only completely released, if the lock counter is 0.

        :param force: If true, the lock counter is ignored and the lock is released in every case/

        """
        if self.is_locked:
            self._context.lock_counter -= 1

            if self._context.lock_counter == 0 or force:
                self._release()
'''


def code_hit(number: int, content: str, qname: str, layer: str = "C0"):
    return replace(hit(number, content, qname=qname, source_path="src/pkg.py", chunk_type="class"), layer=layer)


def test_a_parameter_spelled_in_words_is_its_entry():
    # "What is the default digest method of Signer?" quoted the class's first sentence, and documentation's sentences
    # sharing more words, not `:param digest_method:`.
    question = "What is the default digest method of Signer?"
    assert layer_text.parameter_named(SIGNER, question, "itsdangerous.signer.Signer") == "digest_method"
    assert layer_text.naming_paragraph(SIGNER, question, "itsdangerous.signer.Signer") == (
        "digest_method: Hash function to use when generating the HMAC signature. Defaults to default_digest_method, "
        "which defaults to hashlib.sha1.")
    # Spelled in words, a name is a parameter's only; and code after a docstring is no paragraph of it ("if
    # self.is_locked: self._context.lock_counter -= 1." was quoted for "What is the lock counter?").
    assert layer_text.naming_paragraph(RELEASE, "What is the lock counter?", "filelock.BaseFileLock.release") == ""
    assert layer_text.naming_paragraph(RELEASE, "What is lock_counter?", "filelock.BaseFileLock.release") == ""


def test_the_entry_of_a_parameter_looked_up_is_quoted_with_its_default():
    guide = hit(2, "A signer is configured with a digest method, a hash function used when generating the HMAC "
                   "signature. A project may configure the signer with a different digest method such as sha512.")
    signer = code_hit(1, SIGNER, "itsdangerous.signer.Signer")
    text = composer.compose("What is the default digest method of Signer?", [signer, guide], entry_match=False).text
    assert text.startswith("`itsdangerous.signer.Signer` (src/pkg.py): digest_method: Hash function to use")
    assert "Defaults to default_digest_method, which defaults to hashlib.sha1. [1]" in text
    # Asked something else of it, the entry is one source among the others; a fragment ending it ("See
    # performance.") is never its tail.
    configure = code_hit(1, GOOGLE, "structlog.configure")
    text = composer.compose("What does cache_logger_on_first_use do?", [configure], entry_match=False).text
    assert "this assembled logger is cached. [1]" in text and "See performance" not in text
    assert not composer._looks_up_parameter("What are the drawbacks of cache_logger_on_first_use?", configure)
    assert composer._looks_up_parameter("What is the default value of cache_logger_on_first_use?", configure)


def test_a_param_field_comes_before_a_paragraph_writing_its_name():
    # filelock's `BaseAsyncFileLock.__init__`: a `:param timeout:` field under a paragraph about the lock that writes
    # `timeout` too; the field is its entry.
    code = ('    def __init__(self, lock_file, timeout: float = -1):\n        """\n'
            '        Create a new lock object; `timeout` and the rest are the lock\'s.\n\n'
            '        :param lock_file: path to the file\n'
            '        :param timeout: default timeout when acquiring the lock, in seconds.\n        """\n')
    assert layer_text.naming_paragraph(code, "What does the timeout argument do?", "filelock.Lock.__init__") == (
        "timeout: default timeout when acquiring the lock, in seconds.")
    assert layer_text.parameter_named(code, "What is the default timeout?", "filelock.Lock.__init__") == "timeout"


def test_an_entry_asked_its_default_says_the_signatures_and_code_is_no_paragraph():
    # humanize's `scientific`: "precision: Number of decimal for first part of the number." says no default, its
    # signature does; the gnu parameter, three letters, is named as a parameter.
    code = ('def scientific(value, precision: int = 2, gnu=False) -> str:\n    """Return number in string scientific '
            'notation z.wq x 10ⁿ.\n\n    Args:\n        value: Input number.\n        precision (int): Number of '
            'decimal for first part of the number.\n        gnu (bool): If True, GNU-style prefixes are used.\n'
            '    """\n    if max_age is not None:\n        return precision\n')
    assert layer_text.naming_paragraph(code, "What is the default precision of scientific?", "humanize.scientific") \
        == "precision: Number of decimal for first part of the number. precision: int = 2."
    assert layer_text.naming_paragraph(code, "What does the gnu parameter do?", "humanize.scientific") == (
        "gnu: If True, GNU-style prefixes are used.")
    # itsdangerous' `unsign`: the code after its docstring is no paragraph writing max_age; nor is a chunk of a
    # Python file's code cut from the function it goes on.
    assert layer_text.naming_paragraph(code, "What does max_age do?", "humanize.scientific") == ""
    rest = ("        ts_int = bytes_to_int(ts)\n\n        if max_age is not None:\n            age = now - ts_int\n\n"
            "        return value\n")
    assert layer_text.naming_paragraph(rest, "What does max_age do?", "itsdangerous.timed.TimestampSigner.unsign",
                                       "src/itsdangerous/timed.py") == ""


def test_a_symbols_row_asked_a_parameters_default_says_its_signatures():
    # schedule's `run_all`: its row holds the docstring's first sentence and the signature; "What is the default
    # delay_seconds of run_all?" quoted the sentence alone.
    row = replace(hit(1, "function schedule.run_all\ndef run_all(delay_seconds: int=0) -> None\nCalls run_all.",
                      kind="function", qname="schedule.run_all", source_path="schedule/__init__.py",
                      docstring="Calls run_all on the default scheduler instance.",
                      signature="def run_all(delay_seconds: int=0) -> None"), layer="C1")
    said = "`schedule.run_all` (schedule/__init__.py): Calls run_all on the default scheduler instance."
    assert layer_text.quotable(row, question="What is the default delay_seconds of run_all?") == (
        f"{said} delay_seconds: int = 0.")
    # Not asked its default, or asked another function's, the row says what it is for.
    assert layer_text.quotable(row, question="What does delay_seconds of run_all do?") == said
    assert layer_text.quotable(row, question="What is the default delay_seconds of run_pending?") == said


def test_a_parameter_in_emphasis_is_written_as_its_name():
    # more-itertools' `chunked`: "If … and *strict* is ``True``, then ``ValueError`` will be raised …" is what
    # "What does the strict parameter of chunked do?" asks.
    code = ('def chunked(iterable, n, strict=False):\n    """Break *iterable* into lists of length *n*:\n\n'
            '        >>> list(chunked([1, 2, 3, 4], 3))\n\n    If the length of *iterable* is not divisible by *n* '
            'and *strict* is\n    ``True``, then ``ValueError`` will be raised before the last list is yielded.\n\n'
            '    """\n    return iterable\n')
    assert layer_text.naming_paragraph(code, "What does the strict parameter of chunked do?",
                                       "more_itertools.more.chunked") == (
        "If the length of iterable is not divisible by n and strict is True, then ValueError will be raised before "
        "the last list is yielded.")


def test_a_usage_tables_option_answers_a_question_about_an_option_not_an_argument():
    # docopt's `docopt()`: its docstring's example usage has "-h, --help  Show this screen and exit."; "What does the
    # help argument of docopt do?" asks about its `help` parameter.
    assert layer_text.naming_paragraph(DOCOPT, "What does the help argument of docopt do?", "docopt.docopt") \
        .startswith("help: Set to False to disable automatic help")
    assert layer_text.naming_paragraph(DOCOPT, "What does the --speed option do?", "docopt.docopt") == (
        "--speed=<kn>: Speed [default: 10].")


DOCOPT = '''def docopt(doc, argv=None, help=True):
    """Parse `argv` based on command-line interface described in `doc`.

    Parameters
    ----------
    help : bool (default: True)
        Set to False to disable automatic help on -h or --help
        options.

    Example
    -------
    >>> doc = """
    Options:
        -h, --help    Show this screen and exit.
        --speed=<kn>  Speed [default: 10].
    """
    """
'''
