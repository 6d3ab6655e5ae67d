"""A page of API reference that only names its code (mkdocstrings' `::: name`) is read as that code.

validators' docs/api/ip_address.md is "# ip_address" over `::: validators.ip_address.ipv4` and `::: …ipv6`: indexed,
it is its title alone, and "How do I validate an IP address?" found three such pages first and was refused.
"""

import pytest

from knowledge.models import Chunk
from knowledge.search import answers, composer, layer_text, reference_pages, retrieval
from tests.factories import make_indexed_repo
from tests.knowledge.test_composer import hit

CHECKS = '''"""Checks of values."""


def ipv4(value):
    """Return whether a given value is a valid IPv4 address."""
    return value.count(".") == 3


def ipv6(value):
    """Return whether a given value is a valid IPv6 address."""
    return ":" in value
'''
FILES = {"kit/__init__.py": '"""Kit."""\n', "kit/checks.py": CHECKS,
         "docs/api/ip_address.md": "# ip_address\n\n::: kit.checks.ipv4\n::: kit.checks.ipv6\n    options:\n"
                                   "      show_source: false\n",
         "docs/api/checks.md": "# checks\n\n::: kit.checks\n",
         "docs/guide.md": "# Guide\n\nEvery check returns a boolean.\n\n::: kit.checks.ipv4\n"}


def test_a_section_of_identifiers_only_names_its_code():
    assert reference_pages.named_code(hit(1, "# ip_address\n\n::: kit.checks.ipv4\n::: kit.checks.ipv6\n")) == [
        "kit.checks.ipv4", "kit.checks.ipv6"]
    assert reference_pages.named_code(hit(1, "# url\n\n::: kit.url.url\n    options:\n      heading_level: 2\n")) \
        == ["kit.url.url"]
    assert reference_pages.named_code(hit(1, "# Guide\n\nEvery check returns a boolean.\n\n::: kit.checks.ipv4\n")) \
        == [], "a section with text of its own"
    assert reference_pages.named_code(hit(1, "# Admonition\n\n::: note\n")) == ["note"]  # no code: nothing found


@pytest.mark.django_db
def test_the_code_a_page_names_takes_its_place_among_the_sources(tmp_path):
    kb = make_indexed_repo(tmp_path / "kit", FILES)

    def section(path: str):
        ids = Chunk.objects.filter(knowledge_base=kb, layer="D0", metadata__source_path=path).values_list("id",
                                                                                                       flat=True)
        return retrieval.hits_of(list(ids))[0]

    page, module_page, guide = section("docs/api/ip_address.md"), section("docs/api/checks.md"), section(
        "docs/guide.md")
    placed = reference_pages.with_named_code([page, module_page, guide], [kb.pk])
    assert [(each.layer, each.metadata.get("qname") or each.metadata.get("source_path")) for each in placed] == [
        ("C0", "kit.checks.ipv4"), ("C0", "kit.checks.ipv6"), ("D0", "docs/guide.md")], "a module's page dropped"
    assert layer_text.quotable(placed[0], question="How do I validate an IP address?") == (
        "`kit.checks.ipv4` (kit/checks.py): Return whether a given value is a valid IPv4 address.")
    # Once each: a symbol already among the hits keeps its first place.
    again = reference_pages.with_named_code([placed[1], page], [kb.pk])
    assert [each.metadata.get("qname") for each in again] == ["kit.checks.ipv6", "kit.checks.ipv4"]
    # An answer's sources: the code in the page's place.
    question = "How do I validate an IP address?"
    found = retrieval.retrieve(question, [kb.pk], top_k=6, mode="keyword").hits
    assert any(each.chunk_id == page.chunk_id for each in found)
    grounding = answers.ground(question, [kb.pk], mode="keyword", threshold=0)
    assert page.chunk_id not in {each.chunk_id for each in grounding.sources}
    assert {"kit.checks.ipv4", "kit.checks.ipv6"} <= {each.metadata.get("qname") for each in grounding.sources}


def test_a_chunk_cut_inside_its_docstring_still_says_what_it_does():
    # validators' `url`: its long signature and diagram left the docstring's end to the next chunk, and "How do I check
    # if a URL is valid?" found nothing to quote in it.
    cut = hit(1, 'def url(\n    value: str,\n    /,\n    *,\n    strict: bool = True,\n):\n    r"""Return whether or '
                 'not given value is a valid URL.\n\n    The following diagram is from urlly::\n\n        foo://admin@'
                 'example.com:8042/over/there\n        \\\\_/   \\\\___/\n', qname="validators.url.url",
              source_path="src/validators/url.py")
    cut.layer = "C0"
    assert layer_text.quotable(cut, question="How do I check if a URL is valid?") == (
        "`validators.url.url` (src/validators/url.py): Return whether or not given value is a valid URL.")


def test_a_source_with_nothing_to_quote_takes_no_place_of_those_an_extract_reads():
    # validators' "How do I check if a URL is valid?": docs/api/url.md ("# url" over `::: validators.url.url`) and its
    # catalog row, the title "url" alone, were two of the three sources an extract reads.
    stub = hit(1, "# url\n\n::: validators.url.url\n")
    card = hit(2, "url")
    card.layer, card.document_title = "D1", "url"
    usage = hit(3, "## Usage\n\nCall `url(value)`: it returns True for a valid URL.")
    other = hit(4, "## Errors\n\nA failure is falsy.")
    quoted, _ = composer._quoted_sources("How do I check if a URL is valid?", [stub, card, usage, other])
    assert sorted(quoted) == [3, 4]
