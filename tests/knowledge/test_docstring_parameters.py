"""The parameters a docstring documents in a section of its own (Google's "Args:", NumPy's "Parameters")."""

from knowledge.indexing.layers.docstrings import described_parameter, documented_parameters
from knowledge.search import layer_text

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
