#!/usr/bin/env bash
# Nightly fuzzing (issue 6): builds the libFuzzer targets with clang
# (-fsanitize=fuzzer,address,undefined), runs every target in fork mode for
# its share of the time budget, merges the grown corpus back, minimizes and
# deduplicates crashes into regression files, and writes a report (Markdown,
# JSON, PNG plot). Exit 0 when nothing was found, 1 on new findings, 2 on a
# usage or build error.
#
#   ./scripts/nightly.sh --minutes 60 --jobs 2
#   ./scripts/nightly.sh --minutes 2 --plant-fault transpose_square_strides
#
# Options:
#   --minutes N        fuzzing time for all targets together (default 10); the
#                      build, merge and minimization come on top
#   --jobs N           libFuzzer -fork=N per target (default: nproc)
#   --targets "A B"    a subset (default: every target)
#   --out DIR          the run's folder (default nightly-out/UTC-TIMESTAMP)
#   --corpus DIR       the corpus to grow, holding TARGET/ and regressions/
#                      (default: the source tree's corpus/)
#   --pytorch-seconds N  time for the PyTorch backend's properties after the
#                      fuzzing (default 180): pytorch.fake_matches_reference,
#                      pytorch.memo_weak_no_leak and pytorch.eager_matches_libtorch,
#                      a third each, seeded by the date, from a plain (not
#                      sanitized) build in PYTORCH_BUILD_DIR (default build);
#                      0 leaves them out
#   --plant-fault NAME a trial run with a planted reference bug (fault-injection
#                      switches are compiled into this build, off unless named):
#                      nothing in the source tree changes, the merged corpus and
#                      the regression files stay under --out
#
# Environment: FUZZ_BUILD_DIR (default build-libfuzzer), PYTORCH_BUILD_DIR
# (default build), STORCHECK_SKIP_SETUP=1, STORCHECK_SKIP_BUILD=1 (reuse the
# build folders as they are).
#
# Note [PyTorch in the nightly run]
# The PyTorch backend embeds CPython, which is not instrumented, so it is
# built without sanitizers apart from the fuzz targets (the build run.sh
# uses). Each of its three properties runs for its share with the night's
# seed (YYYYMMDD), --programs unbounded; a failure is a finding with its
# shrunk reproducer under OUT/pytorch/, and the known divergences it met
# are listed. A build without the backend (no torch for /usr/bin/python3)
# reports the properties as skipped with the reason. A --plant-fault trial
# leaves them out: the planted faults live in the fuzz build.
#
# Note [Nightly outputs]
# 1) The grown corpus of a target is merged (-merge=1) into a fresh folder
#    next to corpus/TARGET; each file it adds is then renamed into
#    corpus/TARGET/ (one atomic rename per file, names are SHA-1 of content),
#    so an interrupted night loses nothing and never leaves a half-written
#    file. Seeds are never removed.
# 2) Each crash: libFuzzer's -minimize_crash (bytes), then `storcheck
#    minimize` (steps, same failure signature). Findings with the same
#    signature (the op and field of the first divergence, or the invariant)
#    are one finding. Each becomes corpus/regressions/TARGET-HASH.sc, written
#    to a temporary file and renamed, with a header: target, what, signature,
#    when found, the repro command.
# 3) A crash `storcheck minimize` does not reproduce (a sanitizer report, a
#    timeout, an out-of-memory) is kept as libFuzzer minimized it, under
#    OUT/crashes/, and listed in the report as a finding too.
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

