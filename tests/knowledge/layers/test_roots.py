"""Module roots: modules are named the way Python imports them, whatever folder the code is in."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import SimpleTestCase

from knowledge.indexing.layers import store
from knowledge.indexing.layers.code_rows import build_code_rows, edge_rows, symbol_rows
from knowledge.indexing.layers.roots import declared_roots, find_roots, module_name
from knowledge.models import Chunk
from tests.factories import make_kb

# A web application as the issue found it: the backend's code under backend/, importing app.*.
BACKEND = {
    "backend/app/__init__.py": "",
    "backend/app/core/__init__.py": "",
    "backend/app/core/config.py": 'API_V1_STR = "/api/v1"\n\n\nclass Settings:\n    PROJECT_NAME = "demo"\n\n\n'
                                  "settings = Settings()\n",
    "backend/app/core/db.py": "from sqlmodel import create_engine\n\nfrom app.core.config import settings\n\n"
                              'engine = create_engine("postgresql://")\n\n\ndef init_db(session):\n'
                              "    session.exec(engine)\n",
    "backend/app/api/__init__.py": "",
    "backend/app/api/users.py": "from app.core.db import engine, init_db\nfrom app.core import config\n\n\n"
                                "def read_users():\n    init_db(engine)\n    return config.API_V1_STR\n",
    "backend/tests/test_users.py": "from app.api.users import read_users\n\n\ndef test_it():\n"
                                   "    assert read_users()\n",
    "scripts/tool.py": "import json\n\n\ndef main():\n    return json.dumps({})\n",
}


def parse(texts: dict[str, str], configs: dict[str, str] | None = None):
    code_files, index = store.parse_project(texts, configs)
    return code_files, index


class RootTests(SimpleTestCase):
    def test_a_folder_whose_packages_the_code_imports_is_a_root(self):
        roots = find_roots(BACKEND)
        self.assertEqual(roots["backend/app/core/db.py"], "backend/")
        self.assertEqual(roots["backend/tests/test_users.py"], "backend/")
        self.assertEqual(roots["scripts/tool.py"], "")  # nothing imports `scripts` or `tool`: the top folder
        self.assertEqual(module_name("backend/app/core/db.py", "backend/"), "app.core.db")
        self.assertEqual(module_name("backend/app/__init__.py", "backend/"), "app")

    def test_imports_resolve_to_modules_and_module_level_names_are_symbols(self):
        code_files, index = parse(BACKEND)
        users = code_files["backend/app/api/users.py"]
        self.assertEqual(users.module, "app.api.users")
        edges = {(row.metadata["edge_type"], row.metadata["dst_ref"], row.metadata.get("imported_name", ""),
                  row.metadata["resolution"]) for row in edge_rows(users, index)}
        self.assertIn(("imports", "app.core.db", "engine", "resolved"), edges)
        self.assertIn(("imports", "app.core.db", "init_db", "resolved"), edges)
        self.assertIn(("imports", "app.core.config", "", "resolved"), edges)  # `from app.core import config`
        self.assertIn(("calls", "app.core.db.init_db", "", "resolved"), edges)
        self.assertFalse([edge for edge in edges if edge[1].startswith("app.") and edge[3] != "resolved"])
        symbols = {(row.metadata["qname"], row.metadata["kind"]) for row in symbol_rows(code_files[
            "backend/app/core/db.py"]) + symbol_rows(code_files["backend/app/core/config.py"])}
        self.assertIn(("app.core.db.engine", "variable"), symbols)
        self.assertIn(("app.core.config.API_V1_STR", "constant"), symbols)
        self.assertIn(("app.core.config.settings", "variable"), symbols)
        self.assertEqual(index.file_roots["backend/app/core/db.py"], "backend/")

    def test_src_layouts_and_packaging_files_name_roots(self):
        texts = {"src/shop/__init__.py": "", "src/shop/billing.py": "def charge():\n    pass\n",
                 "lib/pkg/__init__.py": "", "lib/pkg/core.py": "from . import helpers\n",
                 "lib/pkg/helpers.py": "", "tools/x/setup_helper.py": ""}
        configs = {"pyproject.toml": '[tool.setuptools.packages.find]\nwhere = ["lib"]\n',
                   "tools/setup.cfg": "[options]\npackage_dir =\n    =x\n"}
        self.assertEqual(declared_roots(configs), {"lib/", "tools/x/"})
        roots = find_roots(texts, configs)
        self.assertEqual((roots["src/shop/billing.py"], roots["lib/pkg/core.py"], roots["tools/x/setup_helper.py"]),
                         ("src/", "lib/", "tools/x/"))
        code_files, _ = parse(texts, configs)
        self.assertEqual(code_files["lib/pkg/core.py"].module, "pkg.core")
        self.assertEqual(code_files["src/shop/billing.py"].module, "shop.billing")
        # Poetry and Hatch spell it their own way; a broken file names nothing.
        poetry = '[tool.poetry]\npackages = [{include = "p", from = "s"}]\n'
        hatch = '[tool.hatch.build.targets.wheel]\npackages = ["src/q"]\n'
        self.assertEqual(declared_roots({"a/pyproject.toml": poetry, "b/pyproject.toml": hatch,
                                         "c/pyproject.toml": "[broken"}), {"a/s/", "b/src/"})


@pytest.mark.django_db
def test_the_roots_are_recorded_on_the_index_and_shown(tmp_path: Path):
    for rel, text in BACKEND.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    kb = make_kb()
    out = StringIO()
    call_command("index_repo", kb.slug, str(tmp_path), "--name", "web", stdout=out)
    assert "Python module roots: (top folder), backend/" in out.getvalue()
    job = kb.jobs.get()
    assert job.options["module_roots"] == ["", "backend/"]
    document = kb.documents.get(path="backend/app/core/db.py")
    assert document.metadata["module_root"] == "backend/"
    # A re-index from the stored text keeps the roots found when the repository was indexed.
    store.reindex_document(document)
    assert Chunk.objects.filter(document=document, layer="C1", metadata__qname="app.core.db.engine").exists()


FULLSTACK = {
    **BACKEND,
    "backend/app/core/config.py": 'from pydantic_settings import BaseSettings\n\n\nclass Settings(BaseSettings):\n'
                                  '    API_V1_STR: str = "/api/v1"\n    PROJECT_NAME: str = "demo"\n\n\n'
                                  "settings = Settings()\n",
    "backend/app/main.py": "from fastapi import FastAPI\n\nfrom app.api.main import api_router\n"
                           "from app.core.config import settings\nfrom app.unknown import OTHER\n\n"
                           "app = FastAPI()\napp.include_router(api_router, prefix=settings.API_V1_STR)\n",
    "backend/app/api/main.py": "from fastapi import APIRouter\n\nfrom app.api.routes import items\n\n"
                               "api_router = APIRouter()\n"
                               "api_router.include_router(items.router, prefix=items.PREFIX)\n",
    "backend/app/api/routes/__init__.py": "",
    "backend/app/api/routes/items.py": 'from fastapi import APIRouter\n\nPREFIX = "/items"\nrouter = APIRouter()\n\n\n'
                                       '@router.get("/{id}")\ndef read_item(id: int):\n    return id\n',
    "backend/app/models.py": "from sqlmodel import Field, SQLModel\n\n\nclass ItemBase(SQLModel):\n"
                             "    title: str\n\n\nclass Item(ItemBase, table=True):\n"
                             "    id: int = Field(primary_key=True)\n",
}


class PrefixAndRoleTests(SimpleTestCase):
    def test_route_prefixes_through_module_constants_and_settings(self):
        code_files, index = parse(FULLSTACK)
        items = code_files["backend/app/api/routes/items.py"]
        rows = build_code_rows(items, index, store.EXTRACTORS[".py"])
        [route] = [row.metadata for row in rows if row.layer == "C3"]
        # include_router(…, prefix=settings.API_V1_STR) and (…, prefix=items.PREFIX), both resolved.
        self.assertEqual((route["route_or_command"], route["unresolved_prefix"]), ("GET /api/v1/items/{id}", False))

    def test_a_prefix_that_is_no_literal_is_marked_unresolved(self):
        texts = {**FULLSTACK, "backend/app/main.py": FULLSTACK["backend/app/main.py"].replace(
            "prefix=settings.API_V1_STR", "prefix=OTHER")}  # imported from a module the repository lacks
        code_files, index = parse(texts)
        rows = build_code_rows(code_files["backend/app/api/routes/items.py"], index, store.EXTRACTORS[".py"])
        [route] = [row.metadata for row in rows if row.layer == "C3"]
        self.assertEqual((route["mounted_path"], route["unresolved_prefix"]), ("/{?OTHER}/items/{id}", True))

    def test_sqlmodel_tables_are_models_and_the_rest_schemas_settings_config(self):
        code_files, index = parse(FULLSTACK)
        roles = {}
        for path in ("backend/app/models.py", "backend/app/core/config.py"):
            for row in build_code_rows(code_files[path], index, store.EXTRACTORS[".py"]):
                if row.layer == "C4":
                    roles[row.metadata["qname"]] = row.metadata["role"]
        self.assertEqual(roles["app.models.Item"], "model")
        self.assertEqual(roles["app.models.ItemBase"], "schema")
        self.assertEqual(roles["app.core.config.Settings"], "config")
