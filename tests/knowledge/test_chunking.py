"""Chunking: properties over generated markdown-ish texts, examples, and real documents."""

import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowledge.documents import TextChunk
from knowledge.indexing import markdown
from knowledge.indexing.chunking import CHUNKER_VERSION, split_text, token_estimate

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
DOCUMENTS = DATA / "documents"


def effective(chunk_size: int, overlap: int, min_size: int) -> tuple[int, int]:
    """The documented clipping: overlap to chunk_size // 2, min_size to chunk_size // 4."""
    return min(overlap, chunk_size // 2), min(min_size, chunk_size // 4)


# --- An independent reading of the markdown structure -------------------------------------------


def fence_run(stripped: str) -> str:
    """The run of ``` or ~~~ a line opens with (at least three characters), or ""."""
    if not stripped or stripped[0] not in "`~":
        return ""
    run = stripped[: len(stripped) - len(stripped.lstrip(stripped[0]))]
    return run if len(run) >= 3 else ""


def heading_title(text: str) -> str:
    title = text.strip()
    unclosed = title.rstrip("#")
    if not unclosed or unclosed[-1] in " \t":
        title = unclosed.strip()
    if title.endswith("}") and "{" in title:
        anchor = title[title.rindex("{") :]
        if anchor.startswith("{#") or (anchor.startswith("{/*") and anchor.endswith("*/}")):
            title = title[: title.rindex("{")].strip()
    return markdown.inline_text(title)  # links, emphasis, code spans and escapes: test_markdown.py


def reference_headings(text: str) -> list[tuple[int, list[str]]]:
    """(offset of the `#`, heading path after that line) for every heading line, by a plain line walk."""
    result, titles, fence, offset = [], {}, "", 0
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        run = fence_run(stripped)
        if len(line) - len(stripped) > 3:
            pass
        elif fence:
            if run and run[0] == fence[0] and len(run) >= len(fence) and not stripped[len(run) :].strip():
                fence = ""
        elif run:
            if run[0] == "~" or "`" not in stripped[len(run) :]:
                fence = run
        else:
            level = len(stripped) - len(stripped.lstrip("#"))
            if 1 <= level <= 6 and (len(stripped) == level or stripped[level].isspace()):
                titles = {k: v for k, v in titles.items() if k < level}
                titles[level] = heading_title(stripped[level:])
                path = [titles[k] for k in sorted(titles) if titles[k]]
                result.append((offset + len(line) - len(stripped), path))
        offset += len(line) + 1
    return result


def reference_tables(text: str) -> list[tuple[int, int, list[int]]]:
    """(start, end of the last row's text, row starts) of each run of two or more lines opening and closing with
    "|" outside fences, by a plain line walk."""
    tables, fence, offset, run = [], "", 0, []
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        marker = fence_run(stripped) if len(line) - len(stripped) <= 3 else ""
        row = not fence and line.strip(" \t").startswith("|") and line.rstrip(" \t\r").endswith("|") and (
            len(line.strip(" \t\r")) > 1)
        if row:
            run.append((offset, offset + len(line.rstrip())))
        else:
            if len(run) > 1:
                tables.append((run[0][0], run[-1][1], [start for start, _ in run]))
            run = []
        if fence:
            if marker and marker[0] == fence[0] and len(marker) >= len(fence) and not stripped[len(marker):].strip():
                fence = ""
        elif marker and (marker[0] == "~" or "`" not in stripped[len(marker):]):
            fence = marker
        offset += len(line) + 1
    if len(run) > 1:
        tables.append((run[0][0], run[-1][1], [start for start, _ in run]))
    return tables


def path_at(headings: list[tuple[int, list[str]]], position: int) -> list[str]:
    path: list[str] = []
    for start, after in headings:
        if start > position:
            break
        path = after
    return path


def path_of(text: str, headings: list[tuple[int, list[str]]], chunk: TextChunk) -> list[str]:
    """Documented: the path in effect at the chunk's start, or after the headings opening it with nothing
    between them (the last one's)."""
    inside = [(start, after) for start, after in headings if chunk.start <= start < chunk.end]
    if not inside or inside[0][0] != chunk.start:
        return path_at(headings, chunk.start)
    current = inside[0]
    for following in inside[1:]:
        if text[current[0]:following[0]].split("\n", 1)[-1].strip():
            break
        current = following
    return current[1]


def extent(text: str) -> int:
    """Length of `text` without leading and trailing whitespace."""
    return len(text.strip())


def next_start(text: str, end: int, overlap: int) -> int:
    """Documented overlap: `overlap` back, then to a word start within min(24, overlap // 4), or the next one when
    that is inside a word after a chunk not cut hard; inside a table's row, to the next row's start or the text
    after the table (-1: then no overlap)."""
    position = end - overlap
    for start, table_end, rows in reference_tables(text):
        if start < position < table_end:
            later = [row for row in rows if row >= position]
            moved = later[0] if later else table_end + len(text[table_end:]) - len(text[table_end:].lstrip())
            return moved if moved < end else -1
    for i in range(position, min(position + min(24, overlap // 4), end)):
        if not text[i].isspace() and (i == 0 or text[i - 1].isspace()):
            return i
    while text[position].isspace():
        position += 1
    if position > 0 and not text[position - 1].isspace() and end < len(text) and text[end].isspace():
        # inside a word, after a chunk not cut hard (its end is followed by a space): the next word, or none
        later = re.search(r"(?<=\s)\S", text[position:end])
        return position + later.start() if later else -1
    return position


# --- The checks every chunking must pass --------------------------------------------------------


def check_chunks(text: str, chunks: list[TextChunk], chunk_size: int, overlap: int, min_size: int) -> None:
    overlap, min_size = effective(chunk_size, overlap, min_size)
    if not text.strip():
        assert chunks == []
        return
    check_spans(text, chunks, chunk_size)
    check_coverage(text, chunks)
    headings = reference_headings(text)
    check_overlap(text, chunks, chunk_size, overlap, {start for start, _ in headings}, min_size)
    check_sections(text, chunks, [start for start, _ in headings], min_size)
    for chunk in chunks:
        assert chunk.heading_path == path_of(text, headings, chunk), chunk
    if extent(text) < min_size:
        assert len(chunks) == 1
    # Documented exception: long whitespace runs may leave a short chunk next to them.
    if extent(text) >= min_size and not re.search(rf"\s{{{max(chunk_size // 4, 1)}}}", text):
        assert all(len(chunk.content) >= min_size for chunk in chunks)


def check_spans(text: str, chunks: list[TextChunk], chunk_size: int) -> None:
    for chunk in chunks:
        assert chunk.content == text[chunk.start : chunk.end]
        assert 0 < len(chunk.content) <= chunk_size
        assert chunk.content == chunk.content.strip(), "chunks never begin or end with whitespace"
    for previous, chunk in zip(chunks, chunks[1:]):
        assert previous.start < chunk.start and previous.end < chunk.end


def check_coverage(text: str, chunks: list[TextChunk]) -> None:
    """Every non-whitespace character lies in some chunk (chunks are sorted by start and by end)."""
    covered_to = 0
    for chunk in chunks:
        assert not text[covered_to : chunk.start].strip()
        covered_to = max(covered_to, chunk.end)
    assert not text[covered_to:].strip()


def check_overlap(text: str, chunks: list[TextChunk], chunk_size: int, overlap: int, headings: set[int],
                  min_size: int = 0):
    """Overlap as documented; without it the next chunk starts at the first character after the gap. A chunk
    shorter than `min_size`, cut short by a long whitespace run, is too short to overlap."""
    for previous, chunk in zip(chunks, chunks[1:]):
        overlapped = previous.end - overlap > previous.start
        expected = next_start(text, previous.end, overlap) if overlapped else None
        if overlapped and chunk.start == expected:
            continue
        gap = text[previous.end : chunk.start]
        assert chunk.start > previous.end and not gap.strip(), (previous, chunk)
        # (No overlap after a table's row when no row of it fits in the overlap.)
        assert (chunk.start in headings or len(gap) >= chunk_size // 4 or expected == -1
                or len(previous.content) < min_size), (previous, chunk)


def check_sections(text: str, chunks: list[TextChunk], headings: list[int], min_size: int) -> None:
    """A chunk spans a heading only after a short section, or when the rest of the text is short."""
    cuts = [0, *headings, len(text)]
    for i, heading in enumerate(headings, start=1):
        before, rest = text[cuts[i - 1] : heading], text[heading:]
        if extent(before) >= min_size and extent(rest) >= min_size:
            assert not any(chunk.start < heading < chunk.end for chunk in chunks), heading


# --- Generated texts ----------------------------------------------------------------------------

WORDS = ["install", "Linux", "package", "the", "of", "state", "hook", "React", "apt-get", "x86_64"]
WORDS += ["установка", "пакет", "Дебиан", "система", "ядро", "вопрос", "ответ", "и", "в", "не", "ёж"]
PUNCTUATION = ["", "", "", "", ",", ".", "!", "?", "…", ".»", "?)", "..."]

word = st.builds(str.__add__, st.sampled_from(WORDS), st.sampled_from(PUNCTUATION))
separator = st.sampled_from([" ", " ", " ", " ", "\n", "  ", "\t"])
prose = st.lists(st.tuples(word, separator), min_size=1, max_size=120).map(
    lambda pairs: "".join(w + s for w, s in pairs).strip()
)
unpunctuated = st.lists(st.sampled_from(WORDS), min_size=100, max_size=700).map(" ".join)
long_word = st.builds(str.__mul__, st.sampled_from(["a", "ж", "9"]), st.integers(50, 4000))
heading = st.builds(
    lambda indent, level, words, tail: " " * indent + "#" * level + "".join(" " + w for w in words) + tail,
    st.integers(0, 3),
    st.integers(1, 6),
    st.lists(st.sampled_from(WORDS), max_size=4),
    st.sampled_from(["", "", " ##", " {#anchor}", " {/*anchor*/}", "\r"]),
)
not_heading = st.sampled_from(["#tag", "####### seven", "    # indented", "C# and F#", "```x``` inline"])
code_line = st.sampled_from(["x = 1", "# not a heading", "", "  return f(x).", "## nor this", "~~~~"])
fence = st.builds(
    # A "````" fence is not closed by "```": the rest of the text stays code.
    lambda opener, lines, closed: "\n".join([opener, *lines, opener[:3] if closed else ""]),
    st.sampled_from(["```", "```py", "~~~", "````"]),
    st.lists(code_line, max_size=60),
    st.sampled_from([True, True, True, False]),
)
blank = st.builds(str.__mul__, st.sampled_from([" ", "\t", " \n"]), st.integers(1, 400))
table_row = st.builds(lambda cells, pad: "|" + "|".join(f" {cell}{pad} " for cell in cells) + "|",
                      st.lists(prose, min_size=1, max_size=3), st.sampled_from(["", " " * 30]))
table = st.lists(table_row, min_size=1, max_size=40).map("\n".join)
block = st.one_of(heading, heading, prose, prose, prose, unpunctuated, long_word, not_heading, fence, blank, table)
text_start = st.sampled_from(["", "\n", "  \n\n"])
gap = st.sampled_from(["\n", "\n\n", "\n\n", "\n\n\n", "\n \n", "\r\n\r\n", "\n\t\n", " "])
document = st.lists(st.tuples(block, gap), max_size=30).map(lambda pairs: "".join(b + g for b, g in pairs))
limits = st.integers(100, 3000).flatmap(
    lambda size: st.tuples(st.just(size), st.integers(0, size // 4), st.integers(0, size // 2))
)


def test_a_table_ending_the_text_with_a_row_longer_than_a_chunk_is_cut():
    # The property test's find: a chunk ending inside the last row of a table ending the text looked for the text after
    # the table for its overlap, found none, and ingestion failed (AttributeError).
    text = "| install install install |\n| " + "install " * 15 + "|"
    for chunk_size, overlap in [(100, 4), (120, 25)]:
        chunks = split_text(text, chunk_size=chunk_size, overlap=overlap, min_size=0)
        check_chunks(text, chunks, chunk_size, overlap, 0)


def test_an_overlapping_chunk_blank_to_its_window_end_is_no_copy_of_the_previous_ones_end():
    # The property test's find: a chunk cut at a word, the next one started in its overlap, its window blank up to a
    # last word ("|") it could not take without leaving the last chunk too short; cut hard, it ended where the
    # previous one did, a chunk of words the previous chunk already held.
    text = ("\n     \n\t\n#tag  ## {#anchor}\n| install install install install" + " " * 31 + "|\n" + " \n" * 56
            + "\n\n   #####\n\n")
    chunks = split_text(text, chunk_size=128, overlap=31, min_size=6)
    check_chunks(text, chunks, 128, 31, 6)
    assert [chunk.content.split("\n")[0] for chunk in chunks] == [
        "#tag  ## {#anchor}", "install install install install" + " " * 31 + "|", "#####"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.tuples(text_start, document).map("".join), limits=limits)
def test_generated_texts_chunk_by_the_rules(text, limits):
    chunk_size, overlap, min_size = limits
    chunks = split_text(text, chunk_size=chunk_size, overlap=overlap, min_size=min_size)
    check_chunks(text, chunks, chunk_size, overlap, min_size)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.sampled_from("ab #`~.\n\t\r"), max_size=600), limits=limits)
def test_arbitrary_markup_characters_keep_the_invariants(text, limits):
    chunk_size, overlap, min_size = limits
    chunks = split_text(text, chunk_size=chunk_size, overlap=overlap, min_size=min_size)
    check_chunks(text, chunks, chunk_size, overlap, min_size)


# --- Examples -----------------------------------------------------------------------------------


def test_empty_and_blank_texts_have_no_chunks():
    assert split_text("") == []
    assert split_text(" \n\n\t ") == []


def test_small_text_is_one_chunk_without_surrounding_whitespace():
    text = "\n\n  Hello, world.  \n"
    assert split_text(text) == [TextChunk("Hello, world.", 4, 17, [])]


def test_paragraphs_accumulate_up_to_the_limit():
    paragraphs = [f"Paragraph {i} " + "word " * 40 + "end." for i in range(10)]
    text = "\n\n".join(paragraphs)
    chunks = split_text(text, chunk_size=1000, overlap=0, min_size=0)
    # Each paragraph is 219 characters: four of them (with separators) fit in 1000.
    assert [chunk.content for chunk in chunks] == ["\n\n".join(paragraphs[i : i + 4]) for i in (0, 4, 8)]


def test_long_paragraph_splits_at_sentence_ends_including_russian():
    text = " ".join(["Это предложение о пакетах Debian!"] * 30 + ["Is this English?"] * 30)
    chunks = split_text(text, chunk_size=300, overlap=0, min_size=0)
    assert len(chunks) > 3
    assert all(chunk.content[-1] in "!?" for chunk in chunks)
    check_chunks(text, chunks, 300, 0, 0)


def test_long_word_is_cut_hard_and_overlaps_exactly():
    text = "ж" * 1000
    chunks = split_text(text, chunk_size=300, overlap=50, min_size=0)
    assert [(c.start, c.end) for c in chunks] == [(0, 300), (250, 550), (500, 800), (750, 1000)]


def test_overlap_and_min_size_are_clipped_to_the_chunk_size():
    chunks = split_text("ж" * 400, chunk_size=100, overlap=500, min_size=500)
    assert [chunk.start for chunk in chunks] == [0, 50, 100, 150, 200, 250, 300]


def test_overlap_moves_forward_to_a_word_start():
    text = " ".join(f"w{i:03d}" for i in range(400))  # words of 4 characters
    chunks = split_text(text, chunk_size=500, overlap=100, min_size=0)
    for previous, chunk in zip(chunks, chunks[1:]):
        assert text[chunk.start - 1] == " "
        assert 100 - 24 <= previous.end - chunk.start <= 100
    check_chunks(text, chunks, 500, 100, 0)


def test_heading_paths_nest_replace_and_reset():
    body = "Some text about it. " * 15
    text = f"# A\n\n{body}\n\n## B\n\n{body}\n\n## C ##\n\n{body}\n\n# D {{#d}}\n\n{body}"
    chunks = split_text(text, chunk_size=2000, overlap=200, min_size=100)
    assert [chunk.heading_path for chunk in chunks] == [["A"], ["A", "B"], ["A", "C"], ["D"]]
    assert [chunk.content.split("\n")[0] for chunk in chunks] == ["# A", "## B", "## C ##", "# D {#d}"]


def test_short_sections_merge_with_the_following_one():
    body = "Words in a long enough section. " * 10
    text = f"# Install\n\n## Linux\n\n{body}\n\n## Windows\n\n{body}\n\n## Notes\n\nShort."
    chunks = split_text(text, chunk_size=2000, overlap=0, min_size=200)
    assert [chunk.content.split("\n")[0] for chunk in chunks] == ["# Install", "## Windows"]
    # "# Install" has nothing under it but "## Linux": the chunk's text is Linux's.
    assert chunks[0].heading_path == ["Install", "Linux"]
    assert chunks[1].content.endswith("Short.")  # a short last section joins the one before


def test_headings_inside_code_fences_are_ignored():
    text = "# Real\n\nIntro text.\n\n```sh\n# not a heading\necho hi\n```\n\n~~~\n## nor this\n~~~\nEnd."
    chunks = split_text(text, chunk_size=2000, overlap=0, min_size=0)
    assert [(chunk.heading_path, chunk.content) for chunk in chunks] == [(["Real"], text)]


def test_code_fence_that_fits_is_kept_whole():
    code = "```python\n" + "\n".join(f"value_{i} = compute({i})" for i in range(30)) + "\n```"
    prose = "A sentence of prose here. " * 20
    text = f"{prose}\n\n{code}\n\n{prose}"
    chunks = split_text(text, chunk_size=1000, overlap=100, min_size=100)
    assert len(code) < 900 and any(code in chunk.content for chunk in chunks)
    check_chunks(text, chunks, 1000, 100, 100)


def test_code_fence_longer_than_the_limit_splits_at_line_ends():
    code = "```\n" + "\n".join(f"line {i} of the code. x = {i}" for i in range(200)) + "\n```"
    chunks = split_text(code, chunk_size=500, overlap=0, min_size=0)
    assert len(chunks) > 5
    assert all(code[chunk.end] == "\n" for chunk in chunks[:-1])


def test_a_table_is_cut_at_its_rows_ends_and_overlaps_by_whole_rows():
    # express-rate-limit's options table was cut after "unavailable." inside a row; the next chunk began "nodes. |",
    # and the answers read two options as one.
    rows = [f"| [`option{i}`]{' ' * 10} | `boolean`{' ' * 20} | Allow it (`true`) or not. Then more words. |"
            for i in range(40)]
    text = "Options may be async.\n\n| Option | Type | Remarks |\n| --- | --- | --- |\n" + "\n".join(rows)
    chunks = split_text(text, chunk_size=1000, overlap=200, min_size=100)
    assert len(chunks) > 3
    for chunk in chunks:
        assert chunk.content.endswith("|") and chunk.content.split("\n")[-1].startswith("|")
    for chunk in chunks[1:]:
        assert chunk.content.startswith("| [`option")  # a whole row, said again
    check_chunks(text, chunks, 1000, 200, 100)
    small = "Intro line.\n\n| a | b |\n| --- | --- |\n| 1 | 2. |\n\nAfter it. " + "Words here. " * 60
    assert "| a | b |\n| --- | --- |\n| 1 | 2. |" in split_text(small, chunk_size=400, overlap=50)[0].content


def test_an_overlap_never_starts_inside_a_word_after_a_clean_cut():
    # helmet's README: a chunk opened with "org/en-US/docs/Glossary/Cross-site_scripting), but makes things worse".
    link = "[XSS attacks](https://developer.mozilla.org/en-US/docs/Glossary/Cross-site_scripting_and_more_of_it)"
    text = ("Intro words here. " * 20 + f"Legacy header that tries to mitigate {link}, but makes things worse.\n\n"
            + "Each header can be configured. " * 20)
    chunks = split_text(text, chunk_size=500, overlap=60, min_size=50)
    for chunk in chunks[1:]:
        assert chunk.start == 0 or text[chunk.start - 1].isspace(), chunk.content[:40]
    check_chunks(text, chunks, 500, 60, 50)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        split_text("text", chunk_size=0)
    with pytest.raises(ValueError):
        split_text("text", overlap=-1)


def test_token_estimate_and_version():
    assert token_estimate("") == 0
    assert token_estimate("a") == 1
    assert token_estimate("x" * 400) == 100
    assert isinstance(CHUNKER_VERSION, str) and CHUNKER_VERSION


# --- Real documents -----------------------------------------------------------------------------


MARKDOWN_FILES = sorted((DOCUMENTS / "md").glob("*/*.md"))


@pytest.mark.parametrize("path", MARKDOWN_FILES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_markdown_documents_chunk_by_the_rules(path):
    text = path.read_text(encoding="utf-8")
    check_chunks(text, split_text(text), 2000, 200, 200)


def test_react_doc_carries_heading_paths():
    text = (DOCUMENTS / "md" / "en" / "react-reference-react-useState.md").read_text(encoding="utf-8")
    paths = [chunk.heading_path for chunk in split_text(text)]
    assert ["Usage", "Adding state to a component", "Counter (number)"] in paths
    assert ["Reference", "useState(initialState)", "Parameters"] in paths  # read as it reads
    assert paths[0] == []  # the front matter comes before any heading


def test_large_russian_text_chunks_within_limits():
    text = (DOCUMENTS / "txt" / "debian-faq.ru.txt").read_text(encoding="utf-8")
    chunks = split_text(text)
    assert len(chunks) > 100
    check_chunks(text, chunks, 2000, 200, 200)
    # Hard-wrapped prose: nearly every chunk still ends at a sentence, line or paragraph end.
    line_ends = sum(text[chunk.end : chunk.end + 1] in ("\n", "") for chunk in chunks)
    assert line_ends > 0.9 * len(chunks)


def test_ten_megabytes_chunk_in_seconds():
    text = (DOCUMENTS / "txt" / "debian-faq.ru.txt").read_text(encoding="utf-8") * 55
    started = time.perf_counter()
    chunks = split_text(text)
    # About half a second on a laptop; the bound only catches quadratic behaviour.
    assert time.perf_counter() - started < 15
    assert len(text) > 10_000_000 and len(chunks) > 5000
