"""Answers without a language model: an FAQ entry's answer verbatim, or a short cited extract.

`compose()` is what `answers.answer()` uses when no chat model is configured:

- When the best source is an FAQ entry that clearly matches the question (`entry_match`, found by
  `entries.match_entry`), the answer is that entry's answer, verbatim (as clean text), cited `[1]`.
- Otherwise the few sentences of the top sources that answer the question, in source order, each followed by its
  marker: of those sharing its words (rare words weighing more), the closest in meaning to it (`closeness.sentences`,
  with the base's embedder); never a sentence that only repeats the question, nor a heading, a table of contents' line,
  a list of topics or a fragment (`_answers`, `readable.in_topic_list`), nor another FAQ entry's yes or no — but a
  heading right over a short command, when it or the command names what is asked ("Installation:" and `pip install …`).
  A list item comes with what makes it readable (`readable`: the numbered step it is a sub-point of, the sentence
  introducing its list), so does a sentence naming its subject only as "this" or "it" (the sentence before it), and a
  sentence ending with ":", or running on into a short command without one, with what it introduces (its list, its
  code, else the next sentence), and for a how-to question a sentence ending with a full stop with the code right after
  it, when it fits: an extract never ends on a colon, nor quotes a sentence that a code block too long to quote cut
  short, nor one announcing an example left out ("Here's a simple example of how to render a template:"), nor the tail
  of a sentence the chunk's start cut, even as what introduces a list, nor — after the first — a unit sending the
  customer to a link or an address the outgoing check would hold the answer for (`_sends_away`), nor a unit installing
  only packages other than the project a question asks to install, nor one that only installs, by its command, to a
  question asking no how-to (`installs`; "Памятник был установлен в 1990 году" installs nothing). A release asked about
  by its number is answered by its section's notes in order (`answer_kinds.release_notes`), a "when", "how many",
  "which versions" or "what does … return" question whose extract holds no date, number, version or return value gets
  the nearest sentence that does (`answer_kinds.expected_kind`); a row saying only where a symbol is defined steps back
  for a candidate naming the symbol (`_where_named_elsewhere`). For a how-to, an example too long to quote stands as
  its line or two doing what is asked, under their heading (`example_lines`); "What is schedule?" quotes the README's
  card first when the router found it (`intent._project`). A sentence is ranked by what it says as read in its place
  (`readable.as_read`): with the command it introduces, after the questions the text asks itself right before it, and a
  section's first one under its heading's words; a label over its command ("Stable version:") is a candidate when it is
  no tab among others (`_labels_asked`).

Everything the customer reads goes through `source_text` (Markdown and HTML as plain text, code left out but for
a short command or block after the sentence that introduces it, sentences); a repository's rows through
`layer_text` (a symbol's docstring and where it is defined, never its code); metadata never reaches the text.
"""

import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings

from knowledge import outgoing
from knowledge.search import (
    answer_kinds,
    asides,
    closeness,
    code_blocks,
    example_lines,
    headings,
    installs,
    layer_text,
    licences,
    opposites,
    option_tables,
    project_sites,
    readable,
    runtimes,
    source_text,
)
from knowledge.search.code_blocks import CODE_BLOCK, CODE_LEFT_OUT, COMMAND, code_lines
from knowledge.search.code_names import (
    OPTION_KINDS,
    asked_entry_names,
    asked_marks,
    asks_signature,
    named_options,
    names_written_as_code,
    opens_with_symbol,
    spelled_by_phrase,
    writes_name,
    writes_symbol,
    written_symbols,
)
from knowledge.search.intent_words import HOW_TO, YES_NO, names_whole, what_is_named
from knowledge.search.rows import quoted_rows
from knowledge.search.secondary import secondary_row
from knowledge.search.source_text import HEADING_INTRO, ITEM, sentences
from knowledge.search.words import code_words, same_words, word_stems

# An entry matches clearly when the question resembles the entry's question this much (calibrated
# relevance, 0..1, see retrieval.relevance) and no other entry comes as close; an answer over ENTRY_MAX_CHARS
# (an FAQ's: 720 at most in a bank's 201) is a manual's section, quoted whole but not as an entry's answer.
# EXTRACT_BY_MEANING: how many of the sentences sharing the most words with the question are then
# ranked by how close in meaning each is to it (`closeness.sentences`); 0 ranks them by shared words.
DEFAULTS = {"ENTRY_MATCH_RELEVANCE": 0.6, "ENTRY_MATCH_MARGIN": 0.05, "EXTRACT_SENTENCES": 3,
            "EXTRACT_SOURCES": 3, "EXTRACT_MAX_CHARS": 700, "EXTRACT_BY_MEANING": 8, "ENTRY_MAX_CHARS": 1500}

# What shared words weigh beside meaning (0..1 each) in ranking an extract's sentences: measured on
# bench/answers.py's TyDi-ru (gold answer in the text 79.7 % by meaning alone, 78.7 % at 0.25, 70.9 % by
# words alone), where a question's words are its passage's; documentation needs its rare words more
# ("cache" of "How do I cache views in Flask?" against every sentence naming Flask).
SHARED_WORDS_WEIGHT = 0.25
LISTED_ITEMS = 3  # a list this long says what its items are without a sentence introducing it (`_named_item`)
OPPOSITE_WEIGHT = 0.5  # what the score of a how-to's candidate saying the opposite of what is asked is worth
# What the score of a row saying only where a symbol is defined is worth, to a question not asking where, when another
# candidate names the symbol: "Function `colorama.initialise.init` is defined in colorama/initialise.py." led "What
# does init() do?", the sentences saying what it does after it (`_where_named_elsewhere`).
WHERE_ONLY_WEIGHT = 0.5
# What a how-to's candidate of a symbol named by the verb it asks to do is worth before its meaning and words
# (`_named_by_verb`): half of what a sentence said first is.
VERB_NAMED_WEIGHT = 0.5
_HOW_TO_VERB = re.compile(r"^\W*how\s+(?:do|can|should|would)\s+(?:i|we|you|one)\s+(\w+)|^\W*how\s+to\s+(\w+)",
                          re.IGNORECASE)
# The symbol a row saying only where it is defined names.
_WHERE_NAME = re.compile(r"`(?:[^`]*\.)?([^`.]+)` is defined in ")

_CODE_NAME = re.compile(r"[\w$]*(?:_|[a-z0-9][A-Z])[\w$]*")  # snake_case or camelCase: no word of prose
_CAPITALISED = re.compile(r"[A-Z][A-Za-z]*")  # "PathSpec", "CyToolz": a name of a product as much as of code
_STATEMENT_WORDS = 5  # a sentence this long ending with a full stop states something
# A function's or method's signature as a line of its own: "iteritems(dictionary, **kwargs)", "Emitter.on(event, cb)".
_SIGNATURE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\([^()]*\)")
_WORD = re.compile(r"\w+", re.UNICODE)
_USING = word_stems("use using usage start started begin")  # what a question asking how to use a project says
_WRITTEN_AS_NAME = re.compile(r"\w[-_./]\w|[a-z][A-Z]")  # "Cross-Origin-Embedder-Policy", "maxAge", "os.path"
# A word a question may look a table's row up by: a number, a name (not a word of one or two letters).
_ROW_KEY = re.compile(r"(?<![\w.-])(?:\d+(?:\.\d+)*|[^\W\d_][\w.-]*\w)(?![\w-])")
# A cell a row is looked up by: a number, a name in camel or snake case, a word in capitals ("418", "NotFound",
# "EBUSY").
_KEY_CELL = re.compile(r"\d|[a-z][A-Z]|\w_\w|^[A-Z]{2,}$|^[^\w\s]")
# What a question may ask of an option besides its name that its entry says: what it is, does or means, its kind,
# type, default, purpose or output (the stems of `word_stems`).
_KIND_WORDS = word_stems(" ".join(OPTION_KINDS))
_ENTRY_WORDS = _KIND_WORDS | word_stems("do mean meaning type default value purpose work output return represent "
                                        "stand")
