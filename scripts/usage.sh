# Sourced by the scripts beside it before they do anything: with -h or --help as the first
# argument, prints the script's header comment (what it does and its usage) and exits 0.
case "${1:-}" in
-h | --help)
    sed -n '2,/^[^#]/{/^#/{s/^# \{0,1\}//;p}}' "$0"
    exit 0
    ;;
esac
