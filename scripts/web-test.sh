#!/usr/bin/env bash
# The correctness matrix in a real browser: builds examples/web for wasm32 (wgpu's WebGPU
# backend), serves it on 127.0.0.1, opens it in headless Chromium on SwiftShader's WebGPU
# adapter (Vulkan on the CPU, no GPU needed), and fails unless every f32 case passed and nothing
# failed. f16 cases are skipped, with the reason printed, when the adapter has no shader-f16.
#
# Installs what is missing: the wasm32 target (rustup), wasm-bindgen-cli at the wasm-bindgen
# version in Cargo.lock (cargo install), chromium (apt-get). WEB_TEST_TIMEOUT (seconds, default
# 2400) bounds the browser run: on a 2-core machine it takes a few minutes (it took about 15
# while the decode kernel held V loads across its barriers, which SwiftShader compiled in about
# 2 minutes a variant: wgsl/vector.wgsl's VEARLY); WEB_TEST_KEEP=1 keeps Chromium's log beside
# the page in target/web/ (serve that folder to look at the page yourself).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
timeout_s=${WEB_TEST_TIMEOUT:-2400}
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi

# --- tools ---
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
bindgen_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
if [ -z "$bindgen_version" ]; then
  echo "web-test: no wasm-bindgen in Cargo.lock" >&2
  exit 2
fi
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $bindgen_version" ]; then
  echo "web-test: installing wasm-bindgen-cli $bindgen_version (Cargo.lock's wasm-bindgen)" >&2
  cargo install --quiet --force wasm-bindgen-cli --version "$bindgen_version"
fi
if ! command -v chromium >/dev/null 2>&1; then
  echo "web-test: installing chromium (apt-get install chromium)" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi

# --- the page ---
cargo build --release --target wasm32-unknown-unknown -p wgpu-sdpa-web
site=target/web
rm -rf "$site"
mkdir -p "$site"
wasm-bindgen --target web --no-typescript --out-dir "$site" \
  target/wasm32-unknown-unknown/release/wgpu_sdpa_web.wasm
cp examples/web/index.html "$site/"

# --- serve it and open it ---
work=$(mktemp -d)
server_pid=""
browser_pid=""
cleanup() {
  # Only what this script started: the browser's process group, the server.
  if [ -n "$browser_pid" ]; then kill -- "-$browser_pid" 2>/dev/null || true; fi
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$site" "$port" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
  if python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/index.html')" 2>/dev/null; then
    break
  fi
  sleep 0.1
done
url="http://127.0.0.1:$port/index.html"

# SwiftShader's Vulkan under Chromium's WebGPU (Dawn); no network, no profile, no sandbox (root).
# Console messages go to stderr, where the page's last line, SDPA-WEB-DONE ..., is awaited.
flags=(--headless --no-sandbox --enable-unsafe-webgpu --enable-features=Vulkan
  --use-vulkan=swiftshader --use-webgpu-adapter=swiftshader --disable-gpu --disable-quic
  --no-first-run --disable-background-networking --disable-component-update --disable-sync
  --user-data-dir="$work/profile" --enable-logging=stderr --v=0)
log="$work/chromium.log"
echo "web-test: chromium $(chromium --version 2>/dev/null | awk '{print $2}') on $url (timeout ${timeout_s}s)"
setsid chromium "${flags[@]}" "$url" >"$log" 2>&1 &
browser_pid=$!
start=$SECONDS
marker=""
while [ $((SECONDS - start)) -lt "$timeout_s" ]; do
  marker=$(grep -o 'SDPA-WEB-DONE[^"]*' "$log" | head -1 || true)
  if [ -n "$marker" ]; then break; fi
  if ! kill -0 "$browser_pid" 2>/dev/null; then break; fi
  sleep 1
done
elapsed=$((SECONDS - start))

# The page's lines, as the console logged them ('... CONSOLE(n)] "line", source: ...').
sed -n 's/.*:CONSOLE[^]]*\] "\(.*\)", source: .*/\1/p' "$log"
if [ "${WEB_TEST_KEEP:-}" = 1 ]; then
  cp "$log" "$site/chromium.log"
fi
if [ -z "$marker" ]; then
  echo "web-test: FAILED: no result from the page after ${elapsed}s; chromium's log:" >&2
  tail -n 60 "$log" >&2
  exit 1
fi
echo "web-test: $marker (${elapsed}s in the browser)"
value() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$marker"; }
passed=$(value passed)
failed=$(value failed)
skipped=$(value skipped)
f32_passed=$(value f32_passed)
f32_total=$(value f32_total)
gpu_errors=$(value gpu_errors)
if [ -z "$passed" ]; then
  echo "web-test: FAILED: the page reported an error" >&2
  exit 1
fi
echo "webgpu: $passed passed, $failed failed, $skipped skipped"
if [ "$failed" -ne 0 ] || [ "$gpu_errors" -ne 0 ] || [ "$f32_total" -eq 0 ] ||
  [ "$f32_passed" -ne "$f32_total" ]; then
  echo "web-test: FAILED: $f32_passed of $f32_total f32 cases passed, $failed failed, $gpu_errors wgpu errors" >&2
  exit 1
fi
