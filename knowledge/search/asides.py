"""What an extract leaves out unless it is asked for: sentences that only send the reader elsewhere, and a how-to's
further units that hold nothing asked (`composer`).

A README's tagline says what the project is ("The tiniest and the fastest library for terminal output formatting with
ANSI colors."): an answer to what it is, never to how to do a thing with it (picocolors' README leaves its usage to a
website, and the tagline answered "How do I install picocolors?", "How do I disable colors?" …).
A README says where its documentation is ("You can find more details, API, and other docs on day.js.org
website."), asks its readers to join its chat or fund it ("Having problems? want to contribute? join our community
slack.", "Become a sponsor …"): close in meaning to many questions, an answer to none but those about them.
After a how-to's first unit, a further one holding none of the words asked about — the bases' common words and the
repository's name aside — only dilutes it ("Yargs helps you build interactive command line tools …" after
`npm i yargs`).
"""

import re

from knowledge.indexing.layers.docs.sections import sends_to_docs
from knowledge.search import common_words, headings, layer_text
from knowledge.search.code_blocks import COMMAND, code_lines, command_read

# A question asking where the documentation is: a sentence sending the reader there answers it.
_DOCS_ASKED = re.compile(r"\bdocs?\b|\bdocumentation|\bwebsite|\bmanual|\bguide|документац|\bсайт|руководств", re.I)
# A call to join the project's community or to fund it: an answer only to a question about those.
_CALL = re.compile(r"\bjoin (?:us|our)\b.{0,40}\b(?:slack|discord|gitter|chat|forum|community|mailing list)\b"
                   r"|\bbecome an? (?:sponsor|backer|patron)\b|\bsupport us with\b|\bmonthly donation", re.I)
_CALL_ASKED = re.compile(r"slack|discord|gitter|\bchat\b|forum|communit|sponsor|backer|donat|\bfund|patreon|"
                         r"сообществ|спонсор|пожертв", re.I)


def aside(sentence: str, question: str) -> bool:
    """Whether the sentence only sends the reader to the documentation, or asks them to join or fund the project,
    and the question asks about neither."""
    return (sends_to_docs(sentence) and not _DOCS_ASKED.search(question)
            or bool(_CALL.search(sentence)) and not _CALL_ASKED.search(question))


def tagline(hit, position: int) -> bool:
    """Whether the sentence at `position` of `hit` is its README's tagline: the card's summary (D1), or the first
    sentence of the README's opening section (D0, under its title)."""
    if (hit.metadata or {}).get("doc_kind") != "readme":
        return False
    if hit.layer == "D1":
        return True
    # The section under the README's title: not one of its other top-level sections (minimist's "# install").
    top = bool(hit.section_path) and hit.section_path == hit.document_title
    return hit.layer == "D0" and position == 0 and top and headings.opens_section(hit)


def says_nothing_asked(question: str, new: dict, sources: list, kbs: dict) -> bool:
    """Whether a further unit of prose (`new`: {(source number, position): sentence}) holds none of the words a
    how-to asks about, the bases' common words aside (`common_words`); what the first unit says is answer enough."""
    if not kbs or not all(layer_text.is_prose(sources[number - 1]) for number, _ in new):
        return False
    # Code as its words are read: a package manager's short verb installs ("npm i yargs@next").
    text = "\n".join("\n".join(f"    {line}" for line in [*code_lines(sentence), command_read(sentence)])
                     if sentence.startswith(COMMAND) else sentence for sentence in new.values())
    # The documents' titles too: what the answer's own documents are about (a further unit need say it no more).
    titles = dict.fromkeys(hit.document_title for hit in sources if (hit.metadata or {}).get("repo_id"))
    return common_words.shares_nothing_asked(question, text, sources, kbs, " ".join([repository_names(sources),
                                                                                      *titles]))


def repository_names(sources: list) -> str:
    """The names of the repositories `sources` quote ("yargs-17.7.2" as "yargs 17 7 2"): what every answer of them is
    about, however few of their chunks (their code outnumbering their prose) say it."""
    return " ".join(dict.fromkeys(re.sub(r"[-_.]", " ", hit.metadata["repo_id"]) for hit in sources
                                  if (hit.metadata or {}).get("repo_id")))
