"""The intent router's vocabulary: aliases of documents, services and entities → their ids.

It comes from the D1 (catalog: id, name, title, aliases) and D3 (entities) rows of the bases, and
is cached per base in the process. Its `code` set holds the code names of the bases (C1 symbol
names and qualified names, C3 command names, lower-cased): a word of a question becomes a symbol
filter only when it is one of them, so "PostgreSQL" or "command line" never filter on a symbol
the repository does not have. A base's cached entry is keyed by a version read in one small
query (how many documents it has and when the last one changed): every change of its rows goes
through its documents (`mark_ready` on a re-index, deletions cascade), so a changed base is read
again and an unchanged one costs that one query instead of all its D1/D3 rows.
"""

import re

from django.db.models import Count, Max, Q

from knowledge.indexing.layers.markdown import DOC_EXTENSIONS
from knowledge.models import Chunk, Document
from knowledge.search.words import code_words

CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
ENGLISH_ENDINGS = ("ations", "ation", "ions", "ion", "ings", "ing", "es", "ed", "e", "s")


class Vocabulary(dict):
    """Alias → id, plus `code`: the code names of the bases (lower-cased), and `symbols`: the same
    names as written (C1 names and qualified names, C3 commands), for names a question may only
    use as they are spelled (`Config`, `LOGGING_CONFIG`, `dotenv.main`). `commands` are the C3
    command lines (lower-cased: "qcluster" names a command only as a command, never as a symbol),
    `env_vars` the environment variables the D6 rows name, `settings` the settings they name, and
    `readmes` the ids of the repositories' README documents (a question naming the project names the
    whole repository), `projects` the package names the manifests beside them give → those READMEs ("What is
    attrs?" of a README titled "README"), and `modules` each source file's path → its module's qualified name
    (`lib/option.js` → `lib.option`: a question may name a module by its file)."""

    def __init__(self, *args, code=(), symbols=(), commands=(), env_vars=(), settings=(), readmes=(), modules=None,
                 projects=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.code: set[str] = set(code)
        self.symbols: set[str] = set(symbols)
        self.commands: set[str] = set(commands)
        self.env_vars: set[str] = set(env_vars)
        self.settings: set[str] = set(settings)
        self.readmes: set[str] = set(readmes)
        self.modules: dict[str, str] = dict(modules or {})
        self.projects: dict[str, str] = dict(projects or {})
        self._by_suffix: dict[str, list[str]] | None = None
        self._parts: set[str] | None = None

    def qualified(self, name: str) -> list[str]:
        """The qualified names of the bases that are `name` or end with it at a dot (`Config.load`
        → `uvicorn.config.Config.load`), as written."""
        if self._by_suffix is None:
            self._by_suffix = {}
            for qname in sorted(self.symbols):
                parts = qname.split(".")
                for start in range(len(parts)):
                    self._by_suffix.setdefault(".".join(parts[start:]), []).append(qname)
        return list(self._by_suffix.get(name, []))

    def names_part(self, word: str) -> bool:
        """Whether `word` is a whole part of one of the bases' code names, between underscores or at a camelCase
        hump ("tryfirst" of `test_adding_nonwrappers_tryfirst`, "extra" of `HookCaller.callExtra`), in any case; not
        a package's or module's name it is qualified by (the module `src.hydration` is no name of `hydrate`)."""
        if self._parts is None:
            self._parts = {part for name in self.symbols
                           for part in code_words(name.rpartition(".")[2]).lower().split()}
        return word.lower() in self._parts


# kb id → (version, its vocabulary). One entry per base: a new version replaces the old one.
_cache: dict[int, tuple[tuple, Vocabulary]] = {}


def load_vocabulary(kb_ids) -> Vocabulary:
    """Aliases → ids from the bases' catalog (D1) and entities (D3); the first base's alias wins."""
    kb_ids = list(dict.fromkeys(kb_ids))
    versions = {row["knowledge_base_id"]: (row["documents"], row["changed"]) for row in
                Document.objects.filter(knowledge_base_id__in=kb_ids).values("knowledge_base_id")
                .annotate(documents=Count("pk"), changed=Max("updated_at")).order_by()}
    stale = [kb_id for kb_id in kb_ids if kb_id not in _cache or _cache[kb_id][0] != versions.get(kb_id)]
    if stale:
        for kb_id, vocabulary in _read(stale).items():
            _cache[kb_id] = (versions.get(kb_id), vocabulary)
    merged = Vocabulary()
    for kb_id in kb_ids:
        for alias, identifier in _cache[kb_id][1].items():
            merged.setdefault(alias, identifier)
        for name in ("code", "symbols", "commands", "env_vars", "settings", "readmes"):
            getattr(merged, name).update(getattr(_cache[kb_id][1], name))
        for path, qname in _cache[kb_id][1].modules.items():
            merged.modules.setdefault(path, qname)
        for project, readme in _cache[kb_id][1].projects.items():
            merged.projects.setdefault(project, readme)
    return merged


def _read(kb_ids: list[int]) -> dict[int, Vocabulary]:
    vocabularies = {kb_id: Vocabulary() for kb_id in kb_ids}
    code = (Chunk.objects.filter(Q(layer__in=["C1", "C3"])
                                 | Q(layer="D6", metadata__target_type__in=["env_var", "setting"]),
                                 knowledge_base_id__in=kb_ids)
            .values_list("knowledge_base_id", "layer", "metadata__name", "metadata__qname",
                         "metadata__route_or_command", "metadata__entry_type", "metadata__target",
                         "metadata__target_type", "metadata__kind", "metadata__source_path"))
    for kb_id, layer, name, qname, command, entry_type, target, target_type, kind, path in code:
        vocabulary = vocabularies[kb_id]
        if layer == "D6":
            (vocabulary.settings if target_type == "setting" else vocabulary.env_vars).add(target)
            continue
        if kind == "module" and path and qname:
            vocabulary.modules.setdefault(path, qname)
        values = [value for value in (name, qname, command) if value]
        vocabulary.code.update(value.lower() for value in values)
        vocabulary.symbols.update(values)
        if command and entry_type == "cli":
            vocabulary.commands.add(command.lower())
    rows = (Chunk.objects.filter(knowledge_base_id__in=kb_ids, layer__in=["D1", "D3"])
            .order_by("knowledge_base_id", "document_id", "layer", "position")
            .values_list("knowledge_base_id", "layer", "metadata"))
    for kb_id, layer, meta in rows:
        vocabulary = vocabularies[kb_id]
        if layer == "D1":
            identifier = meta.get("document_id", "")
            if meta.get("doc_kind") == "readme" and meta.get("repo_id"):
                vocabulary.readmes.add(identifier)
                for project in meta.get("project_names", []):
                    vocabulary.projects.setdefault(project, identifier)
            for alias in (identifier, meta.get("name"), meta.get("title"), *meta.get("aliases", [])):
                if alias and not alias.endswith(DOC_EXTENSIONS):
                    vocabulary.setdefault(alias.replace("-", " ").replace("_", " "), identifier)
        elif meta.get("entity_type") != "document" and meta.get("entity_name"):
            vocabulary.setdefault(meta["entity_name"], meta["entity_name"])
    return vocabularies


def is_code_name(name: str, vocabulary) -> bool:
    """Whether `name` is a code name of the bases; True when the vocabulary does not list them."""
    code = getattr(vocabulary, "code", None)
    if code is None:
        return True
    name = name.lower()
    return any(form in code for form in (name, name.rsplit(".", 1)[-1], name.replace("-", "_"),
                                         name.replace("_", "-")))


def find_subject(text: str, vocabulary: dict[str, str]) -> str:
    """The id whose alias appears in the question (all its words, allowing Russian endings)."""
    words = re.findall(r"\w+", text.lower())
    best, best_len = "", 0
    for alias, identifier in vocabulary.items():
        parts = re.findall(r"\w+", alias.lower())
        if parts and len(parts) > best_len and all(any(_same_word(p, w) for w in words) for p in parts):
            best, best_len = identifier, len(parts)
    return best


def _same_word(a: str, b: str) -> bool:
    if a == b:
        return True
    if not CYRILLIC.search(a + b):  # English inflects by a few endings: "read" is no "readme"
        return bool(_english_stems(a) & _english_stems(b))
    stem = max(4, min(len(a), len(b)) - 2)
    return len(a) >= 4 and len(b) >= 4 and a[:stem] == b[:stem]


def _english_stems(word: str) -> set[str]:
    """The word and the word without each English ending it has, four letters kept at least:
    `services` and `service` share `servic`, `paginate` and `pagination` share `paginat`."""
    return {word, *(word[:-len(ending)] for ending in ENGLISH_ENDINGS
                    if word.endswith(ending) and len(word) - len(ending) >= 4)}
