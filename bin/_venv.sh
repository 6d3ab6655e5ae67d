# Shared by bin/up and bin/test: create .venv with Python >= 3.11 and install the project into it.
# Re-installs only when pyproject.toml (or the requested extras) changed since the last install.
find_python() {
  for candidate in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  echo "Python 3.11 or newer is required (set PYTHON=/path/to/python3.11)" >&2
  return 1
}

ensure_venv() {  # $1: pip extras, e.g. "test" or ""
  local extras="$1" python stamp
  if [ ! -x .venv/bin/python ]; then
    python=$(find_python)
    echo "Creating .venv with $python"
    "$python" -m venv .venv
  fi
  local prefix=".venv/.installed-$(cat pyproject.toml | sha256sum | cut -c1-16)"
  stamp="$prefix-${extras:-base}"
  # Without extras, any install of this pyproject.toml will do (bin/up after bin/test installs nothing).
  if [ -z "$extras" ] && compgen -G "$prefix-*" >/dev/null; then return 0; fi
  if [ ! -f "$stamp" ]; then
    echo "Installing the portal${extras:+ with [$extras]} into .venv"
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e ".${extras:+[$extras]}"
    rm -f .venv/.installed-*
    touch "$stamp"
  fi
}

compile_catalogues() {  # locale/*/LC_MESSAGES/*.po → .mo (build output, not committed)
  # What Django's compilemessages does, without importing the settings (which start the database).
  if command -v msgfmt >/dev/null 2>&1; then
    local po
    for po in locale/*/LC_MESSAGES/*.po; do
      [ -e "$po" ] || continue
      [ "${po%.po}.mo" -nt "$po" ] || msgfmt --check-format -o "${po%.po}.mo" "$po"
    done
  else  # no GNU gettext: the same result from a pure-Python compiler (polib)
    .venv/bin/python -m portal.catalogues
  fi
}
