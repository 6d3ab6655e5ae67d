"""The README documents every environment variable the settings read (Datasette's trick)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_environment_variable_is_documented_in_the_readme():
    settings_source = "".join((ROOT / "portal" / name).read_text()
                              for name in ("settings.py", "knowledge_settings.py", "gunicorn.conf.py"))
    names = set(re.findall(r'env_(?:str|bool|int|float|list|choice)\(\s*"([A-Z0-9_]+)"', settings_source))
    assert {"DATABASE_URL", "REDIS_URL", "PORTAL_DEFAULT_EMBEDDER", "PORTAL_WEB_WORKERS"} <= names
    readme = (ROOT / "README.md").read_text()
    missing = sorted(name for name in names if f"`{name}`" not in readme)
    assert not missing, f"README.md does not document: {', '.join(missing)}"


def test_ci_runs_exactly_the_readme_test_command():
    command = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert command == "bash bin/test"
    assert f"    {command}\n" in (ROOT / "README.md").read_text()
