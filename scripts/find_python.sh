# Sourced by scripts/setup_python.sh and scripts/wheels.sh.
# find_python 3.11: an interpreter of exactly that version (PATH, then pyenv's versions, then /usr/bin).
find_python() {
  local want=$1 c
  local pyenv_root
  pyenv_root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
  for c in "python$want" "$pyenv_root"/versions/"$want".*/bin/python"$want" "/usr/bin/python$want" python3; do
    if "$c" -c "import sys; sys.exit(0 if '%d.%d' % sys.version_info[:2] == '$want' else 1)" 2>/dev/null; then
      "$c" -c "import sys; print(sys.executable)"
      return 0
    fi
  done
  return 1
}

# lock_is_installed VENV LOCK: true when VENV was last installed from exactly this LOCK.
lock_is_installed() {
  [ -x "$1/bin/python" ] && [ "$(cat "$1/.$(basename "$2").sha256" 2>/dev/null)" = "$(sha256sum < "$2")" ]
}
