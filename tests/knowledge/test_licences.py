"""A repository's licence, asked about: its licence file quoted as the licence it is (never its clauses), its
manifest as the licence it declares."""

import pytest

from knowledge.indexing.layers import store
from knowledge.indexing.layers.manifests import declared_license, license_of
from knowledge.models import Chunk
from knowledge.search import answers, layer_text, licences, retrieval
from knowledge.search.licences import licence_named
from tests.factories import make_indexed_repo, make_kb

BSD = """Copyright 2011 Pallets

Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are
met:

1.  Redistributions of source code must retain the above copyright
    notice, this list of conditions and the following disclaimer.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES.
"""


def test_a_licence_file_is_the_licence_its_title_or_its_wording_names():
    assert licence_named("(The MIT License)\n\nCopyright (c) 2014 TJ\n\nPermission is hereby granted") == "MIT License"
    assert licence_named("The ISC License\n\nCopyright (c) Isaac Z. Schlueter") == "ISC License"
    assert licence_named("## BSD 3-Clause License\n\nCopyright (c) 2014") == "BSD 3-Clause License"
    assert licence_named("                                 Apache License\n   Version 2.0, January 2004") == \
        "Apache License"
    assert licence_named(BSD) == "BSD License"
    mit = "Copyright (c) 2012 Erik Rose\n\nPermission is hereby granted, free of charge, to any person"
    assert licence_named(mit) == "MIT License"
    assert licence_named("This is free and unencumbered software released into the public domain.") == "Unlicense"
    assert licence_named("Copyright (c) 2020 Someone. All rights reserved.") == ""


def test_a_manifest_declares_its_licence_by_field_or_classifier():
    pyproject = ('[project]\nname = "kit"\nlicense = { file = "LICENSE.txt" }\nclassifiers = [\n'
                 '    "License :: OSI Approved :: BSD License",\n    "Typing :: Typed",\n]\n')
    assert declared_license(pyproject) == "BSD License", "a file named is no licence; the classifier names it"
    assert declared_license('[project]\nlicense = "MIT"\n') == "MIT"
    assert declared_license('[project]\nlicense = {text = "Apache-2.0"}\n') == "Apache-2.0"
    assert declared_license('{"name": "kit", "license": "ISC"}') == "ISC"
    assert declared_license("[metadata]\nname = kit\nlicense = MIT\nlicense_files = LICENSE\n") == "MIT"
    assert declared_license('[project]\nname = "kit"\n') == ""
    # A chunk of a manifest, which does not parse, names its package as written: "`commander` is licensed …".
    assert license_of("package.json", '{\n  "name": "@acme/kit",\n  "license": "MIT",\n  "scripts": {') == (
        "kit", "MIT")


@pytest.mark.django_db
def test_a_repositorys_licence_is_answered_from_its_files_and_its_clauses_never_quoted(tmp_path):
    # itsdangerous' LICENSE.txt is a BSD licence without its name, which its pyproject.toml's classifier gives;
    # semver's LICENSE is titled "The ISC License" and nothing else says it. Neither file was indexed.
    repo = tmp_path / "kit"
    repo.mkdir()
    (repo / "LICENSE.txt").write_text(BSD)
    (repo / "pyproject.toml").write_text('[project]\nname = "kit"\nclassifiers = [\n'
                                         '    "License :: OSI Approved :: BSD License",\n]\n')
    (repo / "README.md").write_text("# kit\n\nKit signs data.\n\n## Usage\n\nCall `kit.sign(data)` to sign data.\n")
    kb = make_kb()
    store.index_repository(kb, repo)
    result = answers.answer("What license is kit under?", [kb.pk])
    assert not result.refused, result.reasons
    assert "is licensed under the BSD License (" in result.text
    assert "WARRANTIES" not in result.text and "Redistribution" not in result.text
    other = answers.answer("How do I sign data with kit?", [kb.pk])
    assert "licensed" not in other.text and "Redistribution" not in other.text


