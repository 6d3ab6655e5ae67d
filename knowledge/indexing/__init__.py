"""The write side of a knowledge base: files and repositories in, searchable chunks out.

* `parsing`       files → text and metadata, one module per format.
* `chunking`      text → heading-aware chunks.
* `embedding`     the registry of embedders.
* `ingestion`     one document: parse, chunk, embed and swap its chunks in atomically.
* `vector_index`  the per-base partial HNSW index DDL.
* `layers`        the layered index: documentation layers D0–D6 and code layers C0–C4.
"""
