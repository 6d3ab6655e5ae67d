"""The read side of a knowledge base: questions in, passages and answers out.

* `sql`         every raw statement (ANN, full-text, hybrid RRF) as a builder returning `(sql, params)`.
* `retrieval`   vector, full-text and hybrid search over one or more bases.
* `reranking`   the optional second pass over the retrieved passages.
* `intent`      the intent router: plans which layers and filters a question needs and runs the plan.
* `generation`  the answer generators (extractive, OpenAI-compatible) and their prompt.
* `answers`     a grounded answer with citations from retrieved passages.
* `citations`   the `[n]` marker grammar of answers.
"""
