# Sourced by benches/counts.sh and benches/zero_cost.sh: what both do to
# compare two commits' `profile` binaries. Expects $root (the repository),
# $work (a work folder), $tool (the script's name, for messages), $base and
# $new (revisions); an optional function `prepare TREE` runs in a commit's
# worktree before it is built.

# build LABEL REV: the `profile` binary of REV, as $work/profile-LABEL, built
# in a worktree of its own (removed after) with $work/target shared, so the
# dependencies build once. In one codegen unit: with the default sixteen,
# code added anywhere in the benches binary moves the units' boundaries and
# with them what is inlined where, so a scenario's count could move by a
# few percent with no change to its work (`changed_iter` did, by 7%, when
# `Lazy` was added; in one unit the two builds differed by 9 instructions).
# Set COUNTS_CODEGEN_UNITS to measure another setting.
build() {
    local tree=$work/wt-$1
    git -C "$root" worktree remove --force "$tree" 2>/dev/null || true
    git -C "$root" worktree add --quiet --detach "$tree" "$2"
    if declare -F prepare >/dev/null; then
        prepare "$tree"
    fi
    echo "$tool: building $2 ($1)" >&2
    (cd "$tree" && CARGO_TARGET_DIR=$work/target \
        CARGO_PROFILE_RELEASE_CODEGEN_UNITS=${COUNTS_CODEGEN_UNITS:-1} \
        cargo build --release --quiet -p typed_ecs_benches --bin profile)
    cp "$work/target/release/profile" "$work/profile-$1"
    git -C "$root" worktree remove --force "$tree"
}

# build_both: $base and $new as short hashes, $base_name and $new_name as
# "hash (subject)", and both binaries built.
build_both() {
    base=$(git -C "$root" rev-parse --short "$base^{commit}")
    new=$(git -C "$root" rev-parse --short "$new^{commit}")
    base_name=$(git -C "$root" log -1 --format='%h (%s)' "$base")
    new_name=$(git -C "$root" log -1 --format='%h (%s)' "$new")
    build base "$base"
    build new "$new"
}

# An awk function for the tables: `commas(x)`, x with thousands separators.
awk_commas='
    function commas(x,   t) {
        t = sprintf("%d", x)
        while (t ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", t)
        return t
    }'
