"""D4–D6 from ordinary Markdown: pages without frontmatter, scenario or integrations sections.

* D4 workflows: a "How to …" / "How do I …" / "Как …" section, or any section with a numbered list
  of two or more steps; the steps are its main flow.
* D5 relations: links between pages (`[text](../guide/setup.md#install)`) as `links_to` edges to
  the linked file's path; links to web pages as `links_to` edges to the URL.
* D6 integrations: mentions of known services (PostgreSQL, Redis, Stripe, …), environment
  variables (`DATABASE_URL`), settings (`INSTALLED_APPS` in a `settings.py` snippet), URLs and ports
  (`localhost:8000`), one row per target and page, with the sections that mention it.

Sections the seed-style layers already read (`## Scenario`, `## Integrations`) are left to them.
"""

import posixpath
import re
from collections import OrderedDict

from knowledge.indexing.layers.markdown import INTEGRATIONS_TITLE, SCENARIO_TITLE, ParsedDoc
from knowledge.indexing.layers.rows import LayerRow, stable_id

HOW_TO = re.compile(r"^(how (to|do i|do you|does|can i)\b|как\b|step[- ]by[- ]step|пошагов)", re.IGNORECASE)
STEP = re.compile(r"^\s{0,3}\d+[.)]\s+(?P<step>\S.*)$")
LINK = re.compile(r"(?<!!)\[(?P<text>[^\]]+)\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
SERVICES = {
    "postgresql": "PostgreSQL", "postgres": "PostgreSQL", "mysql": "MySQL", "mariadb": "MariaDB",
    "sqlite": "SQLite", "redis": "Redis", "memcached": "Memcached", "mongodb": "MongoDB",
    "elasticsearch": "Elasticsearch", "opensearch": "OpenSearch", "rabbitmq": "RabbitMQ", "kafka": "Kafka",
    "celery": "Celery", "stripe": "Stripe", "paypal": "PayPal", "twilio": "Twilio", "sendgrid": "SendGrid",
    "mailgun": "Mailgun", "smtp": "SMTP", "sentry": "Sentry", "slack": "Slack", "github": "GitHub",
    "gitlab": "GitLab", "openai": "OpenAI", "auth0": "Auth0", "keycloak": "Keycloak", "s3": "Amazon S3",
    "aws": "AWS", "gcp": "Google Cloud", "azure": "Azure", "docker": "Docker", "kubernetes": "Kubernetes",
    "nginx": "nginx", "traefik": "Traefik", "prometheus": "Prometheus", "grafana": "Grafana",
    "oauth2": "OAuth2", "swagger": "Swagger UI", "redoc": "ReDoc", "graphql": "GraphQL",
}
SERVICE_WORD = re.compile(r"\b(" + "|".join(sorted(SERVICES, key=len, reverse=True)) + r")\b", re.IGNORECASE)
ENV_VAR = re.compile(r"\b([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])\b")
# What makes an UPPER_SNAKE name an environment variable, or a (Django) setting, where it is written.
ENV_CONTEXT = re.compile(r"environ|getenv|\bexport\s|\benv\b|\.env\b|env[ _-]?var|переменн\w* (окружения|среды)",
                         re.IGNORECASE)
SETTING_CONTEXT = re.compile(r"\bsettings?\b|настройк", re.IGNORECASE)
# A section about configuring or deploying: an UPPER_SNAKE name there without other context is taken
# for an environment variable (a table of them under "Configuration"); elsewhere for a constant.
CONFIG_CONTEXT = re.compile(r"config|\boptions\b|\bvariables\b|deploy|конфигур|параметр|развёрт|разверт",
                            re.IGNORECASE)
LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s")
URL = re.compile(r"\bhttps?://([\w.-]+(?::\d+)?)[^\s)>\]`'\"]*")
PORT = re.compile(r"\b(?:localhost|127\.0\.0\.1|0\.0\.0\.0):(\d{2,5})\b|\bport (\d{2,5})\b", re.IGNORECASE)


# A mention's kind as its row says it in words (the row is quoted, and searched: "environment variables" asks
# for "environment variable", not "env var").
TARGET_WORDS = {"env_var": "environment variable", "external_system": "service", "url": "URL"}

def workflow_rows(doc: ParsedDoc) -> list[LayerRow]:
    """D4 from "How to …" sections and numbered step lists."""
    rows = []
    for section in doc.sections:
        if any(SCENARIO_TITLE.match(title) for title in section.path):
            continue
        steps = [STEP.match(line).group("step").strip() for line in section.body if STEP.match(line)]
        if len(steps) < 2 and not (HOW_TO.match(section.title) and steps + _text(section.body)):
            continue
        steps = steps or _text(section.body)[:10]
        meta = {
            "workflow_id": stable_id(doc.doc_id, section.section_path, "steps"),
            "document_id": doc.doc_id, "workflow_name": section.title, "preconditions": [], "trigger": "",
            "main_flow": steps, "alternative_flow": [], "error_handling": [], "postconditions": [],
            "source_path": doc.path, "anchor": section.section_path, "from": "steps",
        }
        content = f"Workflow: {section.title}\nMain flow:\n" + "\n".join(f"- {step}" for step in steps)
        rows.append(LayerRow("D4", section.title, content, meta, section_path=section.section_path,
                             span_start=section.line, span_end=section.line + len(section.body)))
    return rows


def relation_rows(doc: ParsedDoc) -> list[LayerRow]:
    """D5 `links_to` edges from the page's links to other pages and to the web."""
    folder = posixpath.dirname(doc.path)
    targets: OrderedDict[str, str] = OrderedDict()
    for section in doc.sections:
        for line in section.body:
            for match in LINK.finditer(line):
                target = match.group("target").split("#", 1)[0]
                if not target or target.startswith(("mailto:", "#")):
                    continue
                web = re.match(r"^[a-z]+://", target)
                if web and doc.doc_kind == "changelog":
                    continue  # a release note's pull requests and issues: no relation of the page
                if not web:
                    target = posixpath.normpath(posixpath.join(folder, target)).lstrip("./") or target
                targets.setdefault(target, section.section_path)
    rows = []
    for target, anchor in targets.items():
        meta = {"relation_id": stable_id(doc.doc_id, target, "links_to", anchor), "source_id": doc.doc_id,
                "relation_type": "links_to", "target_id": target, "anchor": anchor, "document_id": doc.doc_id,
                "source_path": doc.path}
        rows.append(LayerRow("D5", doc.title, f"{doc.doc_id} links_to {target}", meta))
    return rows


def integration_rows(doc: ParsedDoc) -> list[LayerRow]:
    """D6 from mentions of services, environment variables, URLs and ports."""
    found: OrderedDict[str, dict] = OrderedDict()

    said_how: set[str] = set()  # the names some mention's own context made a variable or a setting

    def add(target: str, target_type: str, section, line: str, *, explicit: bool = True) -> None:
        item = found.setdefault(target.lower(), {"target": target, "target_type": target_type, "sections": [],
                                                 "mentions": 0, "example": line.strip()[:200],
                                                 "line": section.line})
        if explicit and target.lower() not in said_how:  # a mention that says what the name is wins
            said_how.add(target.lower())
            item["target_type"], item["example"] = target_type, line.strip()[:200]
        item["mentions"] += 1
        if section.section_path not in item["sections"]:
            item["sections"].append(section.section_path)

    for section in doc.sections:
        if any(INTEGRATIONS_TITLE.match(title) for title in section.path):
            continue
        lines = [section.title, *section.body]
        for number, line in enumerate(lines):
            for match in SERVICE_WORD.finditer(line):
                add(SERVICES[match.group(1).lower()], "external_system", section, line)
            for match in ENV_VAR.finditer(line):
                kind, explicit = _name_kind(match.group(1), _lead_in(lines, number), section)
                add(match.group(1), kind, section, line, explicit=explicit)
            for match in URL.finditer(line):
                add(match.group(1), "url", section, line)
            for match in PORT.finditer(line):
                add(f"port {match.group(1) or match.group(2)}", "port", section, line)
    rows = []
    for item in found.values():
        meta = {
            "integration_id": stable_id(doc.doc_id, item["target"], "mentions"), "source_id": doc.doc_id,
            "source_type": "", "target": item["target"], "target_type": item["target_type"], "direction": "",
            "interaction": "mentioned", "via": "", "purpose": "",
            "details": {"mentions": item["mentions"], "sections": item["sections"], "example": item["example"]},
            "domain": "", "subdomain": "", "source_path": doc.path, "anchor": item["sections"][0],
        }
        kind = TARGET_WORDS.get(item["target_type"], item["target_type"].replace("_", " "))
        content = (f"{doc.title} mentions {item['target']} ({kind}), "
                   f"in: {'; '.join(item['sections'][:5])}\n{item['example']}")
        rows.append(LayerRow("D6", f"{doc.title} → {item['target']}", content, meta,
                             section_path=item["sections"][0], span_start=item["line"], span_end=item["line"]))
    return rows


def _name_kind(name: str, lines: list[str], section) -> tuple[str, bool]:
    """`env_var`, `setting` or `constant` for an UPPER_SNAKE name, and whether its context said so.

    The line naming it, else the lines leading into it (a snippet's sentence, a list's lead-in) or
    the section's title: `export X=1`, `$X`, `os.environ`, "environment variable" make an environment
    variable; `settings.X`, "settings.py", "setting" a setting (`INSTALLED_APPS`, `Q_CLUSTER` in a
    Django project's README). Without either, a name that is its section's heading, or is written in
    a section about configuration or deployment, is taken for an environment variable; any other
    (`USE_CLIENT_DEFAULT` in a changelog) for a constant."""
    line, before = lines[-1], " ".join(lines[:-1])
    if re.search(rf"\${{?{name}\b|\b{name}=\S", line):
        return "env_var", True
    for text in (line, before, section.title):
        if ENV_CONTEXT.search(text):
            return "env_var", True
        if SETTING_CONTEXT.search(text):
            return "setting", True
    if section.title.strip("`* ") == name or any(CONFIG_CONTEXT.search(title) for title in section.path):
        return "env_var", False
    return "constant", False


def _lead_in(lines: list[str], number: int) -> list[str]:
    """Line `number` with the lines that lead into it: the three before it, or for a list item the
    line introducing its list (its sibling items and their wrapped lines say nothing of it)."""
    if not LIST_ITEM.match(lines[number]):
        return lines[max(0, number - 3):number + 1]
    before = number - 1
    while before > 0 and (LIST_ITEM.match(lines[before]) or lines[before][:1].isspace() or not lines[before].strip()):
        before -= 1
    return [lines[before], lines[number]] if before > 0 else [lines[number]]


def _text(lines: list[str]) -> list[str]:
    return [line.strip() for line in lines if line.strip() and not line.strip().startswith("```")]