# A sentence sending the reader to another page by its title alone: "See performance.", "See also Logging."
_SEE_PAGE = re.compile(r"(?:see|see also)\s+\S+(?:\s+\S+)?\.$", re.I)
# A table's row as an item of its cells (`source_text._tables_as_items`): "• dot — boolean — false — Enable …".
_TABLE_ROW = re.compile(r"• .*? — ")
# A list item opening with the name it documents: "• locale: language code …", "• `maxAge` - how long …".
_NAMED_ENTRY = re.compile(r"• `?([A-Za-z_$][\w$.-]*)`?\s*(?::|—|–|-)\s+\S")
_SAID_ALREADY_WORDS = 5  # a sentence of as many words at least that another chosen one holds whole is said already
# A list's entry of a function, its signature first: "• clean(version): Clean a string …", "• `inc(v, release)`: …".
_CALLED_ENTRY = re.compile(r"• `?([A-Za-z_$][\w$]*)\(\s*[\w$.,\s\[\]=]*\)`?\s*(?::|—|–|-)\s+\S")
ENTRY_PARAGRAPH_SENTENCES = 3  # of the paragraph under a function's entry looked up (`_entry_paragraph`)
_PHRASE_WORDS = 8  # a section's whole text of as many words at most, without a sentence's end, is a name or phrase
# A table of contents' line: dot leaders to its page number ("5 Оформление структурных элементов........2").
_LEADERS = re.compile(r"\.{5,}|(?:\. ){5,}|…{2,}")
# A heading opening with its section's number ("5 Оформление структурных элементов диссертации в виде
# рукописи", "4.2 Tables of the report"), when it ends without a full stop; not a clause of a standard's
# front matter, whose verb is in capitals ("1 РАЗРАБОТАН Федеральным … учреждением …").
_NUMBERED = re.compile(r"\d{1,2}(?:\.\d{1,2}){0,3}\.?\s+(?![A-ZА-ЯЁ]{2,}\b)\S")
# A list item defining a term: "• bold - Make the text bold." (chalk's modifiers) is no line of a table of contents.
_DEFINES = re.compile(r"(?:• |\d{1,3}[.)] )[^\s:—–-]+(?: [^\s:—–-]+)?\s*[:—–-]\s*\S+\s+\S+")
# A yes or a no opening an answer: it answers the question it was written for (one alone: `readable.BARE_REPLY`).
_REPLY = re.compile(r"(?:да|нет|yes|no)\b(?:\s*[,.!:;]|\s+[—–-]\s)", re.I)


def setting(name: str):
    return settings.PORTAL.get(name, DEFAULTS[name])


@dataclass
class Composition:
    text: str
    cited: list[int]  # source numbers, 1-based
    entry_match: bool  # the text is one FAQ entry's answer, verbatim
    # How close in meaning the closest candidate sentence is to the question (0..1); None when the
    # sentences were not compared (an entry's answer, an embedder that does not read meaning).
    closeness: float | None = None


def compose(question: str, sources: list, *, entry_match: bool, kbs: dict | None = None,
            query_embeddings: dict | None = None) -> Composition:
    """The answer text from the sources (see the module docstring). With the sources' bases (`kbs`, by
    id) the extract's sentences are ranked by meaning (`closeness.sentences`), else by shared words;
    `query_embeddings`: the question's vectors by embedder, when already embedded."""
    if entry_match and sources:
        verbatim = source_text.unwrapped(source_text.clean_text(sources[0].content))
        # Longer than an FAQ's answer, it is a manual's section under a question heading: quoted whole all
        # the same (its sentences alone lose the steps), but not as an entry's answer, which may be sent
        # without review (tickets.autoreply).
        return Composition(f"{verbatim} [1]", [1], len(verbatim) <= setting("ENTRY_MAX_CHARS"))
    return _extract(question, sources, kbs or {}, query_embeddings)


