# Steps both Benchmarks/run and Benchmarks/instructions take before they measure: installing what
# the benchmark package links, and building it so that SwiftPM's stale state cannot creep in.
# Sourced, not run; each function takes the caller's name for its messages.

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else return 1
    fi
}

apt_install() {
    command -v apt-get >/dev/null 2>&1 || return 1
    as_root apt-get install -y "$@" >/dev/null 2>&1 && return 0
    as_root apt-get update >/dev/null 2>&1 || true
    as_root apt-get install -y "$@" >/dev/null 2>&1
}

# ensure_libplist CALLER: the benchmark package links libplist (its peer), through pkg-config.
ensure_libplist() {
    if ! pkg-config --exists libplist-2.0 2>/dev/null && ! pkg-config --exists libplist 2>/dev/null; then
        echo "$1: installing libplist-dev" >&2
        if ! apt_install libplist-dev; then
            echo "$1: libplist-dev is missing and could not be installed (apt-get install -y libplist-dev)" >&2
            exit 1
        fi
    fi
}

# build_benchmark CALLER PACKAGE_DIR SCRATCH: a release build of the benchmark package.
build_benchmark() {
    local scratch_path="$3" build_log
    # SwiftPM keeps the build plan of a path dependency and does not notice a source file added
    # to the root package; without the plan it plans again and picks the file up.
    rm -f "$scratch_path/release.yaml" "$scratch_path/release/description.json"
    # Nor does it always recompile the benchmark's own modules after a library type changed
    # size (or its inlinable code changed: `BenchmarkModels` specializes the archive decoder's
    # collection path), and a stale caller then overruns the stack slot it made for a result or
    # runs the old code; they are small, so they are compiled afresh every time.
    rm -rf "$scratch_path"/*/release/TroveBench.build "$scratch_path"/*/release/TroveProfile.build \
        "$scratch_path"/*/release/BenchmarkModels.build
    if ! build_log=$(swift build -c release --package-path "$2" --scratch-path "$scratch_path" 2>&1); then
        echo "$build_log" >&2
        echo "$1: the build in $2 failed" >&2
        exit 1
    fi
}
