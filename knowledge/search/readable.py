"""What a sentence chosen for an extract needs to be read on its own (`composer`).

A list item comes with the numbered step it is a sub-point of or the sentence introducing its list (with
the list's other items when that sentence counts them: "There are three ways to…:"); a
sentence naming its subject only as "this" or "it" with the sentence before it; a sentence ending with
":" (or running on into a short command without one) with what it introduces — its list (of
alternatives, those the question names), its command or block of code, else the next sentence; and for
a how-to question, a sentence ending with a full stop with the code right after it. `unit` says None when
that cannot be had: an extract never ends on a colon, nor quotes a sentence the code it leads into cut
short. What is never quoted as an answer lives here too, since a lead-in may not be one either: the tail
of a sentence the chunk's start cut (`cut`), a list of topics (`in_topic_list`). And what a sentence says as read
in its place (`as_read`): with the command it runs on into, after the questions it answers.
"""

import re

from knowledge.search.code_blocks import CODE_BLOCK, CODE_LEFT_OUT, COMMAND, code_lines, command_read, comments_read
from knowledge.search.source_text import HEADING_INTRO, ITEM
from knowledge.search.words import word_stems

_WORD = re.compile(r"\w+", re.UNICODE)
_QUALIFIED = re.compile(r"`([\w.]+)`(?: \([^()\s]+\))?")  # "`jobs.schedules.add` (jobs/schedules.py)"
ENDS = re.compile(r"[.!?…:;][\"'»”)]*$")  # a sentence ends so; a heading does not
_STEP = re.compile(r"\d{1,3}[.)] ")
# A reply of one word ("No.", "Yes!", "Нет."): too short to quote alone, the answer to what the sentence after it
# qualifies.
BARE_REPLY = re.compile(r"^(?:yes|no|nope|да|нет)[.!]$", re.I)
# A sentence that names its subject only by a word pointing back at the sentence before it.
# A conjunction may open it, and a share of what it points at ("But none of them will be included…").
# A sentence doing something to what the one before it says: "To disable this behavior, set `strip_comments=False`:"
# after bleach's "By default, Bleach will strip out HTML comments." (not after a list: decouple's "To meet this need,
# the config function accepts a cast argument …" means its four examples, not the last).
_ACTS_ON_IT = re.compile(r"(?:in order )?to\s+\w+\s+(?:this|that|these|those|it)\b", re.I)
_REFERS_BACK = re.compile(r"(?:(?:but|and|yet|so|also|however|но|а|и|однако),?\s+)?"
                          r"(?:(?:none|all|some|each|both|most|any|one) of\s+)?"
                          r"(?:this|these|those|it|its|they|them|such|это|эти|этот|эта|этим|он|она|оно|они)\b", re.I)
# A list item or heading that opens with a question word names a topic ("• What a component is",
# "• Как написать компонент"): a table of contents, not an answer.
TOPIC = re.compile(r"^(?:• |\d{1,3}[.)] )?(?:what|how|why|when|which|who|where|что|как|какой|какая|какое|какие"
                   r"|какую|каким|почему|зачем|когда|где|кто|чем)\b", re.I)
_OUTLINE = re.compile(r"\d{1,2}(?:\.\d{1,2}){1,3}\.?$")  # a plain-text table of contents' number alone: "12.2.3."
# A sentence introducing a list that counts its items ("There are three ways to…:", "Есть несколько способов…:").
# An introduction that counts its list's items, or offers them as alternatives ("accepts one of the following:").
_COUNTS = re.compile(r"\b(?:two|three|four|five|six|seven|eight|nine|ten|both|several|multiple|a few|a number of"
                     r"|one of|any of|either|два|две|три|четыре|пять|шесть|оба|обе|нескольк\w*"
                     r"|одн(?:о|а|у|им)? из|люб(?:ой|ое|ая|ую) из)\b", re.I)
# A sentence ending on a word that points to what follows it ("… the following:", "… as below:").
_POINTS_ON = re.compile(r"\b(?:following|follows|below|these|this|here|thus|so|like|e\.g|i\.e|ниже|следующ\w*|так)"
                        r"\W*:$", re.I)
