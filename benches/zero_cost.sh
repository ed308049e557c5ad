#!/usr/bin/env bash
# Zero cost when untracked: callgrind's instruction counts of typed_ecs's
# timed run in three scenarios whose worlds track nothing (simple_iter,
# add_remove, random_get), built from two commits, and their ratio. Writes
# target/bench-report/zero_cost.md, which the report
# (`cargo run --release -p typed_ecs_benches --bin report`) puts in its
# Change detection section.
#
#   benches/zero_cost.sh [BASE [NEW]]
#
# BASE defaults to 72a6bd0, the commit before change detection; NEW to
# HEAD (committed work only: uncommitted edits are not measured). Each is
# checked out in a worktree of its own and its `profile` binary built there,
# with one CARGO_TARGET_DIR for both so the dependencies build once; the
# worktrees are removed at the end. Work files go to $ZERO_COST_DIR
# (default target/zero-cost). Needs valgrind.

set -euo pipefail

root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
base=${1:-72a6bd0}
new=${2:-HEAD}
runs=20
scenarios=(simple_iter add_remove random_get)
work=${ZERO_COST_DIR:-$root/target/zero-cost}
out=$root/target/bench-report/zero_cost.md
mkdir -p "$work" "$(dirname "$out")"

tool=zero_cost
# shellcheck source=benches/two_commits.sh
. "$root/benches/two_commits.sh"

# count LABEL SCENARIO: the instructions of $runs runs of typed_ecs's
# implementation (its `Instance::run` and everything it calls; the setup
# is not counted).
count() {
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.$1.$2" \
        "--toggle-collect=*scenarios::$2::typed_ecs::State*Instance*run*" \
        "$work/profile-$1" "$2" typed_ecs "$runs" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

build_both

{
    echo "### Zero cost when untracked"
    echo
    echo "Whether a storage that tracks nothing still compiles to the code it had before change detection: callgrind's instruction counts of typed_ecs's timed run (its \`Instance::run\` and all it calls, ${runs} runs after one setup, the setup not counted) in three scenarios whose worlds track nothing, built from two commits: *before*, ${base_name}, and *after*, ${new_name}. Counts do not depend on the machine's load, so a difference of a few instructions shows."
    echo
    echo "Regenerate: \`benches/zero_cost.sh ${base} ${new}\` ($(valgrind --version), $(rustc -V | cut -d' ' -f1-2))."
    echo
    echo "| scenario | before | after | **after / before** | difference per run |"
    echo "|---|---:|---:|---:|---:|"
    worst=0
    for s in "${scenarios[@]}"; do
        b=$(count base "$s")
        n=$(count new "$s")
        awk -v s="$s" -v b="$b" -v n="$n" -v r="$runs" "$awk_commas"'
            BEGIN {
                printf "| `%s` | %s | %s | **%.4f×** | %+.1f instructions |\n",
                    s, commas(b), commas(n), n / b, (n - b) / r
            }'
        worst=$(awk -v w="$worst" -v b="$b" -v n="$n" 'BEGIN { r = n / b; printf "%.17g\n", (r > w ? r : w) }')
    done
    echo
    awk -v w="$worst" 'BEGIN {
        printf "**Target**: after / before ≤ 1.0010× in every scenario (no instruction per entity or per operation). **%s**: at most %.4f×.\n",
            (w <= 1.001 ? "met" : "missed"), w
    }'
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "zero_cost: wrote $out" >&2
cat "$out"