def _extract(question: str, sources: list, kbs: dict, query_embeddings: dict | None) -> Composition:
    asked, how_to, yes_no = word_stems(question), HOW_TO(question), YES_NO(question)
    if named_options(question):  # "the remove option": "option" says what kind of name is asked, not what about
        asked -= _KIND_WORDS
    quoted, said = _quoted_sources(question, sources)
    rows = quoted_rows(question, quoted)
    texts = {number: said.get(number) or layer_text.quotable(hit, rows.get(number), question)
             for number, hit in quoted.items()}
    lines = {number: _sentences(hit, texts[number]) for number, hit in quoted.items()}
    lines = {number: _under_its_heading(quoted[number], source, asked, question) for number, source in lines.items()}
    written = {number: set(source) for number, source in lines.items()}  # (not an example's lines asked, below)
    if how_to:  # an example too long to quote: its lines that do what is asked, under their heading
        lines = {number: example_lines.with_asked_lines(quoted[number], source, question)
                 for number, source in lines.items()}
    # A release asked about by its number ("What changed in 2.0.0?"): its section's notes are the answer,
    # in order, as many as EXTRACT_MAX_CHARS holds, though they share no word with the question.
    release = answer_kinds.release_notes(question, quoted, lines)
    lines = release or lines
    # "What is schedule?" finds its README's card first (`intent._project`): what the project says it is, before
    # sentences closer in words ("Helpers to use cachetools with asyncio." of its related projects), a tagline
    # without a full stop too ("Terminal string styling done right").
    card = 1 if 1 in quoted and card_asked(question, quoted[1]) else None
    reading = {}  # (source number, position) → the sentence as read (`readable.as_read`), read once

    def read_as(number: int, position: int) -> str:
        if (number, position) not in reading:
            reading[number, position] = readable.as_read(lines[number], position, asked, how_to)
        return reading[number, position]

    items, seen = [], set()  # (source number, position, sentence, stems)
    marks = asked_marks(question)  # "*", "?", "*/2": no word says them
    # The (source number, position) of the table rows the question looks up (`_looks_up_row`): a table's other rows
    # are other entries ("• * — Matches any character …" is no answer to "What does ** match?").
    keys = {number: row_keys(question, headings.section_heading(quoted[number])) for number in lines}
    looked_up = {(number, position) for number, source in lines.items() for position, sentence in enumerate(source)
                 if _looks_up_row(sentence, keys[number])}
    tables_looked_up = {number for number, _ in looked_up}
    # So is the entry of a parameter in code's documentation (`layer_text.parameter_named`) when the question asks
    # nothing else of it, its sentences together: "Defaults to default_digest_method, which defaults to hashlib.sha1."
    # after "digest_method: Hash function to use when generating the HMAC signature." shares one word with "What is
    # the default digest method of Signer?"; "What are the drawbacks of cache_logger_on_first_use?" is no lookup.
    looked_up |= {(number, 0) for number, hit in quoted.items() if hit.layer == "C0" and lines[number]
                  and _looks_up_parameter(question, hit)}
    # The sentence opening a section about a symbol asked about (`code_names.opens_with_symbol`): "Parameters can be
    # suffixed with an asterisk (`*`) to denote …" under "Zero or more" for "What does * mean in a path?".
    defines = set()
    for number, symbol in itertools.product(lines, marks):
        if opens_with_symbol(quoted[number].content or "", symbol):
            first = next((at for at, sentence in enumerate(lines[number]) if writes_symbol(sentence, symbol)), None)
            defines.update([(number, first)] if first is not None else [])
    # A default asked about that its entry gives as a block of code: "Defaults to:" over it (`answer_kinds`).
    defines |= answer_kinds.stated_default(question, lines, {number: headings.section_heading(hit)
                                                             for number, hit in quoted.items()})
    # What a manifest says the package runs on, asked which versions are supported (`runtimes.project_said`): before
    # a contributors' guide's "To run tests on all supported Python versions, …", which shares more words; so its
    # dependencies, its version, its people.
    defines |= {(number, position) for number, hit in quoted.items() if runtimes.project_said(hit, question)
                for position in range(len(lines[number]))}
    # Its signature or return type, asked (`layer_text.SIGNATURE_SAID`): before the documentation's sentences sharing
    # the word "argument" (cachetools' "What arguments does cached accept?").
    defines |= {(number, position) for number in quoted if asks_signature(question)
                for position, sentence in enumerate(lines[number])
                if sentence.startswith((layer_text.SIGNATURE_SAID, layer_text.RETURNS_SAID))}
    # The commands the repository declares, asked which it has or whether it has one (`layer_text.declared_commands`):
    # tabulate's `tabulate` before its documentation's "psql is like tables formatted by Postgres' psql cli:" for
    # "Does it have a CLI?".
    # (The others, a parser of its tools' scripts, are no answer then.)
    commands = layer_text.declared_commands(question, quoted)
    defines |= {(number, 0) for number in commands if lines[number]}
    other_commands = {number for number, hit in quoted.items()
                      if commands and number not in commands and layer_text.is_command(hit)}
    # The name each source's sentences document as a reference entry, read once; the entries asked about by name: as
    # code or an option's, or a quoted entry's name the question writes as a word ("What is the default store?" and
    # express-session's "store").
    entries = {number: _reference_entry(quoted[number], source) for number, source in lines.items()}
    entries_asked = asked_entry_names(question) | {
        name.lower() for entry in entries.values() if (name := _name(entry))
        and (re.search(rf"(?<![\w$.-]){re.escape(name)}(?![\w$-])", question, re.IGNORECASE)
             or spelled_by_phrase(question, name))}
    # The sentences under a list item that is a name alone, by (source number, position): that name's entry
    # (django-debug-toolbar's "• SHOW_TOOLBAR_CALLBACK" over "Default: …" and "This is the dotted path to a function
    # used for determining whether the toolbar should show or not."); an entry asked about is said first, from its
    # first sentence that is no field line ("Default: …", unless its default is asked).
    items_of = {(number, position): name for number, source in lines.items()
                for position, name in _named_items(source).items()}
    asks_default, says_default = answer_kinds.ANSWER_KINDS["default"]
    for number, source in lines.items():
        under = [position for position in range(len(source))
                 if items_of.get((number, position), "").lower() in entries_asked]
        described = [position for position in under if says_default.search(source[position])] if \
            asks_default.search(question) else []
        described = described or [position for position in under if not headings.field_label(source[position])
                                  and not source[position].endswith(":") and not source[position].startswith(
                                      (COMMAND, CODE_BLOCK, CODE_LEFT_OUT))]
        defines.update((number, position) for position in described[:1])
    # A licence asked about and said by a licence file or a manifest (`licences.statement_of`): the other sources'
    # sentences that say nothing of licensing answer another question (python-decouple's "Decouple supports both
    # Python 2.7 and 3.6." after "The project is licensed under the MIT License (LICENSE).").
    licence_said = {number for number, hit in quoted.items() if licences.statement_of(hit)} if licences.ASKED.search(
        question) else set()
    # So is the project's version, its people or the address asked, which its manifest states (`runtimes.fact_said`):
    # "The project is maintained by Will Kahn-Greene (setup.py)." is the answer to "Who wrote bleach?", not it and a
    # tokenizer's docstring.
    fact_said = {number for number, hit in quoted.items() if runtimes.fact_said(hit, question)}
    for number, source in lines.items():
        for position, sentence in enumerate(source):
            if licence_said and number not in licence_said and not licences.ASKED.search(sentence) or (
                    number in other_commands) or fact_said and number not in fact_said:
                continue
            # Commands are never chosen for their words (they come after their introduction), and a
            # sentence is a candidate once: two copies of one text (a page and its PDF) say it twice.
            if sentence.startswith(HEADING_INTRO):
                # A heading over its command: a candidate when it names what is asked, or both name two words.
                read = readable.as_read(source, position)  # one heading may be over two commands
                # `max_length=9` names "max" and "length" (not camelCase: "PageNumberPagination" over its import is
                # no answer to "the number of items per page")
                stems = word_stems(read.replace("_", " "))
                # (And a line of an example's that does what is asked: `example_lines`' own, by its split names; a
                # command installing the project asked to install, whatever the question's language.)
                commands = _commands_after(source, position)
                if installs.install_lines_asked(question, commands, sources):
                    defines.add((number, position))  # said first, as a definition is
                if (word_stems(sentence) & asked or len(stems & asked) > 1 or example_lines.does_asked(
                        commands, question) or (number, position) in defines) and same_words(read) not in seen:
                    seen.add(same_words(read))
                    items.append((number, position, sentence, stems))
                continue
            if (sentence.startswith((COMMAND, CODE_LEFT_OUT)) or same_words(sentence) in seen
                    or readable.names_alternative(source, position) and not _labels_asked(source, position, asked)
                    and (number, position) not in defines):
                continue
            # A list item's tail too ("but makes things worse, so …") of a chunk of text; not an entry's line, which no
            # chunk cut ("address: г Майкоп" of a table's row), nor a README card's title ("docopt creates …").
            if readable.cut(source, position) and (sentence.endswith((".", "!", "…", ":")) or (
                    quoted[number].layer == "D0" and not (quoted[number].metadata or {}).get("entry"))):
                continue
            if number > 1 and _REPLY.match(sentence) and sources[number - 1].entry_question:
                continue  # "Да, такая возможность предусмотрена…" answers its own entry's question, not this one
            # (A tagline leading into its example answers how to use the project: helmet's "Help secure Express apps
            # by setting HTTP response headers." over `app.use(helmet())` for "How do I use helmet?".)
            if asides.aside(sentence, question) or how_to and asides.tagline(quoted[number], position) and not (
                    position + 1 < len(source) and source[position + 1].startswith(COMMAND)
                    and _asks_to_use(asked, quoted[number])):
                continue  # "You can find more details, API, and other docs on day.js.org website." answers nothing
            if _of_another_entry(entries[number] or items_of.get((number, position), ""), sentence, entries_asked):
                continue
            seen.add(same_words(sentence))
            stems = word_stems(sentence)
            # A reference entry's field line answers only what its label says (`_entry_asked`): ora's "action" over
            # "Type: `Promise | ((spinner: ora.Ora) => Promise)`" alone answers no "How do I use ora with a promise?".
            field = headings.field_label(sentence) and headings.reference_heading(quoted[number], source, position)
            answering = not field and (
                _answers(stems, asked, sentence, alone=len(source) == 1 or number == card, yes_no=yes_no,
                         lists=_introduces_list(source, position))
                or _leads_into_asked(source, position, asked) or yes_no and _named_item(source, position, asked))
            if (number, position) in looked_up or (number, position) in defines:  # said first, whatever else
                answering = True
            elif number in tables_looked_up and _TABLE_ROW.match(sentence):
                continue
            answering = answering or not release and _entry_asked(quoted[number], source, position, stems, asked,
                                                                  question) or isinstance(source, _UnderHeading)
            # (A release's notes, not the examples of its changes: bleach's "Old pre-6.0.0:" over the call before it.)
            if (len(_WORD.findall(sentence)) > 1 and not _leads_into_code(source, position) if release
                    else answering and not readable.in_topic_list(source, position)):  # its date line too
                # Ranked by what it says as read: with the command it runs on into ("To install the library, run:"
                # names no "tabulate" but `pip install tabulate`), under its section's heading.
                read = stems | word_stems(read_as(number, position)) | headings.heading_words(quoted[number], source,
                                                                                             position)
                # (And the symbols of marks asked about it writes: "suffixed with a question mark (?)" for "What does
                # the ? modifier do?" — words of their own, which no stem is.)
                read |= {symbol for symbol in marks if writes_symbol(sentence, symbol)}
                items.append((number, position, sentence, read))
    if not items:
        return Composition("", [], False)
    # Words every candidate shares ("React" in React docs) say little: weigh them by rarity.
    weight = {stem: math.log(1 + len(items) / sum(stem in item[3] for item in items) if any(
        stem in item[3] for item in items) else 1.0) for stem in asked}
    # A symbol of marks alone is what the question is about, and no word says it: it weighs twice the question's words
    # together ("What does * mean in a path?"; one with letters, ".env" or ":foo", is read as its words).
    weight |= dict.fromkeys(marks, max(1.0, 2 * sum(weight.values())))
    total = sum(weight.values()) or 1.0

    def shared(item) -> float:
        # Earlier sources and sentences win ties: retrieval ranked them.
        return sum(weight[stem] for stem in item[3] & weight.keys()) / total + 0.05 / item[0] - 0.001 * item[1]

    # Of the sentences sharing the most words, the closest in meaning answer; rare shared words still count
    # (SHARED_WORDS_WEIGHT), and the sentences not compared come after.
    compared = sorted(items, key=shared, reverse=True)[: setting("EXTRACT_BY_MEANING")]
    as_read = [(sources[number - 1], headings.under_heading(sources[number - 1], lines[number], position,
                                                             read_as(number, position)))
               for number, position, *_ in compared]
    meaning = closeness.sentences(question, as_read, kbs, query_embeddings) if compared else {}
    meaning = {(compared[index][0], compared[index][1]): close for index, close in meaning.items()}

    # A how-to asking to do what a quoted symbol is named ("How do I shift a date by a number of days?" and
    # `Arrow.shift`, whose docstring says "Returns a new Arrow object with attributes updated according to inputs."):
    # that symbol's row before another's sharing the question's other words (`Arrow.date`'s "… year, month and day").
    verb_named = {number for number, hit in quoted.items() if how_to and _named_by_verb(question, hit)}
    # So is a heading over its whole example that says what the how-to asks in its words alone (sqlparse's "### Format
    # a statement" over `sqlparse.format(…)` for "How do I format a SQL statement?"; not over the lines of an example
    # too long to quote, which say less than the text).
    titled = {item[:2] for item in items if how_to and item[2].startswith(HEADING_INTRO) and item[2] in written[
        item[0]] and len(heading := word_stems(item[2])) > 1 and heading <= asked}
    # A how-to's candidate saying the opposite of what is asked ("… for a Single Route" to "… for all routes?").
    opposed = {item[:2] for item in items if how_to and opposites.contradicts(question, read_as(*item[:2]))}
    where_only = _where_named_elsewhere(question, said, items, lambda number, position: headings.under_heading(
        quoted[number], lines[number], position, read_as(number, position)))

    def score(item) -> float:
        if release:  # in the order they are written: a long release's first chunk's notes before its second's
            return 1.0 - 0.01 * item[0] - 0.00001 * item[1]
        # (So is a phrase under the heading the question names: "License: MIT"; and a table's row the question looks
        # up by a cell it writes, which may be a number no word counts.)
        said_first = 1.0 if item[0] == card or isinstance(lines[item[0]], _UnderHeading) or (
            item[:2] in looked_up or item[:2] in defines) else VERB_NAMED_WEIGHT if (
            item[0] in verb_named or item[:2] in titled) else 0.0
        weight = (OPPOSITE_WEIGHT if item[:2] in opposed else 1.0) * (WHERE_ONLY_WEIGHT if item[0] in where_only
                                                                       else 1.0)
        if not meaning:
            return weight * (said_first + shared(item))
        return weight * (said_first + meaning.get((item[0], item[1]), 0.0) + SHARED_WORDS_WEIGHT * shared(item))

    ranked = sorted(items, key=score, reverse=True)
    best, budget = score(ranked[0]), setting("EXTRACT_MAX_CHARS")
    chosen, picked, own = {}, 0, {}  # {(source number, position): sentence}; the quoted projects' addresses
    heads = set()  # the chosen sentences that brought the rest of their units
    for item in ranked:
        if (picked >= setting("EXTRACT_SENTENCES") and not release) or (chosen and score(item) < max(0.1, best / 2)):
            break  # a release's notes: as many as the budget holds, in order
        # One block of code an extract at most: a second one is another answer's example.
        blocks = not any(sentence.startswith(CODE_BLOCK) for sentence in chosen.values())
        first = budget if chosen else max(budget, _read_whole(lines[item[0]], item))
        unit = readable.unit(item, lines[item[0]], first, asked, how_to, blocks)
        # A one-word reply answers a yes-or-no question, and another source's its own (an FAQ entry's, a section's);
        # a pointer going on from the sentence chosen answers nothing ("For another example see the … section").
        # Nor do a table's other rows, the question looking one up: debug's "… you can set a few environment
        # variables …:" came with all five for "What does DEBUG_HIDE_DATE do?".
        new = {key: sentence for key, sentence in (unit or {}).items() if key not in chosen
               and not (readable.BARE_REPLY.match(sentence) and (key[0] > 1 or not yes_no))
               and (key == item[:2] or not asides.aside(sentence, question))
               and (key[0] not in tables_looked_up or key in looked_up or not _TABLE_ROW.match(sentence))}
        if chosen and ITEM.match(item[2]):  # (the other items of its list that send away are left out, not the item
            # chosen and its list: shortuuid's "• With pip (preferred), do `pip install shortuuid`." came with "• To
            # install the source, download it from https://github.com/…")
            new = {key: sentence for key, sentence in new.items() if key == item[:2] or not ITEM.match(sentence)
                   or not _sends_away(question, {key: sentence}, sources, own)}
        cost = sum(len(sentence) for sentence in new.values())
        if unit is not None and (code_blocks.repeats_its_code(new, chosen) or chosen and item[0] in where_only
                                 or chosen and item[:2] not in chosen and _said_already(item[2], chosen)
                                 or chosen and not release and _said_of_another(item, chosen, asked, quoted)
                                 or how_to and installs.installs_another(question, new, sources, chosen)
                                 or how_to and installs.installed_already(question, new, sources, chosen)
                                 or not how_to and installs.installs_only(question, new) and any(
                                     sentence.startswith(COMMAND) for sentence in new.values())
                                 or chosen and _sends_away(question, new, sources, own)
                                 or chosen and how_to and asides.says_nothing_asked(question, new, sources, kbs)):
            continue
        if unit is not None and (cost <= budget or not chosen):
            chosen.update(new)
            heads.add(item[:2])
            budget -= cost
            picked += 1
        elif release:
            break
    # A row or an entry looked up goes on with what it says after its first sentence ("By default, dotfiles are
    # ignored …" of picomatch's dot), as far as the budget holds.
    tails = set()
    for number, position in sorted(looked_up & set(chosen)):
        for offset, tail in enumerate(_item_tail(texts[number], chosen[number, position])
                                      or _entry_paragraph(lines[number], position), start=1):
            at = (number, position + offset)
            if lines[number][at[1]:at[1] + 1] != [tail] or len(tail) > budget or tail.endswith(":"):
                break  # (not "Possible values:" without the values, items of their own)
            if _SEE_PAGE.match(tail) or asides.aside(tail, question):
                continue  # "See performance." ends structlog's entry of `cache_logger_on_first_use`: another page
            chosen.setdefault(at, tail)
            tails.add(at)
            budget -= len(tail)
    # A release's note goes on on its item's line: arrow's "• [ADDED] Added week_start parameter to floor() and ceil()
    # methods." and its "PR #1222", a sentence of its own.
    for number, position in sorted(chosen) if release else ():
        if ITEM.match(chosen[number, position]):
            for offset, tail in enumerate(_item_tail(texts[number], chosen[number, position]), start=1):
                if chosen.get((number, position + offset)) != tail:
                    break
                tails.add((number, position + offset))
    # Asked how to install the project, an extract saying nothing of installing answers something else.
    if not chosen or how_to and not installs.says_how_to_install(chosen) and installs.asks_to_install(question,
                                                                                                       sources):
        return Composition("", [], False)
    # Asked how to do something else, an extract that only installs the project answers another question.
    if how_to and installs.installs_only(question, chosen):
        return Composition("", [], False)
    sections = {number: word_stems(headings.section_heading(hit)) for number, hit in quoted.items()}
    for number, position, sentence, _ in answer_kinds.expected_kind(question, ranked[0], chosen, items, budget,
                                                                    sections):
        chosen[(number, position)] = sentence
    text, said, cited, after_item, last_entry = "", set(), set(), False, ""
    ordered = sorted(chosen.items(), key=_reading_order(sources, ranked, heads))
    # A sentence its item's line goes on after is cited once, at the line's end: schedule's "• Add timezone support
    # for .at(). See #517. Thanks @chrimaho! [1]", not a mark after each (but after a sentence ending in no stop).
    goes_on = {key for (key, sentence), (after, _) in zip(ordered, ordered[1:])
               if after in tails and after == (key[0], key[1] + 1) and sentence.endswith((".", "!", "?", "…"))}
    for (number, position), sentence in ordered:
        if readable.names_alternative(lines[number], position):  # on a line of its own above its command, as a tab is
            led = (number, position) in heads  # chosen itself ("Stable version:"), not brought by an introduction
            named = items_of.get((number, position), "")  # ("DISABLE_PANELS — Default:" over its set)
            text += ("" if text.endswith("\n") else "\n") + f"{f'{named} — ' if named else ''}{sentence}" \
                f"{f' [{number}]' if led else ''}\n"
            cited.update([number] if led else [])
            continue
        if same_words(sentence) in said and not sentence.startswith(COMMAND):
            continue  # the same sentence from another copy of the text (a block of code is said whole)
        said.add(same_words(sentence))
        cited.add(number)
        # List items keep their lines, commands and code too (as written, indented, a blank line of a block
        # left blank); sentences run on as a paragraph.
        if sentence.startswith(COMMAND):
            text += ("" if text.endswith("\n") else "\n") + "".join(
                f"    {line}\n" if line else "\n" for line in code_lines(sentence))
            continue
        item, tail = bool(ITEM.match(sentence)), (number, position) in tails  # a tail goes on on its item's line
        text += "" if text.endswith("\n") else " " if tail else "\n" if item or after_item else " "
        # A reference entry's sentences under the name they document, once: "Put queue execution on hold." says
        # nothing of ".pause()", the answer to "How do I pause the queue?", and cookie's "The default function is the
        # global encodeURIComponent." after its decode option's sentences is of its encode option.
        entry = entries[number] or items_of.get((number, position)) or _subject_heading(quoted[number], lines[number],
                                                                                         position)
        text += f"{entry} — " if entry and entry != last_entry and not _writes_entry(sentence, _name(entry)) else ""
        text += _clip(sentence.removeprefix(HEADING_INTRO)) + ("" if (number, position) in goes_on else f" [{number}]")
        if item and (number, position) not in heads and _list_goes_on(lines[number], position, chosen, number):
            text += "\n…"  # a list quoted in part (six items of nine, twelve names of fourteen) says it goes on
        last_entry = entry
        after_item = item or tail and after_item
    # A release's notes are its section by its number, however far in meaning from "What changed?".
    closest = max(meaning.values()) if meaning and not release else None
    return Composition(text.strip(" \n"), sorted(cited), False, closest)


