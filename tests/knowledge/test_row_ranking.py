"""A table's rows matched only by what all of them share give way to the other hits after the first."""

from dataclasses import replace

from django.test import TestCase

from knowledge.indexing import ingestion
from knowledge.search import answers, retrieval, rows
from tests.factories import make_kb
from tests.knowledge.test_composer import hit

# A documentation page as the demo base's README is: a benchmark's table by file format, and the section
# that says which formats an upload takes.
GUIDE = """# Guide

## Benchmarks

### Parsing

| format | files | parsed | failed | characters |
|---|---|---|---|---|
| txt | 5 | 5 | 0 | 51,210 |
| html | 11 | 11 | 0 | 220,394 |
| docx | 35 | 33 | 2 | 52,385 |
| pdf | 18 | 14 | 4 | 431,167 |
| csv | 2 | 2 | 0 | 9,120 |
| md | 28 | 28 | 0 | 310,002 |

## Uploading

An upload may hold up to 200 documents at once. Supported types: Markdown, plain text, CSV, PDF, Word and
Excel documents, HTML pages and scanned images. Anything else is refused before it is stored, each
document with the reason, and the rest of the upload goes on.
"""


def row(n: int, content: str, document: int = 1):
    return replace(hit(n, content, entry={"kind": "row", "row": n}), document_id=document)


class RepeatedRowsTests(TestCase):
    def test_the_rows_after_the_first_of_a_table_naming_no_value_asked(self):
        found = [row(1, "format: txt\nfiles: 5"), hit(2, "The supported file types are Markdown and PDF."),
                 row(3, "format: pdf\nfiles: 18"), row(4, "format: csv\nfiles: 2"),
                 row(5, "format: md\nfiles: 28", document=9)]  # another document's table
        self.assertEqual(rows.repeated_rows("What file formats are supported?", found), {2, 3})
        # Rows naming what the question names are told apart by it: none repeats another.
        self.assertEqual(rows.repeated_rows("How many pdf and csv files were parsed?", found), set())
        cities = [row(1, "Город: Канск\nНаселение: 94 230"), row(2, "Город: Казань\nНаселение: 1 216 965"),
                  row(3, "Город: Курган\nНаселение: 333 640")]
        self.assertEqual(rows.repeated_rows("What is the population of Kazan?", cities), {2})

    def test_a_tables_rows_do_not_crowd_out_the_section_answering(self):
        kb = make_kb()
        ingestion.ingest_text(kb, title="Guide", text=GUIDE, source_uri="guide.md")
        hits = retrieval.search("What file formats are supported?", [kb.pk], top_k=6)
        self.assertEqual([found.section_path for found in hits[:2]].count("Guide > Uploading"), 1)  # 7th before
        result = answers.answer("What file formats are supported?", [kb.pk], threshold=0.0)
        self.assertIn("Supported types: Markdown, plain text, CSV, PDF, Word and Excel documents", result.text)
        # Asked about a format, its row comes first.
        self.assertTrue(retrieval.search("How many pdf files failed?", [kb.pk], top_k=3)[0].content
                        .startswith("format: pdf"))
