"""One Markdown reader: the chunker, the parsers' titles and the layered index see the same headings."""

from knowledge.indexing.chunking import split_text
from knowledge.indexing.layers.docs import read_sections
from knowledge.indexing.markdown import fenced_lines, first_heading

TEXT = """# C#

Intro about the language.

## Setup {#setup}

Install it.

~~~text
# not a heading
~~~

### Closing hashes ###

Done.
"""


def test_chunker_parser_and_layers_read_the_same_titles():
    titles = ["C#", "Setup", "Closing hashes"]
    assert [section.title for section in read_sections(TEXT)] == titles
    assert first_heading(TEXT) == "C#"
    paths = [chunk.heading_path for chunk in split_text(TEXT, chunk_size=60, overlap=0, min_size=0)]
    assert ["C#", "Setup", "Closing hashes"] in paths
    assert all("not a heading" not in path for chunk_path in paths for path in chunk_path)


def test_sections_keep_file_lines_and_fenced_text():
    setup = read_sections(TEXT, first_line=3)[1]
    assert (setup.line, setup.section_path) == (7, "C# > Setup")
    assert "# not a heading" in setup.text
    assert fenced_lines(TEXT) == {8, 9, 10}
