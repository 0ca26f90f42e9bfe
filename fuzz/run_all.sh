#!/usr/bin/env bash
# Runs every fuzz target (or the TARGETs named) for SECONDS each (default 60), as many at once
# as the machine has cores:
#   fuzz/run_all.sh [SECONDS [TARGET...]]
# Uses nightly with AddressSanitizer when a nightly toolchain is installed, otherwise stable
# with `-s none` (panics, overflow checks, OOM and timeouts are still caught).
# New inputs go to fuzz/corpus/<target> (ignored by git); committed seeds are read-only.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
shift || true
targets=("$@")
named="${#targets[@]}"
if [ "$named" -eq 0 ]; then
  # Listed first, so that a missing cargo-fuzz fails the run (a process substitution's
  # failure would not), and an empty list is an error rather than a pass.
  listed="$(cargo fuzz list)"
  mapfile -t targets <<<"$listed"
  [ -n "$listed" ] || { echo "cargo fuzz list named no target" >&2; exit 1; }
fi
if rustup toolchain list 2>/dev/null | grep -q nightly; then
  fuzz=(cargo +nightly fuzz run)
  build=(cargo +nightly fuzz build)
else
  fuzz=(cargo fuzz run -s none)
  build=(cargo fuzz build -s none)
fi
if [ "$named" -eq 0 ]; then
  # Every target built by one cargo invocation, which compiles and links them side by side,
  # instead of one at a time as each run starts (the runs then find them built).
  "${build[@]}"
fi
# One target's run: its summary printed in one piece when it ends, its exit status left in
# logs/<target>.status.
run_target() {
  local target="$1" dict=() shared=() status=0
  case "$target" in
    dpm|probe_any) dict=(-dict=dict/dpm.dict) ;;
    skm|skp|skm_pair) dict=(-dict=dict/skm.dict) ;;
    ms3d) dict=(-dict=dict/ms3d.dict) ;;
    mdl|hmp) dict=(-dict=dict/gamestudio.dict) ;;
    quake|mdl2) dict=(-dict=dict/quake.dict) ;;
    iqm) dict=(-dict=dict/iqm.dict) ;;
    mdl7) dict=(-dict=dict/mdl7.dict) ;;
    md3|assembly) dict=(-dict=dict/md3.dict) ;;
    md2) dict=(-dict=dict/md2.dict) ;;
    mdc) dict=(-dict=dict/mdc.dict) ;;
    md5) dict=(-dict=dict/md5.dict) ;;
    zym) dict=(-dict=dict/zym.dict) ;;
    mdr) dict=(-dict=dict/mdr.dict) ;;
    psk|psa) dict=(-dict=dict/psk.dict) ;;
    gltf_import) dict=(-dict=dict/gltf.dict) ;;
    hl1) dict=(-dict=dict/hl1.dict) ;;
    mdm|mdx) dict=(-dict=dict/mdm.dict) ;;
  esac
  # Real files of the formats added later seed their targets where the shared corpus is.
  case "$target" in
    iqm) [ -d ../../shared/corpus-next/iqm ] && shared=(../../shared/corpus-next/iqm) ;;
    mdl7) [ -d ../../shared/corpus-next/mdl7 ] && shared=(../../shared/corpus-next/mdl7) ;;
    md3) [ -d ../../shared/corpus-engines/md3 ] && shared=(../../shared/corpus-engines/md3) ;;
    md2) [ -d ../../shared/corpus-engines/md2 ] && shared=(../../shared/corpus-engines/md2) ;;
    mdc) [ -d ../../shared/corpus-engines/mdc ] && shared=(../../shared/corpus-engines/mdc) ;;
    md5) [ -d ../../shared/corpus-engines/md5 ] && shared=(../../shared/corpus-engines/md5) ;;
    hl1) [ -d ../../shared/corpus-engines/hl1 ] && shared=(../../shared/corpus-engines/hl1) ;;
  esac
  local log="logs/$target.log"
  "${fuzz[@]}" "$target" "corpus/$target" "seeds/$target" "${shared[@]}" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=2 "${dict[@]}" >"$log" 2>&1 || status=$?
  echo "$status" >"logs/$target.status"
  # The last coverage line (#runs, cov, ft, corpus), the run count, and any failure.
  {
    echo "== $target (${seconds}s, full log in $log)"
    grep -E '^#[0-9]+' "$log" | tail -n 1 || true
    grep -E '^Done [0-9]+ runs|ERROR|panicked|deadly signal|Test unit written' "$log" || true
    [ "$status" -eq 0 ] || echo "$target failed (exit $status)"
  }
}

# Targets side by side, as many as the machine has cores (FUZZ_JOBS to choose): each fuzzer
# is one process on one core, so every target is fuzzed as long in a fraction of the time.
jobs_at_once="${FUZZ_JOBS:-$(nproc)}"
mkdir -p logs
rm -f logs/*.status
for target in "${targets[@]}"; do
  mkdir -p "corpus/$target"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do
    wait -n || true
  done
  run_target "$target" &
done
wait
failed=0
for target in "${targets[@]}"; do
  [ "$(cat "logs/$target.status" 2>/dev/null)" = 0 ] || failed=1
done
exit "$failed"
