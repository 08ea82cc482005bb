#!/usr/bin/env bash
# The HTML report of a 50-thread, 100-region report (synthesised, with time
# series) opens in real headless Chromium without console messages (errors,
# CSP violations, failed loads), and its screenshot is not blank: the four
# level-1 colours are on it. Same for a report without TopDown.
# Installs Debian's chromium when missing and run as root.
. "$(dirname "$0")/lib.bash"
R=$BUILD/tdprobe-report

if ! command -v chromium >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "  installing chromium (apt-get)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >"$WORK/apt.log" 2>&1 \
      || { tail -5 "$WORK/apt.log"; skip "chromium could not be installed"; }
  else
    skip "chromium not installed (Debian package chromium) and not root to install it"
  fi
fi
command -v python3 >/dev/null || skip "python3 not installed (needed to read the screenshot)"

# shot HTML PNG: headless Chromium with its console on stderr.
shot() {
  local ud; ud=$(mktemp -d "$WORK/chr.XXXXXX")
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --no-first-run --user-data-dir="$ud" --enable-logging=stderr --v=0 \
    --screenshot="$2" --window-size=1280,900 "file://$1" >"$2.log" 2>&1
}

# The console detector must see a page's errors: a deliberately broken page.
printf '<!DOCTYPE html><html><body><script>console.error("tdprobe-probe"); nosuchfn();</script></body></html>' >"$WORK/broken.html"
shot "$WORK/broken.html" "$WORK/broken.png"
grep -q 'CONSOLE.*tdprobe-probe' "$WORK/broken.png.log" && ok "console messages are visible in Chromium's log" \
  || { fail "Chromium's log does not show console messages: the check below would prove nothing"; tail -5 "$WORK/broken.png.log"; }

"$TARGETS/td-synth-report" -t 50 -r 100 -l 2 -S >"$WORK/big.json"
"$R" --html "$WORK/big.html" "$WORK/big.json" 2>/dev/null || fail "tdprobe report --html failed"
size=$(stat -c %s "$WORK/big.html")
rows=$(grep -o '<details class="row' "$WORK/big.html" | wc -l)
svgs=$(grep -o '<svg ' "$WORK/big.html" | wc -l)
[ "$rows" = $((50 + 1 + 100)) ] && ok "HTML: $size bytes, $rows bar rows (50 threads + total + 100 regions)" \
  || fail "HTML has $rows bar rows, want 151"
[ "$svgs" = 50 ] && ok "HTML: 50 time-series charts" || fail "HTML has $svgs charts, want 50"
grep -Eq '(src|href)=|url\(|<script' "$WORK/big.html" && fail "HTML loads or links something" || ok "HTML self-contained (no src/href/url()/script)"

shot "$WORK/big.html" "$WORK/big.png"
[ -s "$WORK/big.png" ] && ok "Chromium rendered the page" || { fail "no screenshot"; tail -5 "$WORK/big.png.log"; }
if grep -E 'CONSOLE|Refused|Uncaught|ERR_' "$WORK/big.png.log"; then fail "console messages from our page (above)"; else ok "no console messages"; fi
if out=$(python3 "$HERE/png_colours.py" "$WORK/big.png" '#2e9e5b' '#d64541' '#8e6cc9' '#e08a1e'); then
  ok "screenshot not blank: $(echo "$out" | head -1)"
else
  fail "screenshot blank or bars missing: $out"
fi

# Without TopDown: time bars (blue) and the reason.
"$TARGETS/td-synth-report" -t 50 -r 100 -l 0 -S >"$WORK/sw.json"
"$R" --html "$WORK/sw.html" "$WORK/sw.json" 2>/dev/null
grep -q "No TopDown breakdown.*no hardware PMU" "$WORK/sw.html" && ok "no-TopDown page says why" || fail "no-TopDown page lacks the reason"
shot "$WORK/sw.html" "$WORK/sw.png"
if grep -E 'CONSOLE|Refused|Uncaught|ERR_' "$WORK/sw.png.log"; then fail "console messages (no-TopDown page)"; else ok "no console messages (no-TopDown page)"; fi
if out=$(python3 "$HERE/png_colours.py" "$WORK/sw.png" '#4a7fc1'); then
  ok "no-TopDown screenshot not blank: $(echo "$out" | head -1)"
else
  fail "no-TopDown screenshot blank: $out"
fi
finish
