# Sourced by scripts/sanitize.sh and scripts/sanitize-threads.sh: the run's verdict. Every
# report a sanitizer wrote under REPORTS fails the run (a test expecting ejob to fail could
# take a sanitizer's exit for the expected error); otherwise ctest's STATUS stands.
#   sanitizer_verdict NAME REPORTS STATUS
sanitizer_verdict() {
  local name=$1 reports=$2 status=$3 f
  if [ -n "$(ls -A "$reports")" ]; then
    echo "$name: sanitizer reports (fix each; the test runs above name the input):" >&2
    for f in "$reports"/*; do
      echo "== $f" >&2
      cat "$f" >&2
    done
    return 1
  fi
  return "$status"
}
