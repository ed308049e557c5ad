#!/usr/bin/env bash
# Instruction counts of every typed_ecs benchmark: callgrind's count of ten
# runs of each typed_ecs implementation (its name starts with `typed_ecs`)
# of each scenario `profile --list` names, built from two commits, and their
# ratio. Writes target/bench-report/counts.md and prints it.
#
#   benches/counts.sh BASE [NEW]
#
# NEW defaults to HEAD (committed work only: uncommitted edits are not
# measured, except the `profile` binary itself: a commit whose
# benches/src/bin/profile.rs has no `--list` is built with the working
# tree's, which only adds the flag). Each is checked out in a worktree of
# its own and its `profile` binary built there, with one CARGO_TARGET_DIR
# for both so the dependencies build once; the worktrees are removed at the
# end. The whole process is counted (implementations' module paths differ,
# so no --toggle-collect) at 2 and at 12 runs; the difference is ten runs,
# the setup left out. Pairs the BASE binary cannot run (a scenario or an
# implementation it lacks) are skipped, and so are scenarios and
# implementations on threads (a word `par`, `parallel`, `pool` or `stage`
# in the name: their counts vary from run to run) and `scaling` (simple_iter
# at four sizes). COUNTS_SIZES="SCENARIO=N ..." runs a scenario at size N
# instead of its first size (for both commits). Work files go to
# $COUNTS_DIR (default target/counts). Needs valgrind.

set -euo pipefail

root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
base=${1:?usage: benches/counts.sh BASE [NEW]}
new=${2:-HEAD}
few=2
many=12
work=${COUNTS_DIR:-$root/target/counts}
out=$root/target/bench-report/counts.md
mkdir -p "$work" "$(dirname "$out")"
declare -A sizes=()
for s in ${COUNTS_SIZES:-}; do
    sizes[${s%%=*}]=${s#*=}
done

tool=counts
# A commit whose profile.rs has no `--list` is built with the working
# tree's, which only adds the flag.
prepare() {
    local bin=benches/src/bin/profile.rs
    if ! grep -q -- '--list' "$1/$bin"; then
        cp "$root/$bin" "$1/$bin"
    fi
}
# shellcheck source=benches/two_commits.sh
. "$root/benches/two_commits.sh"

# count LABEL SCENARIO IMPLEMENTATION RUNS [SIZE]: the instructions of the
# whole process.
count() {
    local file
    file=$work/callgrind.$1.${2}.${3// /_}.$4
    valgrind --tool=callgrind --callgrind-out-file="$file" \
        "$work/profile-$1" "$2" "$3" "$4" ${5:+"$5"} </dev/null 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# runs LABEL SCENARIO IMPLEMENTATION [SIZE]: the instructions of
# $many - $few runs.
runs() {
    local a b
    a=$(count "$1" "$2" "$3" "$few" ${4:+"$4"})
    b=$(count "$1" "$2" "$3" "$many" ${4:+"$4"})
    echo $((b - a))
}

# threaded NAME: whether NAME has a word (between `_` and spaces) that
# means threads, or is `scaling`.
threaded() {
    local w
    for w in ${1//_/ }; do
        case $w in par | parallel | pool | stage | scaling) return 0 ;; esac
    done
    return 1
}

build_both

rows=$work/rows.md
: > "$rows"
skipped=()
while IFS=$'\t' read -r s i; do
    if threaded "$s" || threaded "$i"; then
        skipped+=("\`$s\` / \`$i\` (threads)")
        continue
    fi
    size=${sizes[$s]:-}
    if ! "$work/profile-base" "$s" "$i" 0 ${size:+"$size"} </dev/null >/dev/null 2>&1; then
        skipped+=("\`$s\` / \`$i\` (not in $base)")
        continue
    fi
    echo "counts: $s / $i${size:+ at $size}" >&2
    runs base "$s" "$i" "$size" > "$work/b" &
    runs new "$s" "$i" "$size" > "$work/n"
    wait $!
    b=$(cat "$work/b")
    n=$(cat "$work/n")
    awk -v s="$s${size:+ (size $size)}" -v i="$i" -v b="$b" -v n="$n" "$awk_commas"'
        BEGIN {
            r = n / b
            f = r > 1.01 ? "**%.4f×**" : "%.4f×"
            printf "| `%s` | `%s` | %s | %s | " f " |\n", s, i, commas(b), commas(n), r
        }' >> "$rows"
done < <("$work/profile-new" --list)

{
    echo "### Instruction counts, $base → $new"
    echo
    echo "callgrind's instruction counts of $((many - few)) runs of each typed_ecs implementation (the whole process at ${many} runs less at ${few}: the setup left out), built from *base*, ${base_name}, and *new*, ${new_name}. Ratios above 1.01× in bold."
    echo
    echo "Regenerate: \`benches/counts.sh ${base} ${new}\` ($(valgrind --version), $(rustc -V | cut -d' ' -f1-2))."
    echo
    echo "| scenario | implementation | base | new | new / base |"
    echo "|---|---|---:|---:|---:|"
    cat "$rows"
    if ((${#skipped[@]})); then
        echo
        echo "Skipped: $(printf '%s, ' "${skipped[@]}" | sed 's/, $//')."
    fi
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "counts: wrote $out" >&2
cat "$out"