# A sentence announcing the list under it with a full stop ("The following parsing methods are available.").
# The words of a question asking for the values a name takes, which a list under its entry's sentence gives (cookie's
# "What values can sameSite take?": "• true will set …", "• false …", "• 'lax' …"): "value", "possible", "choices"
# (not "allowed", "supported": a how-to's verbs as often, "How do I allow only one origin?").
_VALUES_ASKED = word_stems("value possible choices")
_DEFAULT = word_stems("default")  # "What is the default value of …?" asks one
_ANNOUNCES = re.compile(r"\b(?:the following|as follows|следующ\w*)\b", re.I)
_NAME_WORDS = 3  # a list item of as many words at most names something ("• black", "• light_red")
_STATEMENT_WORDS = 6  # a sentence ending with ":" that says something without what it introduces has as many
# A sentence announcing an example ("Here's a simple example of how to render a template:", "выглядит
# так:"): with its code left out it promises what the extract does not give.
_EXAMPLE = re.compile(r"(?:\b(?:examples?|for instance|пример\w*)\b.*"
                      r"|\b(?:like this|as follows|следующим образом|так))\W*:$", re.I)


def unit(item: tuple, source: list[str], budget: int, asked: set[str], how_to: bool = False,
         blocks: bool = True) -> dict | None:
    """A chosen sentence with what it needs to be read: the lead-in of a list item (and the list's other
    items, when the lead-in counts them and they fit), what a sentence ending with ":" introduces (of
    alternatives, those `asked` names) — so is the list right under a sentence when the question asks for values
    (`_VALUES_ASKED`) —, the command a sentence runs on into without a colon ("To use
    markdown_py from the command line, run it as"). None when that
    cannot be had: an extract never ends on a colon, nor on a sentence the code it leads into cut short.
    For a how-to question (`how_to`), the code right after a sentence ending with a full stop comes
    along when it fits ("Serialize objects by passing them to your schema's dump method." and its
    example): documentation shows how as often with a full stop as with a colon. Without `blocks`, a block
    of code is as one too long to quote."""
    number, position, sentence, _ = item
    following = source[position + 1] if position + 1 < len(source) else ""
    if following.startswith(CODE_LEFT_OUT) and (not ENDS.search(sentence) or _EXAMPLE.search(sentence)):
        return None  # "Thus, the following text" and a block too long to quote; an example without it
    lead = lead_in(source, position)
    if ITEM.match(sentence) and lead and _COUNTS.search(source[lead[-1]]) and source[lead[-1]].endswith(":"):
        # "There are three ways to…:" with one of them reads as the only one: the others come along.
        whole = introduced(source, lead[-1], budget - sum(len(source[at]) for at in lead), asked, blocks)
        lead += whole if position in whole else []
    needed = {(number, at): source[at] for at in lead}
    needed[(number, position)] = sentence
    values = bool(asked & _VALUES_ASKED) and not asked & _DEFAULT and ITEM.match(following) is not None and not (
        ITEM.match(sentence))
    if introduces_what_follows(source, position) or values or (following.startswith(COMMAND)
                                                              and not ENDS.search(sentence)):
        what = introduced(source, position, budget - sum(len(line) for line in needed.values()), asked, blocks)
        if not what and _says_without_example(source, position):
            needed[(number, position)] = f"{sentence[:-1].rstrip()}."
            return needed
        if not what:  # (a sentence announcing its list with a full stop says something without it, and so does an
            # item of a statement's length over a block too long for what is left: path-to-regexp's "• encode Function
            # for encoding … or false to disable entirely. (default: encodeURIComponent)")
            return needed if not sentence.endswith(":") and (ENDS.search(sentence) or ITEM.match(sentence) and len(
                _WORD.findall(sentence)) >= _STATEMENT_WORDS) else None
        needed.update({(number, at): source[at] for at in what})
    elif how_to and following.startswith(COMMAND) and not names_alternative(source, position):
        left, at = budget - sum(len(line) for line in needed.values()), position + 1
        while (at < len(source) and source[at].startswith(COMMAND) and len(source[at]) <= left
               and (blocks or not source[at].startswith(CODE_BLOCK))):
            needed[(number, at)] = source[at]
            left, at = left - len(source[at]), at + 1
    return needed


def points_back(sentence: str) -> bool:
    """Whether a sentence names its subject only by a word pointing back ("This header is not set by default.")."""
    return bool(_REFERS_BACK.match(sentence))