def _list_goes_on(source: list[str], position: int, chosen: dict, number: int) -> bool:
    """Whether the list item at `position`, quoted after the sentence introducing its list, is the last quoted of a
    list going on with items of the same kind (bullets or numbered steps)."""
    following = source[position + 1] if position + 1 < len(source) else ""
    if (number, position + 1) in chosen or not ITEM.match(following) or (
            following.startswith("• ") != source[position].startswith("• ")):
        return False
    at = position - 1
    while (number, at) in chosen and ITEM.match(source[at]):
        at -= 1
    return (number, at) in chosen  # the sentence introducing the items quoted (not a row looked up, a date found)


def _reading_order(sources: list, ranked: list, heads: set) -> Callable[[tuple], tuple]:
    """The order an extract's sentences are written in: by source, each source's in its order — but of two pieces of
    one section, the one whose sentence answers best first, where the first of them ranked (backoff's
    "@backoff.on_exception": its second piece, "By default, when a give up event occurs, the exception in question is
    reraised …", read before the first's "The on_exception decorator is used to retry when a specified exception is
    raised.", the answer)."""
    first: dict[tuple, int] = {}
    for number, hit in enumerate(sources, start=1):
        first.setdefault((hit.document_id, hit.section_path), number)
    best = {}  # a source number → the rank of its best sentence chosen for itself
    for at, item in enumerate(ranked):
        if item[:2] in heads:
            best.setdefault(item[0], at)

    def order(item: tuple) -> tuple:
        (number, position), hit = item[0], sources[item[0][0] - 1]
        return first[hit.document_id, hit.section_path], best.get(number, len(ranked)), number, position
    return order