ALL_TARGETS="views_fuzzer shrink_fuzzer cow_fuzzer fake_fuzzer program_parser_fuzzer"
minutes=10
jobs=$(nproc)
targets=$ALL_TARGETS
out=""
plant=""
pytorch_seconds=180
corpus_arg="$ROOT/corpus"

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
  exit 2
}
need_value() { [[ $# -ge 2 && -n "$2" ]] || { echo "nightly.sh: $1 needs a value" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --minutes) need_value "$@"; minutes=$2; shift 2 ;;
    --jobs) need_value "$@"; jobs=$2; shift 2 ;;
    --targets) need_value "$@"; targets=$2; shift 2 ;;
    --out) need_value "$@"; out=$2; shift 2 ;;
    --corpus) need_value "$@"; corpus_arg=$2; shift 2 ;;
    --plant-fault) need_value "$@"; plant=$2; shift 2 ;;
    --pytorch-seconds) need_value "$@"; pytorch_seconds=$2; shift 2 ;;
    -h | --help) usage ;;
    *) echo "nightly.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$minutes" =~ ^[0-9]+([.][0-9]+)?$ ]] && awk "BEGIN{exit !($minutes > 0 && $minutes <= 1440)}" ||
  { echo "nightly.sh: --minutes: expected a number of minutes in (0, 1440], got '$minutes'" >&2; exit 2; }
[[ "$jobs" =~ ^[0-9]+$ && "$jobs" -ge 1 && "$jobs" -le 64 ]] ||
  { echo "nightly.sh: --jobs: expected 1 to 64, got '$jobs'" >&2; exit 2; }
[[ "$pytorch_seconds" =~ ^[0-9]+$ && "$pytorch_seconds" -le 86400 ]] ||
  { echo "nightly.sh: --pytorch-seconds: expected 0 to 86400, got '$pytorch_seconds'" >&2; exit 2; }
[[ -n "$plant" ]] && pytorch_seconds=0
for t in $targets; do
  [[ " $ALL_TARGETS " == *" $t "* ]] || { echo "nightly.sh: unknown target '$t' (known: $ALL_TARGETS)" >&2; exit 2; }
done

started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
out=${out:-nightly-out/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
BUILD=${FUZZ_BUILD_DIR:-build-libfuzzer}
if [[ -n "$plant" ]]; then
  corpus_root="$out/merged-corpus"
  regressions="$out/regressions"
  for t in $targets; do mkdir -p "$corpus_root/$t" && cp -p "$corpus_arg/$t"/* "$corpus_root/$t/"; done
else
  [[ -d "$corpus_arg" ]] || { echo "nightly.sh: --corpus: no folder '$corpus_arg'" >&2; exit 2; }
  corpus_root=$(cd "$corpus_arg" && pwd)
  regressions="$corpus_root/regressions"
fi
mkdir -p "$regressions" "$out/work" "$out/crashes" "$out/logs" "$out/findings"

log() { echo "nightly: $(date -u +%H:%M:%S) $*" >&2; }

# --- Build -------------------------------------------------------------------
if [[ "${STORCHECK_SKIP_BUILD:-0}" != "1" ]]; then
  if [[ "${STORCHECK_SKIP_SETUP:-0}" != "1" ]]; then ./scripts/setup.sh >&2; fi
  log "building the libFuzzer targets with clang into $BUILD"
  CXX=clang++ BUILD_DIR="$BUILD" STORCHECK_CMAKE_ARGS="-DSTORCHECK_LIBFUZZER=ON \
-DSTORCHECK_SANITIZE=address,undefined -DSTORCHECK_FAULT_INJECTION=ON -DSTORCHECK_TESTS=OFF" \
    ./scripts/build.sh >"$out/logs/build.log" 2>&1 ||
    { echo "nightly.sh: build failed; see $out/logs/build.log" >&2; tail -20 "$out/logs/build.log" >&2; exit 2; }
fi
for t in $targets; do
  [[ -x "$BUILD/$t" ]] || { echo "nightly.sh: $BUILD/$t is missing" >&2; exit 2; }
done
STORCHECK="$BUILD/storcheck"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
plant_flag=()
[[ -n "$plant" ]] && plant_flag=("--plant-fault=$plant")

# --- Fuzz: each target in fork mode for its share -----------------------------
ntargets=$(wc -w <<<"$targets")
share=$(awk "BEGIN{s=int($minutes*60/$ntargets); print (s<5?5:s)}")
progress="$out/progress.tsv"
echo -e "elapsed_s\ttarget\tcov\tft\texec_per_s\tcorpus\tcrash_files" >"$progress"
t_night=$(date +%s)

# The last libFuzzer status line of a log, as "cov ft exec/s corp crashes".
last_stats() {
  grep -aE '^#[0-9]+:? .*cov: [0-9]+' "$1" 2>/dev/null | tail -1 | awk '{
    cov=ft=eps=corp=crash=0
    for (i = 1; i <= NF; i++) {
      if ($i == "cov:") cov = $(i+1); if ($i == "ft:") ft = $(i+1)
      # "exec/s: N" in a single process, "exec/s N" in fork mode
      if ($i == "exec/s:" || $i == "exec/s") eps = $(i+1)
      if ($i == "corp:") { corp = $(i+1); sub(/\/.*/, "", corp) }
      if ($i == "oom/timeout/crash:") { n = split($(i+1), a, "/"); crash = a[3] }
    }
    print cov, ft, eps, corp, crash }'
}