def introduces_what_follows(source: list[str], position: int) -> bool:
    """Whether the sentence at `position` introduces what follows it: it ends with ":", or announces the list
    under it with a full stop (isodate's "The following parsing methods are available." over its methods)."""
    sentence = source[position]
    return sentence.endswith(":") or bool(_ANNOUNCES.search(sentence)) and ENDS.search(sentence) is not None and (
        position + 1 < len(source) and ITEM.match(source[position + 1]) is not None)


def _says_without_example(source: list[str], position: int) -> bool:
    """Whether a sentence ending with ":" says what it says without the example it introduces, too long to quote
    (right after it, or after a line announcing it: "Example stdout.js:"), and so is quoted with a full stop:
    debug's "By default debug will log to stderr, however this can be configured per-namespace by overriding the
    log method:". Not a sentence announcing an example itself, nor one ending on what it points to ("… as
    follows:", "… the following:", "… like this:"), nor a list's item."""
    sentence = source[position]
    if not sentence.endswith(":") or _EXAMPLE.search(sentence) or _POINTS_ON.search(sentence) or ITEM.match(sentence):
        return False  # a step without what it does is no step (react.dev's "1. Move the data into an array:")
    if len(_WORD.findall(sentence)) < _STATEMENT_WORDS:
        return False
    after = source[position + 1:position + 3]
    return bool(after) and (after[0].startswith(CODE_LEFT_OUT) or len(after) == 2 and bool(
        _EXAMPLE.search(after[0])) and after[1].startswith(CODE_LEFT_OUT))


class OpensWhole(list):
    """The sentences of a chunk that opens with a heading: the first is whole whatever its case ("cachetools is
    available from PyPI and can be installed by running:"), not the tail of one the chunk's start cut."""


def cut(source: list[str], position: int) -> bool:
    """Whether the sentence at `position` is the tail of one the chunk's start cut (chunks overlap
    mid-sentence): the first, opening in lower case, of a chunk not opening with a heading (`OpensWhole`).
    Neither quoted nor what introduces a list."""
    return position == 0 and source[0][:1].islower() and not isinstance(source, OpensWhole)


def lead_in(source: list[str], position: int) -> list[int]:
    """The positions of what makes a sentence readable on its own: for a list item, the numbered step a
    bullet is a sub-point of, or the sentence introducing the list ("If the LED stays off:"); for a
    sentence that names its subject only as "this" or "it", the sentence before it, which names it
    ("ItsDangerous signs data. This is used to protect the session cookie."), unless that one names
    its subject the same way; for a sentence after a reply of one word, the reply ("No. Unless you encrypt
    it.")."""
    if not ITEM.match(source[position]):
        before = source[position - 1] if position else ""
        if BARE_REPLY.match(before):
            return [position - 1]  # "No." and what it goes on with: "Unless you encrypt it with dotenvx."
        # Not a sentence that names nothing itself ("This is expected." after the code it means).
        sentence = source[position]
        refers_back = ((points_back(sentence) or _ACTS_ON_IT.match(sentence) and not ITEM.match(before))
                       and ENDS.search(before) and not before.endswith(":") and not points_back(before)
                       and not cut(source, position - 1))
        # Nor code: a command is quoted after its introduction, a block too long to quote not at all.
        return [position - 1] if refers_back and not before.startswith((COMMAND, CODE_LEFT_OUT)) else []
    bullet, at = source[position].startswith("• "), position - 1
    while at >= 0 and (source[at].startswith(COMMAND) or (ITEM.match(source[at])
                                                         and source[at].startswith("• ") == bullet)):
        at -= 1
    if at < 0 or cut(source, at):
        return []
    if bullet and ITEM.match(source[at]):
        return [at]  # the step of a numbered list this bullet belongs to
    if introduces_what_follows(source, at) and not source[at + 1].startswith(COMMAND):
        # "2. Check the LED. If it is off:" introduces its bullets with the step's second sentence. (Not the code right
        # after it: bleach's changelog, "New 6.0.0 and later:" over a call, then the next change's item.)
        return [at - 1, at] if at > 0 and bullet and _STEP.match(source[at - 1]) else [at]
    return []