def _where_named_elsewhere(question: str, said: dict, items: list, read: Callable[[int, int], str]) -> set[int]:
    """The sources (by number) of rows saying only where a symbol is defined (`layer_text.says_only_where`) whose
    symbol another candidate names as `read` (under its section's heading when that is the symbol's name): what it
    says of the symbol answers, and the row is ranked after it and never quoted after another unit. A row whose
    symbol nothing else names still points to its code (django-ninja's "What does get_schema do?": the
    documentation names only create_schema)."""
    where = {number: name.group(1) for number, text in said.items()
             if layer_text.says_only_where(text, question) and (name := _WHERE_NAME.search(text))}
    return {number for number, name in where.items()
            if any(item[0] not in where and writes_name(read(*item[:2]), name) for item in items)}


def _sends_away(question: str, new: dict, sources: list, own: dict) -> bool:
    """Whether `new` sends the customer to a link or an address the outgoing check would hold the answer for
    (`outgoing.foreign_contacts`): a further unit saying so is left out, where it would keep the whole answer
    from being sent; the first is quoted whatever it says. `own` keeps the quoted projects' addresses, read once."""
    text = "\n".join(new.values())
    if not outgoing.names_contacts(text):
        return False
    if "urls" not in own:
        own["urls"] = project_sites.project_urls(sources)
    return bool(outgoing.foreign_contacts(question, text, sources, own["urls"]))


def _sentences(hit, text: str) -> list[str]:
    """The sentences an extract may quote of `hit`, read from `text`; of a chunk opening with its section, as
    sentences whose first is whole (`readable.OpensWhole`). A signature on a line of its own is what the sentence
    after it describes, and leads it: reST's `.. function:: iteritems(dictionary, **kwargs)` over "Returns an
    iterator over dictionary's items." (six's reference; the sentence alone named no function)."""
    found = sentences(text)
    for at in range(len(found) - 2, -1, -1):
        if _SIGNATURE.fullmatch(found[at]) and found[at + 1][:1].isupper():
            found[at:at + 2] = [f"{found[at]}: {found[at + 1]}"]
    return readable.OpensWhole(found) if headings.opens_section(hit) else found


