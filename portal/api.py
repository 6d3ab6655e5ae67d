"""The REST API root: one NinjaAPI, its error handlers, and one router per app."""

from ninja import NinjaAPI

from knowledge.exceptions import KnowledgeError

api = NinjaAPI(title="Knowledge portal API", version="1", urls_namespace="api", docs_url="/docs")


@api.exception_handler(KnowledgeError)
def knowledge_error(request, exc: KnowledgeError):
    return api.create_response(request, {"error": {"code": type(exc).__name__, "message": str(exc)}}, status=422)
