#!/usr/bin/env bash
# ctest cli.backends_load_on_first_use (Note [LibTorch loaded on first use],
# oracles/backend_module.h):
# 1. the commands that need no backend (help, list, a usage error) run from a
#    copy of the storcheck binary without the module beside it: they never
#    load LibTorch;
# 2. a command that needs LibTorch there exits 3 with one line naming the
#    module's path and why it could not be loaded (never a run without
#    LibTorch);
# 3. beside the module, a program replays on LibTorch (exit 0), and with
#    --fault-build the binary and the module share one fault switch: the
#    PyTorch backend of the module sees memo_strong_ref planted by the CLI
#    (pytorch.memo_weak_no_leak fails, exit 1).
#   harness/backend_module_check.sh path/to/storcheck [--fault-build]
set -uo pipefail
bin=$1
fault_build=${2:-}
dir=$(mktemp -d /tmp/storcheck-module-XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cp "$bin" "$dir/storcheck" || fail "cannot copy $bin"
"$dir/storcheck" help >"$dir/help.txt" 2>&1 || fail "help without the module exited $?: $(cat "$dir/help.txt")"
grep -q '^usage: storcheck COMMAND' "$dir/help.txt" || fail "help printed: $(cat "$dir/help.txt")"
"$dir/storcheck" list >"$dir/list.txt" 2>&1 || fail "list without the module exited $?"
grep -q '^cow.matches_torch' "$dir/list.txt" || fail "list printed: $(cat "$dir/list.txt")"
"$dir/storcheck" check nope >"$dir/usage.txt" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "a usage error without the module exited $rc, expected 2"

"$dir/storcheck" check cow.matches_torch --programs 10 >"$dir/out.txt" 2>"$dir/err.txt"
rc=$?
cat "$dir/err.txt"
[ "$rc" -eq 3 ] || fail "a LibTorch check without the module exited $rc, expected 3"
[ "$(wc -l <"$dir/err.txt")" -eq 1 ] || fail "expected one line on stderr"
# (dlerror's reason is translated in other locales: only its place is checked)
grep -q "^storcheck: cannot load the LibTorch backends: $dir/storcheck_backends.so: ..*(the build puts it beside" \
  "$dir/err.txt" || fail "the error does not name the module and why"

printf '# storcheck program v1\nt0 = zeros [2,3] f32\nt1 = transpose t0 0 1\n' >"$dir/p.sc"
"$bin" repro "$dir/p.sc" >"$dir/ok.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "repro beside the module exited $rc: $(cat "$dir/ok.txt")"
grep -q '2 steps on 2 backends (reference, torch_cpu)' "$dir/ok.txt" ||
  fail "repro did not run on torch_cpu: $(cat "$dir/ok.txt")"

if [ "$fault_build" = --fault-build ]; then
  "$bin" check pytorch.memo_weak_no_leak --plant-fault memo_strong_ref --programs 300 --seed 1 \
    --findings-dir "$dir/findings" >"$dir/fault.txt" 2>&1
  rc=$?
  if grep -q '^pytorch.memo_weak_no_leak: skipped:' "$dir/fault.txt"; then
    echo "pytorch.memo_weak_no_leak skipped (no PyTorch backend): the shared fault switch is not checked"
  else
    [ "$rc" -eq 1 ] || fail "the planted memo_strong_ref went unseen by the module's PyTorch backend (exit $rc): $(tail -5 "$dir/fault.txt")"
  fi
fi
echo "ok"
