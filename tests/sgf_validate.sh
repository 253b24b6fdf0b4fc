#!/usr/bin/env bash
# tests/sgf_validate.sh CORPUS_DIR MAINLINE_DRIVER: every SGF the test suite
# wrote (each test copies its SGF files into $GS_SGF_CORPUS, see
# tests/CMakeLists.txt) checked by two readers that are not goscribe's:
#   - SGFC 2.0, the reference checker (built from ../shared/tools/sgfc when
#     absent): 0 errors, and no warning except the documented private
#     properties (Warnings 31 and 35 on GSTM, GSEV, GSRL, GSST, GSBS, GSGP, GSFX); run again with -r
#     (strict), where only those and Warning 62 (a set-up node in the main
#     line, see sgf/sgf.h) may appear, in a render's truth file Warning
#     63 (a seeded double move is two moves of one colour, as played), and
#     in a round's feed (a collection of games) Error 60;
#   - @sabaki/sgf (npm, tests/sgfcheck, installed into the build folder with
#     `npm ci`, from the npm cache first): it must read the same main line
#     (set-up stones and moves) as goscribe's reader.
# Prints the counts; skips with a message when a checker cannot be had.
set -u
corpus=${1:?usage: sgf_validate.sh CORPUS_DIR MAINLINE_DRIVER}
driver=${2:?usage: sgf_validate.sh CORPUS_DIR MAINLINE_DRIVER}
here=$(cd "$(dirname "$0")" && pwd)
work=$(dirname "$corpus")
shopt -s nullglob
files=("$corpus"/*.sgf)
if [ ${#files[@]} -eq 0 ]; then
  echo "skipped: no SGF collected in $corpus (run the whole suite: the other tests write them)"
  exit 0
fi
fail=0
skipped=""

# ---- SGFC
sgfc=${GS_SGFC:-}
if [ -z "$sgfc" ]; then
  build=$here/../../shared/tools/sgfc/build.sh
  if [ -x "$build" ] || [ -f "$build" ]; then
    sgfc=$(sh "$build" "$work/sgfc" 2>"$work/sgfc-build.err") || sgfc=
  fi
fi
if [ -z "$sgfc" ] || [ ! -x "$sgfc" ]; then
  skipped="$skipped SGFC (no ../shared/tools/sgfc or it did not build: $(head -c 200 "$work/sgfc-build.err" 2>/dev/null))"
else
  errors=0; warnings=0; other=0; strict_other=0; w62=0; w63=0; clean=0
  for f in "${files[@]}"; do
    out=$("$sgfc" "$f" 2>&1)
    strict=$("$sgfc" -r "$f" 2>&1)
    e=$(grep -c ' - Error ' <<< "$out"); w=$(grep -c ' - Warning ' <<< "$out")
    errors=$((errors + e)); warnings=$((warnings + w))
    # allowed: 31/35 on the private properties; with -r also 62
    bad=$(grep -E ' - (Error|Warning|Fatal) ' <<< "$out" | grep -vE '(Warning|Error) (31|35): .*<GS(TM|EV|RL|ST|BS|GP|FX)>')
    sbad=$(grep -E ' - (Error|Warning|Fatal) ' <<< "$strict" | grep -vE '(Warning|Error) (31|35): .*<GS(TM|EV|RL|ST|BS|GP|FX)>' | grep -v 'Warning 62:')
    # a render's truth holds a seeded double move as it was played: two
    # moves of one colour in a row (Warning 63), on purpose
    case $f in *truth*) w63=$((w63 + $(grep -c 'Warning 63:' <<< "$sbad"))); sbad=$(grep -v 'Warning 63:' <<< "$sbad") ;; esac
    # a round's feed is one collection of the round's games by design (FF[4]
    # allows it; SGFC reads it without a word and only -r refuses more than
    # one game tree, Error 60): each game of it is checked on its own too
    case $f in *round_feed*) sbad=$(grep -v 'Error 60:' <<< "$sbad") ;; esac
    w62=$((w62 + $(grep -c 'Warning 62:' <<< "$strict")))
    [ -z "$bad" ] && [ "$e" -eq 0 ] && clean=$((clean + 1))
    if [ -n "$bad" ] || [ "$e" -ne 0 ]; then
      other=$((other + 1)); fail=1
      echo "FAIL sgfc $(basename "$f"):"; sed 's/^/    /' <<< "$bad" | head -5
    fi
    if [ -n "$sbad" ]; then
      strict_other=$((strict_other + 1)); fail=1
      echo "FAIL sgfc -r $(basename "$f"):"; sed 's/^/    /' <<< "$sbad" | head -5
    fi
  done
  echo "sgfc: ${#files[@]} files, $errors errors, $warnings warnings (all on GSTM/GSEV/GSRL/GSST/GSBS/GSGP/GSFX: $([ $other -eq 0 ] && echo yes || echo no)), $clean files clean but for them"
  echo "sgfc -r: files with anything else than those and Warning 62: $strict_other; Warning 62 (set-up node in the main line): $w62; Warning 63 in render truth files (a seeded double move): $w63"
fi

# ---- @sabaki/sgf
node_dir=$work/sgfcheck
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  skipped="$skipped @sabaki/sgf (node or npm not installed: apt-get install nodejs npm)"
else
  mkdir -p "$node_dir"
  cp "$here/sgfcheck/package.json" "$here/sgfcheck/package-lock.json" "$here/sgfcheck/mainline.js" "$node_dir/"
  if [ ! -f "$node_dir/node_modules/@sabaki/sgf/package.json" ]; then
    (cd "$node_dir" && { npm ci --offline --no-audit --no-fund >/dev/null 2>&1 || npm ci --no-audit --no-fund >"$node_dir/npm.log" 2>&1; })
  fi
  if [ ! -f "$node_dir/node_modules/@sabaki/sgf/package.json" ]; then
    skipped="$skipped @sabaki/sgf (npm ci failed: $(tail -c 200 "$node_dir/npm.log" 2>/dev/null))"
  else
    "$driver" "${files[@]}" > "$work/mainline.goscribe" 2>"$work/mainline.err"; drc=$?
    node "$node_dir/mainline.js" "${files[@]}" > "$work/mainline.sabaki" 2>>"$work/mainline.err"; nrc=$?
    if [ $drc -ne 0 ] || [ $nrc -ne 0 ]; then
      echo "FAIL a reader could not read a file:"; head -5 "$work/mainline.err"; fail=1
    fi
    if diff -q "$work/mainline.goscribe" "$work/mainline.sabaki" >/dev/null; then
      echo "@sabaki/sgf: ${#files[@]} files, the same main line as goscribe's reader ($(grep -c '^move' "$work/mainline.goscribe") moves, $(grep -c '^step' "$work/mainline.goscribe") set-up nodes)"
    else
      echo "FAIL @sabaki/sgf reads another main line:"; diff "$work/mainline.goscribe" "$work/mainline.sabaki" | head -20; fail=1
    fi
  fi
fi
if [ -n "$skipped" ]; then
  # ctest marks the test skipped only when neither reader could run
  if [ -z "$sgfc" ] && ! [ -f "$node_dir/node_modules/@sabaki/sgf/package.json" ]; then echo "skipped:$skipped"
  else echo "note: not checked by$skipped"; fi
fi
exit $fail