# Note [Progress in fork mode]
# libFuzzer's fork mode prints a status line only when a job ends, and job N
# runs min(N, 300) seconds: late in a night the parent's line can be minutes
# old. So the progress line, every 25 to 30 s, takes
# 1) exec/s from the jobs running now: the sum of the last status line of
#    each job log (TMPDIR/libFuzzerTemp.FuzzWithFork*.dir/N.log) written in
#    the last 30 s; the parent's figure until a job has printed one;
# 2) coverage, features and corpus from the parent (merged at each job's
#    end), with the age of that line;
# 3) findings from the crash folder, where a job writes each at once.
# The line before the first job has printed anything: zeros.

# The sum of the exec/s of the job logs under $1 written since file $2.
live_execs() {
  find "$1" -name '*.log' -newer "$2" 2>/dev/null | while read -r f; do
    grep -aE '^#[0-9]+.*exec/s: [0-9]+' "$f" | tail -1 || true
  done | awk '{ for (i = 1; i < NF; i++) if ($i == "exec/s:") s += $(i+1) } END { print s + 0 }'
}

declare -A EXECS COV FT CORPUS_BEFORE CORPUS_AFTER CRASHES NEWFILES
for t in $targets; do
  work="$out/work/$t"
  jobtmp="$out/work/$t.jobs"
  mkdir -p "$work" "$jobtmp" "$out/crashes/$t"
  cp -p "$corpus_root/$t"/* "$work/"
  CORPUS_BEFORE[$t]=$(find "$corpus_root/$t" -maxdepth 1 -type f | wc -l)
  flog="$out/logs/$t.log"
  log "fuzzing $t for ${share}s with $jobs jobs"
  # TMPDIR: libFuzzer puts its jobs' folders and logs there (Note [Progress in fork mode]).
  TMPDIR="$jobtmp" "$BUILD/$t" -fork="$jobs" -ignore_crashes=1 -max_total_time="$share" -timeout=10 \
    -rss_limit_mb=4096 -max_len=4096 -dict=harness/fuzz/storcheck.dict -print_final_stats=1 \
    -artifact_prefix="$out/crashes/$t/" "${plant_flag[@]}" "$work" >"$flog" 2>&1 &
  pid=$!
  t0=$(date +%s)
  next_report=$((t0 + 25))
  stats_at=$t0
  prev_stats=""
  while kill -0 "$pid" 2>/dev/null; do
    sleep 5
    now=$(date +%s)
    stats=$(last_stats "$flog" || true)
    if [[ "$stats" != "$prev_stats" ]]; then stats_at=$now; prev_stats=$stats; fi
    read -r cov ft eps corp crash <<<"$stats" || true
    touch -d "@$((now - 30))" "$jobtmp/.since"
    live=$(live_execs "$jobtmp" "$jobtmp/.since" || true)
    if ((${live:-0} > 0)); then eps=$live; fi
    found=$(find "$out/crashes/$t" -maxdepth 1 -type f | wc -l)
    echo -e "$((now - t_night))\t$t\t${cov:-0}\t${ft:-0}\t${eps:-0}\t${corp:-0}\t$found" >>"$progress"
    if ((now >= next_report)); then
      log "$t: $((now - t0))s of ${share}s, ${eps:-0} exec/s, cov ${cov:-0}, ft ${ft:-0}," \
        "corpus ${corp:-0} (merged $((now - stats_at))s ago), findings $found"
      next_report=$((now + 25))
    fi
  done
  wait "$pid" || true
  read -r cov ft eps corp crash <<<"$(last_stats "$flog")" || true
  COV[$t]=${cov:-0}; FT[$t]=${ft:-0}; EXECS[$t]=${eps:-0}
  CRASHES[$t]=$(find "$out/crashes/$t" -maxdepth 1 -type f | wc -l)
  log "$t done: ${EXECS[$t]} exec/s, cov ${COV[$t]}, ${CRASHES[$t]} crash files"
done

# --- Merge the grown corpora back (Note [Nightly outputs] 1) ------------------
for t in $targets; do
  tmp="$corpus_root/.merge-$t-$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  if "$BUILD/$t" -merge=1 -timeout=10 -rss_limit_mb=4096 -max_len=4096 \
    -merge_control_file="$out/work/$t.merge-control" "$tmp" "$corpus_root/$t" "$out/work/$t" \
    >"$out/logs/$t.merge.log" 2>&1; then
    added=0
    : >"$out/work/$t.added"
    for f in "$tmp"/*; do
      [[ -f "$f" ]] || continue
      name=$(basename "$f")
      if [[ ! -e "$corpus_root/$t/$name" ]]; then
        mv "$f" "$corpus_root/$t/$name"
        echo "$name" >>"$out/work/$t.added"
        added=$((added + 1))
      fi
    done
    NEWFILES[$t]=$added
  else
    log "$t: merge failed (see $out/logs/$t.merge.log); the corpus is unchanged"
    NEWFILES[$t]=0
  fi
  rm -rf "$tmp"
  CORPUS_AFTER[$t]=$(find "$corpus_root/$t" -maxdepth 1 -type f | wc -l)
  log "$t: corpus ${CORPUS_BEFORE[$t]} -> ${CORPUS_AFTER[$t]} files"
done

# --- Crashes: minimize, deduplicate, regression files (Note [Nightly outputs] 2, 3)
declare -A SEEN
findings_tsv="$out/findings.tsv"
: >"$findings_tsv"
found_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
for t in $targets; do
  for crash in "$out/crashes/$t"/*; do
    [[ -f "$crash" ]] || continue
    base=$(basename "$crash")
    [[ "$base" == *.min || "$base" == *.sc ]] && continue
    # A crash whose failure was already seen is not minimized again: the
    # target names the failure when it aborts.
    pre=$("$BUILD/$t" "${plant_flag[@]}" "$crash" 2>&1 | sed -n 's/^==storcheck== [a-z_]* finding: //p' | head -1 || true)
    if [[ -n "$pre" && -n "${SEEN[$pre]:-}" ]]; then
      log "$t: $base repeats '$pre'"
      continue
    fi
    log "$t: minimizing $base${pre:+ ($pre)}"
    small="$crash.min"
    timeout 60 "$BUILD/$t" -minimize_crash=1 -runs=300 -exact_artifact_path="$small" \
      "${plant_flag[@]}" "$crash" >"$out/logs/$t.$base.minimize.log" 2>&1 || true
    [[ -s "$small" ]] || cp "$crash" "$small"
    sig=""
    what=""
    if [[ "$t" != program_parser_fuzzer ]]; then
      set +e
      "$STORCHECK" minimize "$small" -o "$crash.sc" ${plant:+--plant-fault "$plant"} \
        >/dev/null 2>"$out/logs/$t.$base.steps.log"
      rc=$?
      set -e
      if [[ $rc -eq 1 && -s "$crash.sc" ]]; then
        sig=$(sed -n 's/.*same failure: //p' "$out/logs/$t.$base.steps.log" | head -1)
        what=$(sed -n 's/^# what: //p' "$crash.sc" | head -1)
      fi
    fi
    if [[ -z "$sig" ]]; then
      # Not a storcheck verdict: name it by the sanitizer's or libFuzzer's summary.
      what=$(grep -ahE '^SUMMARY: |==storcheck== program_parser_fuzzer finding' \
        "$out/logs/$t.log" "$out/logs/$t.$base.minimize.log" 2>/dev/null | head -1 || true)
      what=${what:-crash $base}
      sig="crash $t ${what#SUMMARY: }"
      cp "$small" "$out/findings/$t-$base"
      echo -e "$t\t$sig\t$what\t$out/findings/$t-$base\t$BUILD/$t ${plant_flag[*]} $out/findings/$t-$base\t\t" >>"$findings_tsv"
      # Its repeats are not minimized again either (a minute each).
      [[ -n "$pre" ]] && SEEN[$pre]=1
      continue
    fi
    [[ -n "${SEEN[$sig]:-}" ]] && continue
    SEEN[$sig]=1
    [[ -n "$pre" ]] && SEEN[$pre]=1
    hash=$(grep -v '^#' "$crash.sc" | sha1sum | cut -c1-12)
    reg="$regressions/$t-$hash.sc"
    {
      echo "# storcheck program v1"
      echo "# target: $t"
      echo "# what: $what"
      echo "# signature: $sig"
      echo "# found: $found_at by scripts/nightly.sh${plant:+ with --plant-fault $plant}"
      grep -v '^#' "$crash.sc"
    } >"$reg.tmp.$$"
    mv "$reg.tmp.$$" "$reg"
    repro="$STORCHECK repro $reg${plant:+ --plant-fault $plant}"
    # Standalone reproducers for the upstream report (storcheck emit, issue 9).
    py="$out/findings/$t-$hash.py"
    cpp="$out/findings/$t-$hash.cpp"
    "$STORCHECK" emit --python "$reg" --out "$py" ${plant:+--plant-fault "$plant"} >/dev/null 2>&1 || py=""
    "$STORCHECK" emit --cpp "$reg" --out "$cpp" ${plant:+--plant-fault "$plant"} >/dev/null 2>&1 || cpp=""
    echo -e "$t\t$sig\t$what\t$reg\t$repro\t$py\t$cpp" >>"$findings_tsv"
    log "finding in $t: $sig -> $reg"
  done
done

json_str() { printf '"%s"' "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/ /g' | tr -d '\n\r')"; }

# --- The PyTorch backend's properties (Note [PyTorch in the nightly run]) -----
PY_BUILD=${PYTORCH_BUILD_DIR:-build}
pytorch_seed=$(date -u +%Y%m%d)
pytorch_md=""
pytorch_json=""
if ((pytorch_seconds > 0)); then
  mkdir -p "$out/pytorch"
  if [[ "${STORCHECK_SKIP_BUILD:-0}" != "1" ]]; then
    log "building storcheck with the PyTorch backend into $PY_BUILD"
    BUILD_DIR="$PY_BUILD" ./scripts/build.sh >"$out/logs/build-pytorch.log" 2>&1 ||
      { echo "nightly.sh: build failed; see $out/logs/build-pytorch.log" >&2; exit 2; }
  fi
  per=$((pytorch_seconds / 3 > 5 ? pytorch_seconds / 3 : 5))
  for p in pytorch.fake_matches_reference pytorch.memo_weak_no_leak pytorch.eager_matches_libtorch; do
    log "$p for ${per}s, seed $pytorch_seed"
    plog="$out/logs/$p.log"
    set +e
    "$PY_BUILD/storcheck" check "$p" --budget "${per}s" --programs 1000000000 --seed "$pytorch_seed" \
      --findings-dir "$out/pytorch" >"$plog" 2>&1
    prc=$?
    set -e
    line=$(grep -a "^$p: " "$plog" | tail -1 || true)
    known=$(grep -a 'programs hit known divergences' "$plog" | tail -1 | sed 's/.*known_divergences.cpp): //' || true)
    status=passed
    if grep -qa "^$p: skipped:" "$plog"; then
      status=skipped
    elif ((prc != 0)); then
      status=FAILED
      repro=$(sed -n 's/^reproduce: //p' "$plog" | tail -1)
      file=${repro#storcheck repro }
      sig=$(sed -n 's/^divergence: //p' "$plog" | tail -1)
      [[ -n "$sig" ]] || sig=$(grep -a "^$p: FAILED" "$plog" | tail -1)
      cmd="$PY_BUILD/storcheck repro $file"
      [[ -n "$repro" ]] || cmd="$PY_BUILD/storcheck check $p --seed $pytorch_seed"
      echo -e "$p\t${sig:-exit $prc}\tsee $plog\t${file:-$plog}\t$cmd\t\t" >>"$findings_tsv"
    fi
    log "$p: $status (${line#"$p: "})"
    pytorch_md+="| $p | $status | ${line#"$p: "} | ${known:-none} |"$'\n'
    [[ -z "$pytorch_json" ]] || pytorch_json+=","
    pytorch_json+=$(printf '\n    {"property": "%s", "status": "%s", "result": %s, "known_divergences": %s}' \
      "$p" "$status" "$(json_str "${line#"$p: "}")" "$(json_str "$known")")
  done
fi
nfindings=$(wc -l <"$findings_tsv")

# --- Report: Markdown, JSON, PNG -----------------------------------------------
# Which mutators produced the corpus files the merge added (Note in mutator.h).
declare -A MUTATORS
for t in $targets; do
  MUTATORS[$t]=""
  [[ -s "$out/work/$t.added" ]] || continue
  MUTATORS[$t]=$(cd "$corpus_root/$t" && xargs -d '\n' awk '
    FNR == 1 && last != "" { print last; last = "" }
    /^# mutator: [a-z_]+$/ { last = $3 }
    END { if (last != "") print last }' <"$out/work/$t.added" |
    sort | uniq -c | sort -rn | awk '{printf "%s%s %s", (NR>1?", ":""), $2, $1}')
done
mutator_counts() { printf '%s' "${MUTATORS[$1]}"; }

md="$out/report.md"
{
  echo "# storcheck nightly fuzzing report"
  echo
  echo "Started $started, $minutes min of fuzzing over $ntargets targets (${share}s each, -fork=$jobs)," \
    "clang ASan+UBSan+libFuzzer build in \`$BUILD\`, on $(nproc) cores ($(uname -m))."
  [[ -n "$plant" ]] && echo "Trial run with the planted fault \`$plant\`: the source tree is unchanged."
  echo
  echo "| target | exec/s | coverage (cov) | features (ft) | corpus before | corpus after | crash files | new coverage by mutator |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
  for t in $targets; do
    echo "| $t | ${EXECS[$t]} | ${COV[$t]} | ${FT[$t]} | ${CORPUS_BEFORE[$t]} | ${CORPUS_AFTER[$t]} | ${CRASHES[$t]} | $(mutator_counts "$t") |"
  done
  echo
  if [[ $nfindings -eq 0 ]]; then
    echo "No new findings."
  else
    echo "## New findings ($nfindings, deduplicated by first divergence)"
    echo
    while IFS=$'\t' read -r t sig what file repro py cpp; do
      echo "- **$t**: \`$sig\`"
      echo "  - $what"
      echo "  - file: \`$file\`"
      echo "  - reproduce: \`$repro\`"
      if [[ -n "$py$cpp" ]]; then
        echo "  - standalone reproducers for an upstream report: [\`$py\`]($py), [\`$cpp\`]($cpp)"
      fi
    done <"$findings_tsv"
  fi
  echo
  if ((pytorch_seconds > 0)); then
    echo "## PyTorch backend (seed $pytorch_seed, ${per}s per property, build \`$PY_BUILD\`)"
    echo
    echo "| property | status | result | known divergences met |"
    echo "| --- | --- | --- | --- |"
    printf '%s' "$pytorch_md"
  else
    echo "PyTorch backend: left out (--pytorch-seconds 0, or a --plant-fault trial)."
  fi
  echo
  echo "![coverage and exec/s over the night](coverage.png)"
} >"$md"

{
  echo "{"
  echo "  \"started\": $(json_str "$started"),"
  echo "  \"minutes\": $minutes, \"jobs\": $jobs, \"seconds_per_target\": $share,"
  echo "  \"planted_fault\": $(json_str "$plant"),"
  echo "  \"targets\": ["
  first=1
  for t in $targets; do
    [[ $first -eq 1 ]] || echo ","
    first=0
    printf '    {"name": "%s", "exec_per_s": %s, "cov": %s, "ft": %s, "corpus_before": %s, "corpus_after": %s, "crash_files": %s, "new_coverage_by_mutator": %s}' \
      "$t" "${EXECS[$t]}" "${COV[$t]}" "${FT[$t]}" "${CORPUS_BEFORE[$t]}" "${CORPUS_AFTER[$t]}" \
      "${CRASHES[$t]}" "$(json_str "$(mutator_counts "$t")")"
  done
  echo
  echo "  ],"
  echo "  \"pytorch_seed\": $( ((pytorch_seconds > 0)) && echo "$pytorch_seed" || echo null),"
  echo "  \"pytorch\": [${pytorch_json}"
  echo "  ],"
  echo "  \"findings\": ["
  first=1
  while IFS=$'\t' read -r t sig what file repro py cpp; do
    [[ $first -eq 1 ]] || echo ","
    first=0
    printf '    {"target": %s, "signature": %s, "what": %s, "file": %s, "repro": %s, "python": %s, "cpp": %s}' \
      "$(json_str "$t")" "$(json_str "$sig")" "$(json_str "$what")" "$(json_str "$file")" "$(json_str "$repro")" \
      "$(json_str "$py")" "$(json_str "$cpp")"
  done <"$findings_tsv"
  echo
  echo "  ]"
  echo "}"
} >"$out/report.json"

if command -v gnuplot >/dev/null 2>&1; then
  plot="$out/coverage.gp"
  {
    echo "set terminal pngcairo size 1000,560 noenhanced"
    echo "set output '$out/coverage.png'"
    echo "set title 'storcheck nightly: coverage and exec/s per target'"
    echo "set xlabel 'seconds into the night'"
    echo "set ylabel 'coverage (cov)'"
    echo "set y2label 'exec/s'"
    echo "set ytics nomirror; set y2tics; set logscale y2"
    echo "set key outside right"
    echo "set datafile separator '\t'"
    printf "plot "
    sep=""
    for t in $targets; do
      grep -P "^[0-9]+\t$t\t" "$progress" | cut -f1,3,5 >"$out/work/$t.plot.tsv" || true
      printf "%s'%s' using 1:2 with lines lw 2 title '%s cov', '%s' using 1:3 axes x1y2 with points pt 7 ps 0.5 title '%s exec/s'" \
        "$sep" "$out/work/$t.plot.tsv" "$t" "$out/work/$t.plot.tsv" "$t"
      sep=", "
    done
    echo
  } >"$plot"
  gnuplot "$plot" 2>"$out/logs/gnuplot.log" || log "gnuplot failed (see $out/logs/gnuplot.log)"
else
  log "gnuplot is not installed: no plot (./scripts/setup.sh installs gnuplot-nox)"
fi

log "report: $md, $out/report.json, $out/coverage.png"
cat "$md"
if [[ $nfindings -gt 0 ]]; then
  log "$nfindings new finding(s)"
  exit 1
fi
exit 0
