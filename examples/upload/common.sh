# Shared by upload-aws and upload-rclone: checks on the output folder, and which remote variants
# are stale and old enough to delete. Sourced, not run.

say() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; }
die() { say "$*"; exit 1; }

# The variant paths a manifest lists ("path" : "3f/3fa4...-full-9b1e04d2.jpg"), one a line.
# Variant paths are hex, letters, digits, "_", "-", "." and "/" (which JSON may write as "\/").
referenced_paths() {
    { grep -o '"path"[[:space:]]*:[[:space:]]*"[^"]*"' "$1" || true; } \
        | sed 's/^"path"[[:space:]]*:[[:space:]]*"//; s/"$//; s|\\/|/|g' | sort -u
}

# Names of ladder's variant files (<2 hex>/<40 hex>-<variant>-<8 hex>.<ext>): the only remote
# objects ever deleted; anything else under the prefix is left alone.
variant_name='^[0-9a-f]{2}/[0-9a-f]{40}-[A-Za-z0-9_.-]+-[0-9a-f]{8}\.[a-z0-9]+$'

# The variant files' extensions and the Content-Type each is served with: the JPEG rungs and
# their format siblings. Set explicitly, since the upload tools' own guesses do not all know
# AVIF and JPEG XL (and a browser refuses an image sent as application/octet-stream in some
# contexts).
variant_types=("jpg image/jpeg" "webp image/webp" "avif image/avif" "jxl image/jxl")

# Checks the output folder before anything is uploaded: a whole manifest (not a shard's), and
# every variant it lists present beside it.
check_output() {
    local output=$1
    [ -f "$output/manifest.json" ] || die "$output/manifest.json is missing: run 'ladder build' first"
    if ls "$output"/manifest.shard-*.json >/dev/null 2>&1; then
        die "$output holds partial manifests: run 'ladder merge' before uploading"
    fi
    local missing
    missing=$(referenced_paths "$output/manifest.json" | while read -r path; do
        [ -f "$output/$path" ] || echo "$path"
    done)
    [ -z "$missing" ] || die "the manifest lists variants that are not in $output (run 'ladder verify'): $(echo "$missing" | head -3 | tr '\n' ' ')"
}

# plan_stale NOW GRACE PENDING LISTING REFERENCED DELETE KEEP
#   PENDING:    the previous pending list ("EPOCH PATH" lines: when each was first seen stale)
#   LISTING:    every remote object path under the prefix, one a line
#   REFERENCED: the paths the live manifest lists
# Writes to DELETE the stale variants first seen stale GRACE seconds ago or more, and to KEEP the
# new pending list (stale variants still within their grace period, with their first-seen time).
# A variant the manifest lists again is dropped from the list, so it is never deleted.
plan_stale() {
    local now=$1 grace=$2 pending=$3 listing=$4 referenced=$5 delete=$6 keep=$7
    grep -E "$variant_name" "$listing" | sort -u | comm -23 - "$referenced" >"$delete.stale" || true
    awk -v now="$now" -v grace="$grace" -v deletions="$delete" -v pending_out="$keep" '
        FILENAME == ARGV[1] { if (NF == 2) first[$2] = $1; next }
        {
            seen = ($1 in first) ? first[$1] : now
            if (now - seen >= grace) print $1 > deletions
            else print seen, $1 > pending_out
        }' "$pending" "$delete.stale"
    touch "$delete" "$keep"
    rm -f "$delete.stale"
}