def _read_whole(source: list[str], item: tuple) -> int:
    """The length of what the first sentence chosen brings however long: itself, or a heading and the example under
    it, which may be one longer than the budget quoted as what is asked (`example_lines.with_asked_lines`)."""
    _, position, sentence, _ = item
    if not sentence.startswith(HEADING_INTRO):
        return len(sentence)
    code = itertools.takewhile(lambda following: following.startswith(COMMAND), source[position + 1:])
    return len(sentence) + sum(map(len, code))


def _entry_paragraph(source: list[str], position: int) -> list[str]:
    """The sentences a function's entry goes on with below it (`_CALLED_ENTRY`), up to the next item, block of code
    or example: semver's "• coerce(version, options): Coerces a string to semver if possible" and "This aims to
    provide a very forgiving translation of a non-semver string to semver. …"; at most ENTRY_PARAGRAPH_SENTENCES."""
    if not _CALLED_ENTRY.match(source[position]):
        return []
    said = []
    for sentence in source[position + 1:position + 1 + ENTRY_PARAGRAPH_SENTENCES]:
        if ITEM.match(sentence) or sentence.startswith((COMMAND, CODE_BLOCK, CODE_LEFT_OUT, HEADING_INTRO)) or len(
                _WORD.findall(sentence)) < 3:
            break  # (semver's "ex." over its examples)
        said.append(sentence)
    return said


def _item_tail(text: str, item: str) -> list[str]:
    """The sentences after `item` (a list's item, or a table's row as one) on its own line of the clean text `text`:
    what the entry goes on to say ("By default, dotfiles are ignored …" after "• dot — boolean — false — Enable
    dotfile matching.")."""
    for line in text.split("\n"):
        said = sentences(line)
        if said and said[0] == item:
            return said[1:]
    return []


def _quoted_sources(question: str, sources: list) -> tuple[dict, dict]:
    """The sources an extract reads, by number: the first `EXTRACT_SOURCES`, passing over a repository's
    rows with nothing to say to this question (code without a docstring, a symbol's file to a how-to, where
    another symbol is defined when one such row is read already) —
    they took the places of the documentation after them, and the answer was a refusal — but not to
    rows ranked last for not being asked about (`secondary`: tests, example apps, changelogs). With
    them, what the repository's rows read say (`layer_text.quotable`), by number: prose is read later,
    with the table rows the question asks about."""
    quoted, said, limit, where = {}, {}, setting("EXTRACT_SOURCES"), 0
    for number, hit in enumerate(sources, start=1):
        if len(quoted) == limit:
            break
        if number > limit and secondary_row(hit, question):
            continue
        if layer_text.is_prose(hit) and not _says_anything(hit, question):
            continue
        if hit.layer == "D6" and _written_in_prose(str((hit.metadata or {}).get("target") or ""), sources):
            continue  # "Configuration mentions INTERNAL_IPS (environment variable)." when a source says what it is
        if not layer_text.is_prose(hit):
            said[number] = layer_text.quotable(hit, question=question)
            # Where a symbol is defined, once: a second such row would take the place of the documentation.
            only_where = layer_text.says_only_where(said[number], question)
            if not said[number] or only_where and where:
                continue
            where += only_where
        quoted[number] = hit
    return quoted, said


def _written_in_prose(name: str, sources: list) -> bool:
    """Whether a source of prose writes `name` as code: what an index's row saying only that a section mentions it
    restates."""
    return bool(name) and any(layer_text.is_prose(hit) and f"`{name}`" in (hit.content or "") for hit in sources)


def _says_anything(hit, question: str) -> bool:
    """Whether a source of prose has text to quote beyond its title: a page of MkDocs' API reference is its title over
    mkdocstrings' `::: validators.url.url` (nothing read), its catalog row the title "url" alone, and both took the
    places of `validators.url.url`'s code for "How do I check if a URL is valid?"."""
    text = layer_text.quotable(hit, question=question)
    return bool(text.strip()) and not (hit.layer == "D1" and same_words(text) == same_words(hit.document_title))


def _leads_into_asked(source: list[str], position: int, asked: set[str]) -> bool:
    """Whether a sentence or a step too short to answer alone leads into a command that, with it, names two words
    asked: "Install it." over `npm install dotenv --save` for "How do I install dotenv?", uuid's "1. Install" over
    `npm install uuid`, xmltodict's "You just need to" running on into `$ pip install xmltodict`; or introduces a
    block of code whose comments, with it, name two (`code_blocks.comments_read`)."""
    following = source[position + 1] if position + 1 < len(source) else ""
    if following.startswith(CODE_BLOCK):  # helmet's "Examples:" over `// Sets "X-Frame-Options: DENY"` and its code
        return source[position].endswith(":") and len(word_stems(
            f"{source[position]} {code_blocks.comments_read(following)}") & asked) > 1
    if not following.startswith(COMMAND) or not (
            readable.ENDS.search(source[position]) or ITEM.match(source[position])
            or len(_WORD.findall(source[position])) >= 3):
        return False
    return len(word_stems(f"{source[position]} {code_blocks.command_read(following)}") & asked) > 1


def _labels_asked(source: list[str], position: int, asked: set[str]) -> bool:
    """Whether a label over its command ("Stable version:" over `npm i yargs`) names, with it, what is asked, and is
    no tab among others ("macOS/Linux:", "Windows:"): those come with the sentence introducing them all."""
    after, before = position + 2, position - 1
    while after < len(source) and source[after].startswith(COMMAND):
        after += 1
    while before >= 0 and source[before].startswith(COMMAND):
        before -= 1
    # Another label right after its commands, or right before them, over commands of its own.
    tab = (after < len(source) and readable.names_alternative(source, after)
           or 0 <= before < position - 1 and readable.names_alternative(source, before))
    return not tab and _leads_into_asked(source, position, asked)


def _named_item(source: list[str], position: int, asked: set[str]) -> bool:
    """Whether a list item too short to answer alone is what the question names, in a list a sentence introduces
    ("• Russian" under "It is localized to:" for "Does humanize support Russian?", a yes-or-no question) or among
    LISTED_ITEMS at least (a README's features: "• 💪 Immutable" for "Is dayjs immutable?")."""
    item = source[position]
    if not ITEM.match(item) or len(_WORD.findall(item)) > 3:
        return False
    stems = word_stems(item)
    return bool(stems) and stems <= asked and bool(readable.lead_in(source, position)
                                                   or readable.list_length(source, position) >= LISTED_ITEMS)


def card_asked(question: str, hit) -> bool:
    """Whether `hit` is the card of a README (D1) whose project a "What is X?" question names: its document's or its
    own title (its first line) or a package name of the manifest beside it (`intent._project`) — not "What is the
    constructor name for status 418?", which http-errors' card "Create HTTP errors for Express, Koa, Connect, etc.
    with ease." answered."""
    named = what_is_named(question)
    return bool(named) and hit.layer == "D1" and any(names_whole(named, name) for name in [
        hit.document_title, (hit.content or "").split("\n", 1)[0], *(hit.metadata or {}).get("project_names", [])])