def introduced(source: list[str], position: int, budget: int, asked: set[str], blocks: bool = True) -> list[int]:
    """The positions of what the sentence at `position`, ending with ":", introduces: its list, commands or
    block of code (the lines right after it; of alternatives, the ones the question names), else the next
    sentence, which goes on from it (the code it introduced is too long to quote, or for what is left of
    `budget`); [] when neither fits in `budget`, when a step of the list leads into code too long to quote
    ("1. Move the data into an array:" and its block; not a command another block follows): the list would
    read as steps without what they do, when the list is one of topics (`_in_topic_list`), when less than
    half of its items fit, or when an example announced does not fit ("Here's an example:")."""
    run, at = [], position + 1
    step = bool(_STEP.match(source[position]))  # a numbered step's run ends at the next step, its sibling
    while at < len(source) and len(run) < 12 and (ITEM.match(source[at]) or source[at].startswith(COMMAND)
                                                  or names_alternative(source, at)) and not (
            step and _STEP.match(source[at])):
        if at + 1 < len(source) and source[at + 1].startswith(CODE_LEFT_OUT) and not source[at].startswith(COMMAND):
            return []  # a step leading into its code left out; a command before another block is whole
        run.append(at)
        at += 1
    if run and in_topic_list(source, run[0]):
        return []  # "You will learn:" and the topics of the page
    if run:
        taken, wanted = [], alternatives_asked(source, run, asked)
        # Six items at most, but a list of names is quoted as far as it goes: colorlog's "The available color names
        # are:" read as six colours of eight.
        wanted = wanted if all(len(_WORD.findall(source[line])) <= _NAME_WORDS for line in wanted) else wanted[:6]
        for line in wanted:
            if len(source[line]) > budget or (not blocks and source[line].startswith(CODE_BLOCK)):
                break
            taken.append(line)
            budget -= len(source[line])
        while taken and names_alternative(source, taken[-1]):
            taken.pop()  # never a tab's name without its command
        if len(taken) * 2 < len(wanted) and all(ITEM.match(source[line]) for line in wanted):
            return []
        if taken or not all(source[line].startswith(CODE_BLOCK) for line in run):
            return taken
        if _EXAMPLE.search(source[position]):
            return []
    while at < len(source) and source[at].startswith(CODE_LEFT_OUT):
        at += 1  # the sentence after the code, which goes on from the introduction
    following = source[at] if at < len(source) else ""
    if following and len(following) <= budget and ENDS.search(following) and not following.endswith((":", "?")):
        return [at]
    return []


def in_topic_list(source: list[str], position: int) -> bool:
    """Whether the line at `position` is an item of a list of topics: a list more than half of whose items,
    two at least, open with a question word ("• How to return different JSX", "• Зачем и как присваивать
    ключ…" — a page's "You will learn" or "Recap", full stops or not), or a numbered one without a full
    stop among an outline's numbers ("14. Распространение Debian" over "14.1."): a table of contents."""
    if not ITEM.match(source[position]):
        return False
    near = source[max(0, position - 2):position + 3]
    if not ENDS.search(source[position]) and any(_OUTLINE.match(line) for line in near):
        return True
    start, end = _list_span(source, position)
    topics = sum(bool(TOPIC.match(line)) for line in source[start:end + 1])
    return topics >= 2 and topics * 2 > end + 1 - start


def list_length(source: list[str], position: int) -> int:
    """How many items the list of the item at `position` has (0 for a line that is no item)."""
    if not ITEM.match(source[position]):
        return 0
    start, end = _list_span(source, position)
    return end + 1 - start


def _list_span(source: list[str], position: int) -> tuple[int, int]:
    """The positions of the first and last items of the list the item at `position` is in."""
    start = end = position
    while start > 0 and ITEM.match(source[start - 1]):
        start -= 1
    while end + 1 < len(source) and ITEM.match(source[end + 1]):
        end += 1
    return start, end


def names_alternative(source: list[str], position: int) -> bool:
    """Whether the line at `position` names the alternative whose command follows it: a tab's name over
    its panel ("Windows:", `knowledge.indexing.parsing.html.label_tab_panels`)."""
    line = source[position]
    return (line.endswith(":") and not line.startswith((HEADING_INTRO, COMMAND)) and len(_WORD.findall(line)) <= 3
            and position + 1 < len(source) and source[position + 1].startswith(COMMAND))


