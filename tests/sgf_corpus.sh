# tests/sgf_corpus.sh, sourced by the shell tests: copies the SGF files a
# test wrote into $GS_SGF_CORPUS for tests/sgf_validate.sh (nothing when the
# variable is not set).
#   keep_sgf FILE LABEL        one file, as LABEL.sgf
#   keep_all_sgf DIR PREFIX    every *.sgf under DIR, as PREFIX-NAME.sgf
keep_sgf() {
  [ -n "${GS_SGF_CORPUS:-}" ] && [ -d "$GS_SGF_CORPUS" ] && [ -f "$1" ] && cp "$1" "$GS_SGF_CORPUS/$2.sgf"
  return 0
}
keep_all_sgf() {
  [ -n "${GS_SGF_CORPUS:-}" ] && [ -d "$GS_SGF_CORPUS" ] && [ -d "$1" ] || return 0
  local f
  while IFS= read -r f; do
    cp "$f" "$GS_SGF_CORPUS/$2-$(echo "${f#$1/}" | tr '/' '_')"
  done < <(find "$1" -name '*.sgf' -type f -exec grep -l "AP\[goscribe" {} + 2>/dev/null)
  return 0
}
