"""The portal's MCP server: knowledge-base search, grounded answers and tickets as MCP tools.

One `FastMCP` instance (the official `mcp` SDK) serves both transports: streamable HTTP through
`mcp_server.views.endpoint` at /mcp, and stdio through `manage.py mcp_stdio`. The tools are the
REST API's operations over again, with its access rules: they narrow to the knowledge bases of the
caller's API key with the same functions (`knowledge.api.visible_bases`, `searchable_ids`,
`tickets.api.visible_tickets`) and check scopes with `portal.auth.require_scope`; a key is listed
only the tools its scopes allow.

Who is calling is a context variable holding an "authorize" callable: the HTTP view has already
authenticated the request (and counted it against the rate limit), so its callable just returns the
key; under stdio the key is checked again, and counted, on every tool call.

Tool bodies are plain synchronous Django code; `_tool` runs them with `sync_to_async`, so under
the WSGI view they run back on the request's own thread (and its database connection).
"""

import functools
import inspect
import logging
import os
from collections.abc import Callable
from contextvars import ContextVar
from types import SimpleNamespace
from typing import Annotated, Any, Literal

from asgiref.sync import sync_to_async
from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404
from django.utils.translation import gettext
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ResourceError, ToolError
from mcp.shared.exceptions import McpError
from mcp.types import ErrorData
from pydantic import Field, ValidationError

from knowledge.api import answer_dict, hit_dict, searchable_ids, visible_bases, with_counts
from knowledge.exceptions import KnowledgeError
from knowledge.models import Chunk, Document
from knowledge.schemas import (
    AnswerResponse,
    ChunkOut,
    DocumentOut,
    FilterValue,
    KnowledgeBaseOut,
    PlanResponse,
    SearchResponse,
)
from knowledge.search import answers, retrieval
from knowledge.search.planned import plan_and_search
from portal.auth import ApiError, require_scope
from portal.field_errors import error_message
from portal.models import ApiKey, Scope
from tickets import triage
from tickets.api import ticket_detail
from tickets.models import Ticket
from tickets.schemas import TicketDetailOut

logger = logging.getLogger(__name__)

# JSON-RPC error codes of a refused resource read: MCP's "resource not found", and the one `views` answers
# a refused key with.
RESOURCE_NOT_FOUND, KEY_REFUSED = -32002, -32001
# A page of document text: enough for a model to read a source, small enough for its context.
DOCUMENT_PAGE_CHARS = 20_000

_authorize: ContextVar[Callable[[], ApiKey]] = ContextVar("mcp_authorize")
# The scope each tool needs (filled by `_tool`): a key is shown only the tools it may call.
TOOL_SCOPES: dict[str, str] = {}