@pytest.mark.django_db
def test_the_licence_rows_come_first_for_a_question_about_the_licence(tmp_path):
    # semver's "What license is semver under?": keyword search found its LICENSE ("The ISC License"), hybrid ranking
    # left it out, the question's vector being far from any licence.
    repo = tmp_path / "semver"
    repo.mkdir()
    (repo / "LICENSE").write_text("The ISC License\n\nCopyright (c) Isaac Z. Schlueter and Contributors\n\n"
                                  "Permission to use, copy, modify, and/or distribute this software.\n")
    (repo / "package.json").write_text('{\n  "name": "semver",\n  "version": "7.6.3",\n  "license": "ISC"\n}\n')
    (repo / "README.md").write_text("# semver\n\nThe semantic versioner for npm.\n")
    # Neither a NOTICE (it attributes others' code: marshmallow's names Django's BSD licence) nor an example app's
    # manifest (flask's examples/tutorial/pyproject.toml) says the project's licence before its own files.
    (repo / "NOTICE").write_text("semver includes code adapted from Django, under the BSD License.\n")
    (repo / "examples" / "app").mkdir(parents=True)
    (repo / "examples" / "app" / "package.json").write_text('{"name": "app", "license": "Apache-2.0"}\n')
    kb = make_kb()
    store.index_repository(kb, repo)
    first = licences.licence_first("What license is semver under?", [], [kb.pk])
    assert [hit.metadata["source_path"] for hit in first] == ["LICENSE", "package.json"]
    notice = retrieval.hits_of(list(Chunk.objects.filter(knowledge_base=kb, layer="D0", metadata__source_path="NOTICE")
                                    .values_list("id", flat=True)))
    assert notice and licences.statement_of(notice[0]) == ""
    assert layer_text.quotable(first[0], question="What license is semver under?") == \
        "The project is licensed under the ISC License (LICENSE)."
    assert layer_text.quotable(first[1], question="Which licence does semver use?") == \
        "`semver` is licensed under the ISC license (package.json)."
    assert layer_text.quotable(first[0], question="How do I compare versions?") == "", "its clauses never"


def test_a_question_about_the_licence_is_told_from_one_naming_a_product_or_an_option():
    for question in ("What license is kit under?", "Is kit open source?", "Who holds the copyright?",
                     "Which licence does kit use?", "Под какой лицензией kit?"):
        assert licences.ASKED.search(question), question
    for question in ("How do I run kit behind Apache?", "What does the licenseKey option do?", "Is it MIT-based?"):
        assert not licences.ASKED.search(question), question


@pytest.mark.django_db
def test_a_licence_file_first_makes_the_licence_question_answerable_however_far_its_clauses(tmp_path):
    # itsdangerous' "What license is itsdangerous under?" found its LICENSE.txt first (`licence_first`), but a BSD
    # licence's clauses are far in meaning from any question: confidence 0.58, refused.
    kb = make_indexed_repo(tmp_path / "kit", {"LICENSE.txt": BSD, "README.md": "# kit\n\nKit signs data.\n"})
    first = licences.licence_first("What license is kit under?", [], [kb.pk])
    far = retrieval.Retrieval(hits=first, best_similarity=0.3, keyword_fallback_used=False, timings={},
                              best_relevance=0.35, relevant_count=1)
    grounding = answers.judge("What license is kit under?", far, threshold=0.6)
    assert grounding.refusal is None and grounding.confidence == answers.NAMED_ENTRY_CONFIDENCE, grounding.reasons
    # Asked anything else, the licence file lifts nothing.
    grounding = answers.judge("How do I sign data?", far, threshold=0.6)
    assert grounding.refusal is not None and grounding.confidence < 0.6


@pytest.mark.django_db
def test_a_licence_said_by_its_file_is_not_followed_by_sentences_saying_nothing_of_licensing(tmp_path):
    # python-decouple's "What license is python-decouple under?": "The project is licensed under the MIT License
    # (LICENSE). [1] Decouple supports both Python 2.7 and 3.6. [3] I use pyenv to manage multiple Python versions …"
    readme = ("Python Kit\n==========\n\nKit reads settings for python programs.\n\nContribute\n----------\n\n"
              "Kit supports both Python 2.7 and 3.6 under python kit's own test runner. I use pyenv to manage "
              "multiple Python versions.\n\nLicense\n-------\n\nKit is licensed under the MIT license.\n")
    kb = make_indexed_repo(tmp_path / "python-kit", {
        "LICENSE": "The MIT License\n\nCopyright (c) 2013 Someone\n\nPermission is hereby granted, free of charge, to "
                   "any person obtaining a copy of this software.\n", "README.rst": readme})
    result = answers.answer("What license is python-kit under?", [kb.pk])
    assert result.text.startswith("The project is licensed under the MIT License (LICENSE). [1]"), result.text
    assert "pyenv" not in result.text and "reads settings" not in result.text, result.text


@pytest.mark.django_db
def test_the_licence_of_a_project_the_repository_carries_is_not_its_own(tmp_path):
    # bleach's "What license does it use?" said "The project is licensed under the MIT License
    # (bleach/_vendor/html5lib-1.1.dist-info/LICENSE)." after its own Apache licence: html5lib's, which it vendors.
    kb = make_indexed_repo(tmp_path / "cleaner", {
        "LICENSE": "Apache License\nVersion 2.0, January 2004\n\nTERMS AND CONDITIONS FOR USE, REPRODUCTION.\n",
        "cleaner/_vendor/html5lib-1.1.dist-info/LICENSE": "MIT License\n\nPermission is hereby granted, free of "
                                                          "charge, to any person obtaining a copy.\n",
        "README.md": "# cleaner\n\nClean HTML.\n"})
    result = answers.answer("What license does cleaner use?", [kb.pk])
    assert not result.refused, result.reasons
    assert "under the Apache License" in result.text and "MIT" not in result.text, result.text
