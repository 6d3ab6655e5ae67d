"""A repository's documentation translated into another language gives way to the one the question is in.

dotenv ships its README in English and in Spanish (README-es.md): "How do I install dotenv?" quoted both
install sections, "# instalación local (recomendado)" after "# install locally (recommended)".
"""

import pytest

from knowledge.search import answers, secondary
from knowledge.search.hits import SearchHit
from tests.factories import make_indexed_repo

README = """# dotenv

Dotenv loads environment variables from a .env file into process.env.

## Install

```bash
# install locally (recommended)
npm install dotenv --save
```
"""

README_ES = """# dotenv

Dotenv es un módulo de dependencia cero que carga las variables de entorno desde un archivo .env en process.env.

## Instalación

```bash
# instalación local (recomendado)
npm install dotenv --save
```
"""

README_RU = """# dotenv

Dotenv загружает переменные окружения из файла .env в process.env.

## Установка

```bash
# локальная установка (рекомендуется)
npm install dotenv --save
```
"""


def hit(path: str) -> SearchHit:
    return SearchHit(chunk_id=1, document_id=1, knowledge_base_id=1, document_title="", source_uri=f"repo:lib:{path}",
                     section_path="", page=None, layer="D0", content="", snippet="", distance=0.1, score=1.0, rank=1)


@pytest.mark.parametrize(("path", "language"), [
    ("README-es.md", "es"), ("README.zh-CN.md", "zh"), ("readme_pt-BR.md", "pt"), ("docs/guide.ja.md", "ja"),
    ("docs/ru/usage.md", "ru"), ("i18n/de/index.md", "de"), ("website/docs/fr/intro.rst", "fr"),
    # Not translations: a word ending in a language's code, a folder of the code, English's own.
    ("docs/how-to-use-it.md", ""), ("README.md", ""), ("src/id/README.md", ""), ("docs/guide.md", ""),
    ("docs/api.md", ""), ("CONTRIBUTING.md", ""),
])
def test_a_translations_language_is_read_from_its_path(path, language):
    assert secondary.translation_language(hit(path)) == language


def test_a_translation_is_secondary_unless_the_question_is_in_its_language():
    assert secondary.secondary_row(hit("README-es.md"), "How do I install dotenv?")
    assert secondary.secondary_row(hit("docs/ru/usage.md"), "How do I install dotenv?")
    assert not secondary.secondary_row(hit("docs/ru/usage.md"), "Как установить dotenv?")
    assert not secondary.secondary_row(hit("README.en.md"), "How do I install dotenv?")
    assert not secondary.secondary_row(hit("README.md"), "Как установить dotenv?")


@pytest.mark.django_db
def test_a_question_is_answered_from_the_documentation_in_its_language(tmp_path):
    kb = make_indexed_repo(tmp_path / "dotenv", {"README.md": README, "README-es.md": README_ES,
                                                  "README.ru.md": README_RU, "lib/main.js": "module.exports = {}\n"})
    english = answers.answer("How do I install dotenv?", [kb.pk])
    assert not english.refused, english.reasons
    assert "npm install dotenv --save" in english.text
    assert [citation.hit.source_uri for citation in english.citations] == ["repo:dotenv:README.md"], english.text
    # The translations' rows come after the English ones, however close they are.
    translated = [bool(secondary.translation_language(source)) for source in english.sources]
    assert True in translated and translated == sorted(translated), [source.source_uri for source in english.sources]
    russian = answers.answer("Как установить dotenv?", [kb.pk])
    assert not russian.refused, russian.reasons
    assert [citation.hit.source_uri for citation in russian.citations] == ["repo:dotenv:README.ru.md"], russian.text