def alternatives_asked(source: list[str], run: list[int], asked: set[str]) -> list[int]:
    """Of a run of lines holding alternatives side by side ("macOS/Linux:" and its command, "Windows:" and
    its), the lines of those the question names ("…on Windows?"); all of them when it names none."""
    names = [at for at in run if names_alternative(source, at)]
    named = [at for at in names if word_stems(source[at]) & asked]
    if len(names) < 2 or not named:
        return run
    owner = {at: max((name for name in names if name <= at), default=None) for at in run}
    return [at for at in run if owner[at] is None or owner[at] in named]


def _asked_before(source: list[str], position: int, asked: set[str]) -> str:
    """The questions right before a sentence, which it answers: loguru's "How to set up logs formatting? How to filter
    messages? … One answer: the add() function." (a question itself is never quoted). Not when one of them is the
    question `asked` again: a page restating it (a title, a forum's question) says nothing of what follows."""
    at = position - 1
    while at >= 0 and source[at].endswith("?") and not source[at].startswith(COMMAND):
        at -= 1
    questions = source[at + 1:position]
    if not asked or any(len(word_stems(question) & asked) >= 0.8 * len(asked) for question in questions):
        return ""
    return " ".join(questions)


def as_read(source: list[str], position: int, asked: set[str] = frozenset(), how_to: bool = False) -> str:
    """The sentence at `position` as its meaning is compared: a heading over its commands with them
    ("Installation: pip install django-ninja"; the heading alone says little), and so a sentence introducing
    a command with a colon ("Installation is done using the npm install command: npm install express": the
    command names what is installed) or running on into it without one ("To use markdown_py from the command line,
    run it as markdown_py input_file.txt"); for a how-to (`how_to`), a sentence ending with a full stop with the
    code right after it, which comes along when it is quoted (`unit`): "Day.js has great support for
    internationalization." says "locale" only in its example's `dayjs.locale('es') // use Spanish locale globally`;
    a sentence after questions, with them (`_asked_before`); a sentence naming its subject only by "it" or
    "this" and saying words asked that the sentence before it does not, with that sentence, which names its
    subject (`lead_in`), as it is quoted: path-to-regexp's "It can not handle arbitrarily ordered data (e.g. query
    strings, …)." alone is far from "Can path-to-regexp handle query strings?". (Not one saying nothing more of
    what is asked: it would be as close as the sentence before it, and come after it, as its elaboration, every
    time that one is quoted.)"""
    sentence = source[position]
    if questions := _asked_before(source, position, asked):
        sentence = f"{questions} {sentence}"
    elif not ITEM.match(sentence) and (before := lead_in(source, position)) and (
            word_stems(sentence) - word_stems(source[before[0]])) & asked:
        sentence = f"{source[before[0]]} {sentence}"
    elif sentence.startswith(HEADING_INTRO) and position + 1 < len(source):
        return f"{sentence[len(HEADING_INTRO):]} {_code_after(source, position)}"
    following = source[position + 1] if position + 1 < len(source) else ""
    introduces = sentence.endswith(":") or not ENDS.search(sentence)
    if introduces and following.startswith(COMMAND) and not following.startswith(CODE_BLOCK):
        sentence = f"{sentence} {command_read(following)}"
    elif introduces and following.startswith(CODE_BLOCK) and (comments := comments_read(following)):
        # Its block's comments say what it shows: helmet's "Examples:" over `// Sets "X-Frame-Options: DENY"` and
        # its code answers "How do I set X-Frame-Options to DENY?".
        sentence = f"{sentence} {comments}"
    elif how_to and not introduces and following.startswith(COMMAND) and not names_alternative(source, position):
        sentence = f"{sentence} {_code_after(source, position)}"
    # A repository's row names its code by qualified name and file (`layer_text`): the name's last part
    # says what the sentence is about, the package's path only dilutes it.
    return _QUALIFIED.sub(lambda match: match.group(1).rsplit(".", 1)[-1], sentence)


def _code_after(source: list[str], position: int) -> str:
    """The code right after the sentence at `position`, its lines as written: commands up to the next sentence
    (`command_read`), or a block."""
    lines = []
    for following in source[position + 1:]:
        if not following.startswith(COMMAND):
            break
        lines.extend(code_lines(following) if following.startswith(CODE_BLOCK) else [command_read(following)])
    return " ".join(line.strip() for line in lines if line.strip())
