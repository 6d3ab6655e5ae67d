"""A chunk's full-text vector: what keyword search matches.

The document's title and the chunk's section path weigh most (A), its text next (B), and so do the parts of the code
names its text holds: full-text search reads a dotted or slashed name as one token — `dayjs.locale('es')` as the host
name "dayjs.locale", `dayjs/locale/es` as a file path — so "How do I change the locale?" never found the README's
section quoting them. The names stay whole too: a question quoting `dayjs.locale` still matches them as written.
A change here goes with a new `parsing.PARSER_VERSION`, so `manage.py reindex` rebuilds the documents indexed before.
"""

from django.contrib.postgres.search import SearchVector
from django.db.models import Func, TextField, Value

# A name of code: words joined by dots or slashes, each part after one opening with a letter ("logger.add",
# "dayjs/locale/es"; not "3.5", nor "2.0.1"), not a web address's ("https://www.vtb.by/sites/default/files/…": its
# path's words are no words of the page's).
CODE_NAME = r"(?<![[:alnum:]_/:.@-])(?!www\.)[[:alnum:]_]+(?:[./][[:alpha:]_][[:alnum:]_]*)+"


class CodeNameWords(Func):
    """The parts of the code names in a text, as words separated by spaces."""

    template = (f"array_to_string(ARRAY(SELECT regexp_replace(m[1], '[./]', ' ', 'g') "
                f"FROM regexp_matches(%(expressions)s, '({CODE_NAME})', 'g') AS m), ' ')")
    output_field = TextField()


def chunk_search_vector(title, config: str) -> SearchVector:
    """The full-text vector of a chunk of a document titled `title` (a string, or an expression: the chunk's own
    `title` column in a bulk load), in the base's text search `config`."""
    return (SearchVector(Value(title) if isinstance(title, str) else title, weight="A", config=config)
            + SearchVector("section_path", weight="A", config=config)
            + SearchVector("content", weight="B", config=config)
            + SearchVector(CodeNameWords("content"), weight="B", config=config))
