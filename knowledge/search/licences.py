"""What a repository says it is licensed under, as an extract quotes it: a licence file by the licence it is — its
title when it names one ("The ISC License", "(The MIT License)"), else the wording every copy of a licence has
("Redistribution and use in source and binary forms …" is a BSD licence's) — and a manifest by the licence it
declares (`manifests.license_of`). A licence's clauses answer nothing a support question asks: its file is quoted
only as the licence it is.
"""

import re
from pathlib import PurePosixPath

from knowledge.indexing.layers.manifests import MANIFEST_NAMES, license_of
from knowledge.models import Chunk
from knowledge.search import retrieval
from knowledge.search.hits import SearchHit
from knowledge.search.secondary import VENDORED_PATH
from knowledge.search.words import word_stems

# A question about the licence itself (not one naming a product that gives a licence its name: "How do I run it behind
# Apache?", nor an option's name: `licenseKey`).
ASKED = re.compile(r"\blicen[cs](?:e[sd]?|ing)\b|\bcopyright|\bopen[- ]source\b|лиценз", re.IGNORECASE)
# The licence files' and manifests' rows put first for a question about the licence (`licence_first`), of those read.
LICENCE_ROWS, MOST_READ = 2, 20
_MANIFEST_PATH = rf"(^|/)({'|'.join(map(re.escape, MANIFEST_NAMES))})$"
# A file of the project's licence: LICENSE, LICENCE, COPYING, any extension (LICENSE-MIT, LICENSE.txt).
_LICENCE_FILE = re.compile(r"(^|/)(licen[cs]e|copying)([-_.][^/]*)?$", re.IGNORECASE)

# A first line naming its licence: "MIT License", "(The MIT License)", "BSD 3-Clause License", "Apache License".
_TITLE = re.compile(r"^\W*(?:the\s+)?((?:MIT|ISC|BSD[\w -]*?|Apache|GNU [\w ]+?|Mozilla Public|Eclipse Public"
                    r"|Artistic|zlib|Boost Software)\s+Licen[cs]e)\b", re.IGNORECASE)
# The wording of the licences whose copies open with a copyright line instead.
_WORDING = (
    (re.compile(r"Permission is hereby granted, free of charge", re.IGNORECASE), "MIT License"),
    (re.compile(r"Redistribution and use in source and binary forms", re.IGNORECASE), "BSD License"),
    (re.compile(r"Permission to use, copy, modify, and(?:/or)? distribute this software for any purpose",
                re.IGNORECASE), "ISC License"),
    (re.compile(r"Apache License,?\s+Version 2\.0", re.IGNORECASE), "Apache License 2.0"),
    (re.compile(r"GNU LESSER GENERAL PUBLIC LICENSE", re.IGNORECASE), "GNU Lesser General Public License"),
    (re.compile(r"GNU AFFERO GENERAL PUBLIC LICENSE", re.IGNORECASE), "GNU Affero General Public License"),
    (re.compile(r"GNU GENERAL PUBLIC LICENSE", re.IGNORECASE), "GNU General Public License"),
    (re.compile(r"Mozilla Public License,? (?:Version|v\.?) ?2\.0", re.IGNORECASE), "Mozilla Public License 2.0"),
    (re.compile(r"free and unencumbered software released into the public domain", re.IGNORECASE), "Unlicense"),
)


def licence_named(text: str) -> str:
    """The licence a licence file's text is ("" when it is none known): its first line's name, else its wording."""
    first = next((line for line in text.split("\n") if line.strip(" #\t")), "").strip(" #\t")
    if title := _TITLE.match(first):
        return " ".join(title.group(1).split())
    return next((name for wording, name in _WORDING if wording.search(text)), "")


def licence_statement(path: str, text: str, *, manifest: bool) -> str:
    """The sentence an extract quotes of a licence file or a manifest at `path` for a question about the licence: "The
    project is licensed under the MIT License (LICENSE)."; "" when it names none."""
    name, licence = license_of(path, text) if manifest else ("", licence_named(text))
    if not licence:
        return ""
    written = licence if re.search(r"licen[cs]e", licence, re.IGNORECASE) else f"{licence} license"
    # (A package's name as code, as a row's qualified name is, so it is not taken for the tail of a cut sentence.)
    return f"{f'`{name}`' if name else 'The project'} is licensed under the {written} ({path})."


def statement_of(hit: SearchHit) -> str:
    """What a source says of the licence (`licence_statement`): a manifest's declared licence, a licence file's opening
    (not a later chunk's clauses, nor a NOTICE, which attributes the code of others: marshmallow's names Django's
    BSD licence), nor another project's the repository carries; "" for any other source."""
    meta = hit.metadata or {}
    path = meta.get("source_path", "")
    if VENDORED_PATH.search(path):  # another project's, which the repository carries (bleach's html5lib)
        return ""
    if PurePosixPath(path).name in MANIFEST_NAMES:
        return licence_statement(path, hit.content or "", manifest=True)
    if _LICENCE_FILE.search(path) and not meta.get("position"):
        return licence_statement(path, hit.content or "", manifest=False)
    return ""


def licence_first(question: str, hits: list[SearchHit], kb_ids) -> list[SearchHit]:
    """The hits with the rows saying the bases' licence first (`statement_of`) — of the repository the question names
    when the bases hold several, its own before an example app's (flask's examples/tutorial/pyproject.toml) — for a
    question about the licence (`ASKED`): search found semver's LICENSE ("The ISC License") by its words only, and
    hybrid ranking left it out of the sources, the question's vector being far from any licence."""
    rows = Chunk.objects.filter(knowledge_base_id__in=list(kb_ids), enabled=True)
    # (A BSD licence's text never says "license".)
    files = rows.filter(layer="D0", metadata__doc_kind="license", position=0).order_by("document_id")
    manifests = rows.filter(layer="C0", metadata__source_path__iregex=_MANIFEST_PATH,
                            content__iregex=r"licen[cs]e").order_by("document_id", "position")
    candidates = retrieval.hits_of([*files.values_list("id", flat=True)[:MOST_READ],
                                    *manifests.values_list("id", flat=True)[:MOST_READ]])
    asked = word_stems(question)

    def rank(hit: SearchHit) -> tuple[bool, int]:
        repo = re.sub(r"[-_.]", " ", (hit.metadata or {}).get("repo_id", ""))
        return not word_stems(repo) & asked, (hit.metadata or {}).get("source_path", "").count("/")

    chosen = sorted((hit for hit in candidates if statement_of(hit)), key=rank)[:LICENCE_ROWS]
    ids = {hit.chunk_id for hit in chosen}
    return chosen + [hit for hit in hits if hit.chunk_id not in ids] if chosen else hits
