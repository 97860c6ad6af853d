#!/usr/bin/env bash
# Loads a TLS node's status page and /metrics in headless Chromium presenting a client certificate
# (mutual TLS, as every HTTP caller of a TLS node must), and checks that a caller without one is
# refused. The node authorizes by a grants file (--acl). Certificates come from openssl, made as
# docs/security.md says; Chromium takes the client certificate from an NSS database in a home of
# its own (certutil/pk12util from libnss3-tools) and selects it by policy. Saves the page to
# target/ci/status-page-tls.html and a screenshot. Installs libnss3-tools when missing. Ends only the
# processes it started.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/ci
mkdir -p "$out"
work=$(mktemp -d)
policy=/etc/chromium/policies/managed/vcorfu-ci-client-certificate.json
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -f "$policy"
  rm -rf "$work"
}
trap cleanup EXIT

if ! command -v pk12util >/dev/null; then
  echo "status page (TLS): installing libnss3-tools"
  apt-get install -y -q libnss3-tools >"$out/apt-nss.log" 2>&1 \
    || (apt-get update -q >>"$out/apt-nss.log" 2>&1 && apt-get install -y -q libnss3-tools >>"$out/apt-nss.log" 2>&1)
fi

# The CA, the node's certificate (naming 127.0.0.1) and the browser's.
cd "$work"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -subj "/CN=vcorfu ci CA" -keyout ca.key -out ca.pem 2>/dev/null
for who in node browser; do
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -subj "/CN=$who" -keyout $who.key -out $who.csr 2>/dev/null
  openssl x509 -req -in $who.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
    -extfile <(printf "subjectAltName=IP:127.0.0.1\nkeyUsage=digitalSignature,keyEncipherment") \
    -out $who.pem 2>/dev/null
done
openssl pkcs12 -export -in browser.pem -inkey browser.key -passout pass: -out browser.p12
cd - >/dev/null

bin/vcorfu acl grant --file "$work/acl.json" --principal '*' --prefix ci/ --permissions read,write >/dev/null
port=19301
metrics=19302
bin/vcorfu server --port $port --data-dir "$work/data" --metrics-port $metrics \
  --tls-cert "$work/node.pem" --tls-key "$work/node.key" --tls-ca "$work/ca.pem" \
  --acl "$work/acl.json" >"$work/node.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 600); do
  grep -q ready "$work/node.log" && break
  kill -0 "${pids[0]}" 2>/dev/null || { echo "status page (TLS): node exited:"; cat "$work/node.log"; exit 1; }
  sleep 0.1
done
grep -q ready "$work/node.log" || { echo "status page (TLS): node not ready:"; cat "$work/node.log"; exit 1; }
bin/vcorfu log append --endpoint 127.0.0.1:$port --tls-ca "$work/ca.pem" --tls-cert "$work/browser.pem" \
  --tls-key "$work/browser.key" --stream ci/page "hello over tls" >/dev/null

# Chromium's certificates: the CA trusted, the browser's certificate and key, in a home of its own.
home="$work/home"
mkdir -p "$home/.pki/nssdb"
certutil -N -d "sql:$home/.pki/nssdb" --empty-password
certutil -A -d "sql:$home/.pki/nssdb" -n "vcorfu ci CA" -t "C,," -i "$work/ca.pem"
pk12util -i "$work/browser.p12" -d "sql:$home/.pki/nssdb" -W "" >/dev/null
mkdir -p "$(dirname "$policy")"
printf '{"AutoSelectCertificateForUrls": ["{\\"pattern\\":\\"https://127.0.0.1:%s\\",\\"filter\\":{}}"]}\n' \
  $metrics >"$policy"

flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync
  --user-data-dir="$work/chromium" --virtual-time-budget=5000)
url=https://127.0.0.1:$metrics/
# Runs Chromium on the URL with the given flags; one that has not finished in 20 s is waiting for a
# choice of certificate (the policy did not select one): that fails the check at once.
browse() {
  local rc=0
  HOME="$home" timeout 20 chromium "${flags[@]}" "$@" 2>>"$out/chromium-tls.log" || rc=$?
  if ((rc == 124)); then
    echo "status page (TLS): Chromium did not finish in 20 s (no client certificate selected?)" >&2
    tail -20 "$out/chromium-tls.log" >&2
    exit 1
  fi
}
: >"$out/chromium-tls.log"
for _ in $(seq 1 40); do
  browse --dump-dom "$url" >"$out/status-page-tls.html"
  grep -q '>serving<' "$out/status-page-tls.html" && break
  sleep 0.5
done
browse --dump-dom "${url}metrics" >"$out/metrics-tls.html"
browse --window-size=1280,900 --screenshot="$out/status-page-tls.png" "$url" >/dev/null

fail=0
grep -q '>serving<' "$out/status-page-tls.html" || { echo "status page (TLS): the node is not shown serving"; fail=1; }
grep -q "127.0.0.1:$port" "$out/status-page-tls.html" || { echo "status page (TLS): the node is missing"; fail=1; }
grep -q 'vcorfu_' "$out/metrics-tls.html" || { echo "status page (TLS): /metrics has no vcorfu_ metric"; fail=1; }
# Without a client certificate the node refuses the caller.
if curl -s -o /dev/null --max-time 5 --cacert "$work/ca.pem" "$url"; then
  echo "status page (TLS): a caller without a certificate was served"; fail=1
fi
curl -s -o /dev/null --max-time 5 --cacert "$work/ca.pem" --cert "$work/browser.pem" --key "$work/browser.key" "$url" \
  || { echo "status page (TLS): a caller with a certificate was refused"; fail=1; }
if [ $fail -ne 0 ]; then
  echo "status page (TLS): page was:"; cat "$out/status-page-tls.html"; tail -20 "$out/chromium-tls.log"; exit 1
fi
echo "status page (TLS): page and /metrics over mutual TLS in Chromium, screenshot in $out/status-page-tls.png"