def row_keys(question: str, heading: str = "") -> tuple[set[str], set[str]]:
    """The words a question may look a table's row up by, in lower case (`_looks_up_row`): those it writes, and those
    it says are an option's or the like (`code_names.named_options`: "the nocase option") when it asks nothing of it
    but what its entry says (`_ENTRY_WORDS`) or the `heading` of the table's section says (node-cron's "Allowed
    values" over "• hour — 0-23" for "What are the allowed values for the hour field?"): "What should the remove
    option be if it is a string?" is no lookup of "• remove: remove characters that match regex, defaults to
    `undefined`."."""
    options = {name.lower() for name in named_options(question)}
    asked = word_stems(question) - word_stems(" ".join(options)) - _ENTRY_WORDS - word_stems(heading)
    written = {word.lower() for word in _ROW_KEY.findall(question)} | {
        symbol.lower() for symbol in written_symbols(question)}  # (a syntax table's row: "What does ** match?")
    return written, set() if asked else options


def _said_already(sentence: str, chosen: dict) -> bool:
    """Whether a sentence's words are all in a chosen sentence, in its order, or the chosen one's in it, one of them
    a command's option's row: the row in a README ("• -s REGEXP, --sep REGEXP — use a custom column separator …")
    and its entry in the code's usage text ("`_main` (…): -s REGEXP, --sep REGEXP: use a custom column …")."""
    words, row = same_words(sentence), _option_row(sentence)
    others = [same_words(other) for other in chosen.values() if row or _option_row(other)]
    return any(len(shorter.split()) >= _SAID_ALREADY_WORDS and shorter in longer
               for other in others for shorter, longer in ((words, other), (other, words)))


def _said_of_another(item, chosen: dict, asked: set[str], quoted: dict) -> bool:
    """Whether a candidate is a chosen sentence of another source of prose with one word changed, a word the question
    does not ask: tenacity's API reference says "Those functions can be used as the `after` keyword argument of
    tenacity.retry." under each of its sections, one word apart, and "… the `retry` keyword argument …" was chosen.
    (Not a repository's rows, each of its own symbol: "`jmespath.exceptions.ArityError` is an exception (class)." and
    the others listed answer "What exceptions does jmespath define?".)"""
    words = same_words(item[2]).split()
    if len(words) < _SAID_ALREADY_WORDS or not layer_text.is_prose(quoted[item[0]]):
        return False
    for (number, _), sentence in chosen.items():
        others = same_words(sentence).split()
        if number != item[0] and len(others) == len(words) and layer_text.is_prose(quoted[number]):
            changed = [word for word, other in zip(words, others, strict=True) if word != other]
            if len(changed) == 1 and not word_stems(changed[0]) & asked:
                return True
    return False


def _option_row(sentence: str) -> bool:
    """Whether a sentence is the row of a command's option, as an item: "• -l --loose — Interpret …"."""
    return sentence.startswith("• ") and bool(option_tables.written_flags(sentence[2:].split(" — ", 1)[0]))


def _looks_up_row(sentence: str, keys: tuple[set[str], set[str]]) -> bool:
    """Whether a table's row, as an item of its cells (`source_text._tables_as_items`), is what the question whose
    `row_keys` are `keys` looks up: it writes one of its cells whole, a key no prose word is (a number, a name written
    as code or in capitals) or a name the question says is an option's ("• nocase — boolean — false — Make matching
    case-insensitive." for "What does the nocase option do?"), and not all of them — "• 418 — ImATeapot" for "What
    is the constructor name for status 418?", too short to answer any other question. (A word is no key: "How do I
    convert a UUID string to bytes?" is not after "• returns — String".) So is a list's item opening with the name of
    the option asked (slugify's "• locale: language code of the locale to use.", read from its options' comments)."""
    if not sentence.startswith("• "):
        return False
    written, options = keys
    if _names_symbol_asked(sentence, written):
        return True
    if " — " not in sentence:  # a list's entry of the option asked: "• locale: language code of the locale to use."
        entry, called = _NAMED_ENTRY.match(sentence), _CALLED_ENTRY.match(sentence)
        # (Or of the function the question writes: semver's "• clean(version): Clean a string …" for "What does clean
        # do?", not its examples "• s.clean(' = v 2.1.5foo'): null".)
        return bool(entry) and entry[1].lower() in options or bool(called) and called[1].lower() in written
    cells = [cell.strip().strip("`") for cell in sentence[2:].split(" — ")]
    flags = option_tables.written_flags(cells[0])  # a command's option: "• -l --loose — Interpret …" for "-l"
    if flags & written or {flag.lstrip("-") for flag in flags} & options:
        return True
    return any(cell.lower() in options or cell.lower() in written and _KEY_CELL.search(cell) for cell in cells) and (
        not all(cell.lower() in written for cell in cells))


def _looks_up_parameter(question: str, hit) -> bool:
    """Whether the question asks only what the entry of a parameter in `hit`'s docstring says: its words are the
    parameter's, the symbol's it is of and what an entry says (`_ENTRY_WORDS`: its default, what it does)."""
    symbol, name = (hit.metadata or {}).get("qname", ""), layer_text.parameter_of(hit, question)
    return bool(name) and not word_stems(question) - word_stems(code_words(f"{name} {symbol.replace('.', ' ')}")) - (
        _ENTRY_WORDS)


def _names_symbol_asked(sentence: str, written: set[str]) -> bool:
    """Whether a list item names a symbol the question writes in brackets before what it is: fast-glob's "• A double
    star or globstar (**) — matches zero or more directories." for "What does ** match?"."""
    term = re.split(r" [—–] ", sentence[2:], maxsplit=1)
    return len(term) == 2 and any(f"({key})" in term[0] for key in written if not _WORD.match(key))


def _entry_asked(hit, source: list[str], position: int, stems: set[str], asked: set[str], question: str) -> bool:
    """Whether a reference entry's field line or first sentence, too short to answer alone or in the question's words,
    answers under its heading: both name what is asked ("Default: `Infinity`" under p-queue's option "concurrency"
    for "What is the default concurrency?", "Clear the queue." under ".clear()" for "How do I clear the queue?": the
    name is the answer); a field line when its label is asked ("Default: `path.resolve(…)`" answers no "How do I use
    a custom path?") and every word of the name is. It is quoted under it (`_reference_entry`)."""
    heading, label = headings.reference_heading(hit, source, position), headings.field_label(source[position])
    if not heading or source[position].endswith("?"):
        return False
    if label:  # of the entry named whole: borderStyle's "Default: 'single'" is no default of a border's colour
        name = heading.strip("`").partition("(")[0]
        named = word_stems(code_words(name))  # its words, or the name as written ("the default of pascalCase")
        return bool(word_stems(label) & asked) and bool(named) and (
            named <= asked or writes_name(question, name))
    return bool(stems & asked and word_stems(heading) & asked)


def _reference_entry(hit, source: list[str]) -> str:
    """The name a reference entry's sentences document, as its heading writes it (`headings.entry_heading`); "" for
    another section, and for a word in capitals, as a product's name is written too ("PathSpec", "TypeScript"),
    unless a heading over it lists such names (django-filter's "Filters > RangeFilter")."""
    heading = headings.entry_heading(hit, source).strip("`")
    return "" if _CAPITALISED.fullmatch(heading) and not headings.under_listing(hit) else heading


def _named_by_verb(question: str, hit) -> bool:
    """Whether a row of code is of a symbol named by the verb a how-to asks to do ("How do I shift …?" and
    `Arrow.shift`): the question's first word after "How do I", "How can I", "How to" is the symbol's last name."""
    if not (hit.layer or "").startswith("C"):
        return False
    name = str((hit.metadata or {}).get("qname") or "").rsplit(".", 1)[-1].lower()
    verb = _HOW_TO_VERB.match(question)
    return bool(verb) and len(name) > 3 and (verb.group(1) or verb.group(2)).lower() == name