class ResourceRefused(ResourceError):
    """A resource this key may not read, or that does not exist: `code` is the JSON-RPC error it answers."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


class PortalMCP(FastMCP):
    async def list_tools(self):
        """The tools the calling key has the scopes for (calling another still answers `missing_scope`)."""
        scopes = await sync_to_async(_caller_scopes)()
        return [tool for tool in await super().list_tools() if TOOL_SCOPES.get(tool.name) in scopes]

    async def call_tool(self, name: str, arguments: dict[str, Any]):
        """Arguments are checked before the tool runs: an unknown one or one of the wrong type or size is the
        tool error `invalid: <argument>: <message>` (the SDK would drop an unknown argument silently, and answer
        a bad one with pydantic's own text and a link to its documentation)."""
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            _check_arguments(tool, arguments or {})
        return await super().call_tool(name, arguments)

    async def read_resource(self, uri):
        """A refused resource read answers its own JSON-RPC error with our message once: the SDK wraps a
        template's error in "Error creating resource from template:" twice and answers any error with code 0."""
        try:
            return await super().read_resource(uri)
        except Exception as exc:
            refused = exc
            while refused is not None and not isinstance(refused, ResourceRefused):
                refused = refused.__context__
            if refused is None:
                raise
            raise McpError(ErrorData(code=refused.code, message=str(refused))) from None


def _check_arguments(tool, arguments: dict[str, Any]) -> None:
    problems = [
        f"{name}: " + gettext("This argument is not taken by the tool %(tool)s.") % {"tool": tool.name}
        for name in sorted(set(arguments) - set(tool.parameters.get("properties", {})))
    ]
    try:
        tool.fn_metadata.arg_model.model_validate(tool.fn_metadata.pre_parse_json(arguments))
    except ValidationError as exc:
        problems += _argument_problems(exc.errors())
    if problems:
        raise ToolError("invalid: " + "; ".join(problems))


def _argument_problems(errors: list) -> list[str]:
    """One line per argument error, named by its path (`top_k`, `layers.0`). A value no member of a union takes
    (`filters.plan` a dict) gives one error per member, at paths ending in the member's type: those are one
    problem at the path they share."""
    by_argument: dict[str, list] = {}
    for error in errors:
        by_argument.setdefault(str(error["loc"][0]) if error["loc"] else "", []).append(error)
    problems = []
    for group in by_argument.values():
        if len(group) > 1 and len({error["type"] for error in group}) > 1:
            shared = os.path.commonprefix([[str(part) for part in error["loc"]] for error in group])
            problems.append(
                f"{'.'.join(shared)}: " + gettext("Not a value of an accepted type (see the tool's input schema).")
            )
        else:
            problems += [f"{'.'.join(str(part) for part in error['loc'])}: {error_message(error)}" for error in group]
    return problems


def _caller_scopes() -> set[str]:
    try:
        return set(_authorize.get()().scopes)
    except (LookupError, ApiError):
        return set()


mcp = PortalMCP(
    "knowledge-portal",
    instructions=(
        "Search the organisation's knowledge bases and answer from them with citations; create and read "
        "support tickets. Start with list_knowledge_bases, then search or answer.\n"
        "Поиск по базам знаний организации и ответы по ним со ссылками на источники; создание и просмотр "
        "обращений. Начните с list_knowledge_bases, затем search или answer."
    ),
    stateless_http=True,
    json_response=True,
)


def caller(authorize: Callable[[], ApiKey]):
    """Set who calls the tools in this context; returns the token for `reset_caller`."""
    return _authorize.set(authorize)


def reset_caller(token) -> None:
    _authorize.reset(token)


def _run(func, scope: str, args, kwargs):
    try:
        authorize = _authorize.get()
    except LookupError:
        raise ToolError("unauthorized: " + gettext("no API key")) from None
    try:
        key = authorize()
        require_scope(key, scope)
        return func(key, *args, **kwargs)
    except ApiError as exc:
        raise ToolError(f"{exc.code}: {exc.message}") from None
    except (Http404, ObjectDoesNotExist):
        raise ToolError("not_found: " + gettext("no such object, or not one this API key may use")) from None
    except KnowledgeError as exc:
        raise ToolError(f"{type(exc).__name__}: {exc}") from None
    except (ToolError, ResourceError):
        raise
    except Exception:
        logger.exception("MCP tool %s failed", func.__name__)
        raise ToolError("server_error: " + gettext("the tool failed; the error is in the server's log")) from None


def _tool(scope: str, description: str):
    """Register `func(key, **arguments)` as a tool needing `scope`; the key is not an argument."""

    def decorate(func):
        @functools.wraps(func)
        async def call(*args, **kwargs):
            return await sync_to_async(_run)(func, scope, args, kwargs)

        # The schema is built from the signature without the leading `key`.
        call.__signature__ = _without_key(func)
        TOOL_SCOPES[func.__name__] = scope
        mcp.tool(name=func.__name__, description=description, structured_output=False)(call)
        return func

    return decorate


def _without_key(func):
    signature = inspect.signature(func)
    return signature.replace(parameters=list(signature.parameters.values())[1:])


def _bases(key: ApiKey, wanted: list[int | str] | None) -> list[int]:
    """Ids of the visible bases named by id or slug (all must be visible), or every visible one."""
    if wanted is None:
        return searchable_ids(SimpleNamespace(auth=key), None)
    slugs = [item for item in wanted if isinstance(item, str) and not item.isdigit()]
    ids = {int(item) for item in wanted if item not in slugs}
    found = dict(visible_bases(key).filter(slug__in=slugs).values_list("slug", "pk"))
    missing = [slug for slug in slugs if slug not in found]
    if missing:
        raise ToolError("not_found: " + gettext("knowledge base(s) %(slugs)s") % {"slugs": ", ".join(missing)})
    return searchable_ids(SimpleNamespace(auth=key), sorted(ids | set(found.values())))


def _dump(schema, value) -> dict:
    return schema.model_validate(value).model_dump(mode="json")


Bases = Annotated[list[int | str] | None, Field(
    None, min_length=1, max_length=100,
    description="Knowledge bases by id or slug; default: every base the key may use. "
                "Базы знаний (id или slug); по умолчанию все доступные ключу.")]
Mode = Annotated[Literal["hybrid", "vector", "keyword"], Field(
    description="hybrid (default) mixes meaning and words; keyword for exact names and codes.")]
Layers = Annotated[list[Annotated[str, Field(max_length=8)]] | None, Field(
    None, max_length=20, description="Chunk layers, e.g. D0 (text), D6, C1 (code).")]
PlanQuery = Annotated[str | None, Field(
    min_length=1, max_length=2000,
    description="The question about code or documentation; `query` and `question` are the same argument, as in "
                "POST /search/planned. Вопрос о коде или документации; query и question — один и тот же аргумент.")]
Filters = Annotated[dict[str, FilterValue] | None, Field(
    None, max_length=20, description="Metadata filters: key → value or list of values.")]


# --- Tools ----------------------------------------------------------------------------------------

@_tool(Scope.READ,
       "List the knowledge bases this API key may use, with their document counts. Call first to learn "
       "which bases exist and their slugs.\n"
       "Список баз знаний, доступных этому ключу, с числом документов. Вызывайте первым, чтобы узнать "
       "базы и их slug.")
def list_knowledge_bases(key: ApiKey) -> dict[str, Any]:
    kbs = with_counts(visible_bases(key)).order_by("name", "pk")
    return {"knowledge_bases": [_dump(KnowledgeBaseOut, kb) for kb in kbs]}


@_tool(Scope.SEARCH,
       "Search the knowledge bases and return ranked passages with their document, section and chunk id. "
       "Use to find facts or where something is written; use answer for a composed reply.\n"
       "Поиск по базам знаний: ранжированные фрагменты с документом, разделом и id фрагмента. Используйте, "
       "чтобы найти факты или место в документации; для готового ответа вызывайте answer.")
def search(key: ApiKey,
           query: Annotated[str, Field(min_length=1, max_length=2000, description="What to look for.")],
           knowledge_bases: Bases = None, top_k: Annotated[int, Field(ge=1, le=50)] = 6,
           mode: Mode = "hybrid", layers: Layers = None, filters: Filters = None) -> dict[str, Any]:
    result = retrieval.retrieve(query, _bases(key, knowledge_bases), top_k=top_k, mode=mode, layers=layers,
                                filters=filters)
    return _dump(SearchResponse, {
        "query": query, "mode": result.mode, "keyword_fallback_used": result.keyword_fallback_used,
        "best_similarity": result.best_similarity, "hits": [hit_dict(hit) for hit in result.hits]})


@_tool(Scope.SEARCH,
       "Answer a question from the knowledge bases with numbered citations [n], a confidence between 0 and "
       "1, and refused=true when the sources do not support an answer (then do not guess). Use get_chunk or "
       "get_document to read a cited source.\n"
       "Ответ на вопрос по базам знаний с нумерованными ссылками [n], уверенностью от 0 до 1 и refused=true, "
       "если источники не дают ответа (тогда не придумывайте). Текст источника — get_chunk или get_document.")
def answer(key: ApiKey,
           question: Annotated[str, Field(min_length=1, max_length=4000)],
           knowledge_bases: Bases = None, top_k: Annotated[int, Field(ge=1, le=20)] = 6,
           mode: Mode = "hybrid", layers: Layers = None, filters: Filters = None) -> dict[str, Any]:
    result = answers.answer(question, _bases(key, knowledge_bases), top_k=top_k, mode=mode, layers=layers,
                            filters=filters)
    return _dump(AnswerResponse, answer_dict(result))


@_tool(Scope.SEARCH,
       "For questions about code and technical documentation (which service calls X, where is route Y, what "
       "does a CLI command do): the intent router picks layers and filters, shows its plan, then searches.\n"
       "Для вопросов о коде и технической документации (кто вызывает X, где маршрут Y, что делает команда): "
       "маршрутизатор намерений выбирает слои и фильтры, показывает план и выполняет поиск.")
def planned_search(key: ApiKey, query: PlanQuery = None, question: PlanQuery = None,
                   knowledge_bases: Bases = None) -> dict[str, Any]:
    # The REST endpoint's names: `query`, with `question` (its old name) accepted; `query` wins if both come.
    text = query or question
    if not text:
        raise ToolError("invalid: " + gettext("Give the query to search for (query, or question)"))
    plan, hits = plan_and_search(text, _bases(key, knowledge_bases))
    return _dump(PlanResponse, {"query": text, "question": text, "plan": plan.to_dict(),
                                "hits": [hit_dict(hit) for hit in hits]})


def _document(key: ApiKey, document_id: int) -> Document:
    document = Document.objects.select_related("knowledge_base").get(pk=document_id)
    if not key.may_use(document.knowledge_base_id):
        raise Http404
    return document


def _document_dict(document: Document, offset: int, limit: int) -> dict[str, Any]:
    text = document.text or ""
    return {**_dump(DocumentOut, document), "knowledge_base_slug": document.knowledge_base.slug,
            "offset": offset, "text": text[offset:offset + limit], "text_length": len(text),
            "next_offset": offset + limit if offset + limit < len(text) else None}


@_tool(Scope.READ,
       "The text of a document (by the document_id of a search hit or citation), a page at a time: pass "
       "next_offset as offset to read on.\n"
       "Текст документа (по document_id из результата поиска или ссылки) постранично: чтобы читать дальше, "
       "передайте next_offset как offset.")
def get_document(key: ApiKey, document_id: Annotated[int, Field(ge=1)],
                 offset: Annotated[int, Field(ge=0)] = 0,
                 limit: Annotated[int, Field(ge=1, le=DOCUMENT_PAGE_CHARS)] = DOCUMENT_PAGE_CHARS) -> dict[str, Any]:
    return _document_dict(_document(key, document_id), offset, limit)


@_tool(Scope.READ,
       "One indexed chunk in full (by the chunk_id of a search hit or citation): the exact source passage.\n"
       "Один фрагмент целиком (по chunk_id из результата поиска или ссылки): точный текст источника.")
def get_chunk(key: ApiKey, chunk_id: Annotated[int, Field(ge=1)]) -> dict[str, Any]:
    chunk = Chunk.objects.defer("embedding", "search_vector").select_related("document").get(pk=chunk_id)
    if not key.may_use(chunk.document.knowledge_base_id):
        raise Http404
    return {**_dump(ChunkOut, chunk), "document_id": chunk.document_id,
            "document_title": chunk.document.title, "knowledge_base_id": chunk.document.knowledge_base_id}


@_tool(Scope.TICKETS,
       "Submit a customer's question or problem as a support ticket; risk assessment, routing and a drafted "
       "answer follow. Returns the ticket with its id; read it back later with get_ticket.\n"
       "Создать обращение в поддержку с вопросом или проблемой клиента; затем оценка риска, маршрутизация "
       "и черновик ответа. Возвращает обращение с id; позже его можно прочитать через get_ticket.")
def create_ticket(key: ApiKey, body: Annotated[str, Field(min_length=1, max_length=50_000)],
                  subject: Annotated[str, Field(max_length=300)] = "",
                  customer: Annotated[str, Field(max_length=300)] = "") -> dict[str, Any]:
    ticket = triage.submit_ticket(subject=subject, body=body, customer=customer, channel=Ticket.Channel.API,
                                  metadata={"api_key_id": key.pk, "via": "mcp"})
    return _dump(TicketDetailOut, ticket_detail(key, ticket.pk))


@_tool(Scope.TICKETS,
       "A ticket by id: status, risk, the messages (customer, drafts, replies) and the sources cited.\n"
       "Обращение по id: статус, риск, сообщения (клиента, черновики, ответы) и процитированные источники.")
def get_ticket(key: ApiKey, ticket_id: Annotated[int, Field(ge=1)]) -> dict[str, Any]:
    return _dump(TicketDetailOut, ticket_detail(key, ticket_id))


# --- Resources ------------------------------------------------------------------------------------

@mcp.resource("kb://{slug}/documents/{document_id}", name="document", mime_type="text/plain",
              description="A document's full text. / Полный текст документа.")
async def document_resource(slug: str, document_id: str) -> str:
    def read(key: ApiKey) -> str:
        document = _document(key, int(document_id)) if document_id.isdigit() else None
        if document is None or document.knowledge_base.slug != slug:
            raise ToolError("not_found: " + gettext("no such document, or not one this API key may use"))
        return document.text or ""

    try:
        return await sync_to_async(_run)(read, Scope.READ, (), {})
    except ToolError as exc:
        # MCP's "resource not found" for what the key cannot see; the portal's auth code for the rest.
        code = RESOURCE_NOT_FOUND if str(exc).startswith("not_found") else KEY_REFUSED
        raise ResourceRefused(str(exc), code) from None