def _named_items(source: list[str]) -> dict[int, str]:
    """The positions of the sentences under a list item that is a name written as code alone ("• RENDER_PANELS"), up
    to the next item, each with that name — none when such an item has nothing under it before the next: a list of
    names ("• redis", "• memcached") is no reference, and the paragraph after it is not its last item's."""
    named, name, bare = {}, "", False
    for position, sentence in enumerate(source):
        if ITEM.match(sentence):
            item = sentence[2:].strip()
            bare = bare or bool(name) and position - 1 not in named
            name = item if names_written_as_code(item) == [item] else ""
        elif name and not sentence.startswith(HEADING_INTRO):
            named[position] = name
        else:
            name = ""
    return {} if bare else named


def _of_another_entry(entry: str, sentence: str, names: set[str]) -> bool:
    """Whether a sentence of the reference entry `entry` (`_reference_entry`) documents another name than the ones the
    question asks about by name (`names`, lower case) and writes none of them, in any case and inflection ("clones"
    says "clone"): serve-static's "The default value is `false`." under "extensions" for "What is the default value of
    the fallthrough option?"."""
    return bool(names) and bool(entry) and _name(entry).lower() not in names and not any(
        name in sentence.lower() for name in names)


def _subject_heading(hit, source: list[str], position: int) -> str:
    """The name a section's first sentence names its subject by pointing at ("This header is not set by default."
    under helmet's "Cross-Origin-Embedder-Policy"), written before it as a reference entry's name is: a heading
    written as a name is (with a hyphen, a dot or an inner capital), not one in words ("Overview"); "" for any other
    sentence."""
    if position or not readable.points_back(source[0]) or " > " not in (hit.section_path or ""):
        return ""
    heading = headings.section_heading(hit)
    return heading if _WRITTEN_AS_NAME.search(heading) and " " not in heading.strip() else ""


def _writes_entry(sentence: str, name: str) -> bool:
    """Whether a sentence names what its reference entry documents as code: called or an attribute ("version(",
    ".version"), or a name no prose writes (`force_list`, `onFailedAttempt`) — uuid's "Detect RFC version of a UUID"
    under "uuid.version(str)" says "version" as a word."""
    if re.search(rf"(?<![\w$]){re.escape(name)}\(|\.{re.escape(name)}(?![\w$])", sentence):
        return True
    return bool(_CODE_NAME.fullmatch(name)) and writes_name(sentence, name)


def _name(heading: str) -> str:
    """The name a reference's heading documents, without its object, call or anchor ("activeCount" of
    "limit.activeCount", "clear" of ".clear()", "onFailedAttempt" of "onFailedAttempt(error)")."""
    return heading.partition("(")[0].rpartition(".")[2].lstrip("#")


def _clip(sentence: str, limit: int = 400) -> str:
    if len(sentence) <= limit:
        return sentence
    cut = sentence.rfind(" ", 0, limit)
    return sentence[: cut if cut > limit // 2 else limit] + " …"


def _asks_to_use(asked: set[str], hit) -> bool:
    """Whether a how-to asks only how to use the project `hit` is of ("How do I use helmet?", "How do I get started
    with helmet?"): its words, but the project's names, are those of using ("use" is a stop word)."""
    return asked - word_stems(f"{hit.document_title} {asides.repository_names([hit])}") <= _USING


def _under_its_heading(hit, source: list[str], asked: set[str], question: str) -> list[str]:
    """A section saying only a name or a phrase under a heading the question names (`headings.names_asked`), read
    under it: pluralize's "## License" over "MIT" answers "What license is pluralize under?" as "License: MIT" (alone,
    "MIT" is no sentence and shares no word with the question)."""
    # (A section of its document, not the document under its title: "# Outline" over a scan's "Маше 3".)
    heading = headings.section_heading(hit) if " > " in (hit.section_path or "") else ""
    if (len(source) != 1 or not heading or readable.ENDS.search(source[0]) or ITEM.match(source[0])
            or source[0].startswith((COMMAND, CODE_LEFT_OUT, HEADING_INTRO))
            or len(_WORD.findall(source[0])) > _PHRASE_WORDS or not headings.names_asked(heading, asked, question)
            or headings.reference_heading(hit, source, 0)):  # a name of code's entry is read under it as such
        return source
    return _UnderHeading([f"{heading}: {source[0]}"])


class _UnderHeading(list):
    """A section's phrase read under its heading (`_under_its_heading`): the answer to what the heading names, for
    all its few words."""


def _leads_into_code(source: list[str], position: int) -> bool:
    """Whether the sentence at `position` introduces the block of code right after it ("Old pre-6.0.0:")."""
    return source[position].endswith(":") and position + 1 < len(source) and source[position + 1].startswith(
        (COMMAND, CODE_LEFT_OUT))


def _commands_after(source: list[str], position: int) -> list[str]:
    """The lines of the commands right after the sentence at `position`, as written."""
    commands = itertools.takewhile(lambda sentence: sentence.startswith(COMMAND), source[position + 1:])
    return [line for command in commands for line in code_lines(command)]


def _introduces_list(source: list[str], position: int) -> bool:
    """Whether the sentence at `position` introduces a list (`readable.introduces_what_follows`): what it introduces
    is what it says."""
    following = source[position + 1] if position + 1 < len(source) else ""
    return readable.introduces_what_follows(source, position) and not ITEM.match(source[position]) and bool(
        ITEM.match(following))


def _answers(stems: set[str], asked: set[str], sentence: str, *, alone: bool, yes_no: bool = False,
             lists: bool = False) -> bool:
    """Whether a sentence is content that may be quoted as an answer: not the question again, not a
    fragment of a few characters (a caption, an OCR misreading), not a heading, not a list item that
    only restates words of the question (a table of contents). `alone`: the only sentence of its
    source (a table row has no full stop and is no heading). A statement in the words of a yes-or-no question is its
    answer, not the question again (bytes' "The units are in powers of two, not ten." to "Are units powers of two or
    ten?"); so is a sentence introducing a list (`lists`) in its words: colorlog's "The available color names are:"
    over "• black", "• red" … for "What color names are available?"."""
    words = len(_WORD.findall(sentence))
    statement = words >= _STATEMENT_WORDS and sentence.endswith((".", "!"))
    if not stems or _echoes(stems, asked, sentence) and not (yes_no and statement) and not lists:
        return False
    # Two words ending with a full stop, one of the question's and one more, state something ("MIT licensed." for
    # "What license is environs under?"); fewer words or letters are a fragment.
    if (words < 3 or len(sentence) < 10) and not (words == 2 and len(sentence) >= 10 and sentence.endswith(".")
                                                  and stems & asked and stems - asked):
        return False
    if ITEM.match(sentence) and not stems - asked and not _DEFINES.match(sentence):
        return False  # a list item of nothing but the question's words, unless it defines a term in them
    if _LEADERS.search(sentence):
        return False
    if readable.ENDS.search(sentence):
        return True
    if readable.TOPIC.match(sentence):
        return False
    # Without a full stop: a list item of a few words, a heading, numbered or of a few words (one of a
    # table row's cells is no heading).
    if ITEM.match(sentence):
        return words > 4
    return alone or (words >= 8 and not _NUMBERED.match(sentence))


def _echoes(stems: set[str], asked: set[str], sentence: str) -> bool:
    """A sentence that is the question again (a heading, a restated query) answers nothing."""
    if sentence.rstrip().endswith("?"):
        return True
    # Nothing but the question's own words, and most of them: a heading or the question restated — not a term
    # defined in them ("• bold - Make the text bold." for "How do I make text bold?").
    return bool(asked) and not stems - asked and len(stems) >= 0.8 * len(asked) and not _DEFINES.match(sentence)
