#!/usr/bin/env bash
# Validates everything under deploy/ (and the Dockerfile and compose file)
# with each validator that is installed; a missing one is reported SKIP and
# never fails the run. Exit status 1 when any validator finds a fault.
#   systemd-analyze verify   systemd units (with ExecStart pointed at a stand-in binary)
#   caddy validate           deploy/caddy/Caddyfile
#   nginx -t                 deploy/nginx/gpusched.conf (in a throwaway main config, self-signed cert)
#   docker-compose config    docker-compose.yml (Debian's docker-compose; `docker compose` if present)
#   hadolint                 Dockerfile
#   promtool check rules     deploy/prometheus/alerts.yml (and promtool test rules on its tests)
#   python3 json             deploy/grafana/*.json
#   (shellcheck)             the release and deploy scripts
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

ok()   { printf 'OK    %s\n' "$1"; }
skip() { printf 'SKIP  %s (%s not installed)\n' "$1" "$2"; }
fail() { printf 'FAIL  %s\n' "$1"; sed 's/^/      /' "$tmp/out"; failed=1; }
# check NAME TOOL CMD...: run CMD when TOOL is installed.
check() {
  local name=$1 tool=$2; shift 2
  if ! command -v "$tool" >/dev/null 2>&1; then skip "$name" "$tool"; return; fi
  if "$@" >"$tmp/out" 2>&1; then ok "$name"; else fail "$name"; fi
}

# systemd: verify needs ExecStart to exist; point it at a stand-in.
units() {
  mkdir -p "$tmp/units"
  for u in deploy/systemd/*.service; do
    sed "s|^ExecStart=/usr/local/bin/gpusched\(-server\)\{0,1\}|ExecStart=$(command -v true)|" "$u" > "$tmp/units/$(basename "$u")"
  done
  out=$(systemd-analyze verify --man=no "$tmp"/units/*.service 2>&1)
  echo "$out"
  # verify exits 0 on some warnings: fail on any line about our units.
  ! grep -q '\.service' <<<"$out"
}
check "systemd units (systemd-analyze verify)" systemd-analyze units

check "Caddyfile (caddy validate)" caddy caddy validate --config deploy/caddy/Caddyfile --adapter caddyfile

nginx_conf() {
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=gpus.example.com \
    -keyout "$tmp/key.pem" -out "$tmp/cert.pem" >/dev/null 2>&1 || return 1
  sed -e "s|/etc/letsencrypt/live/[a-z.]*/fullchain.pem|$tmp/cert.pem|" \
      -e "s|/etc/letsencrypt/live/[a-z.]*/privkey.pem|$tmp/key.pem|" deploy/nginx/gpusched.conf > "$tmp/site.conf"
  cat > "$tmp/nginx.conf" <<CONF
pid $tmp/nginx.pid;
error_log $tmp/error.log;
events {}
http { access_log off; include $tmp/site.conf; }
CONF
  nginx -t -q -p "$tmp" -c "$tmp/nginx.conf"
}
if command -v openssl >/dev/null 2>&1; then
  check "nginx site (nginx -t)" nginx nginx_conf
else
  skip "nginx site (nginx -t)" openssl
fi

compose() {
  GPUSCHED_SESSION_KEY=check-only-not-a-secret-0123456789abcdef \
    docker-compose -f docker-compose.yml config -q
}
if command -v docker-compose >/dev/null 2>&1; then
  check "docker-compose.yml (docker-compose config)" docker-compose compose
else
  compose_plugin() { GPUSCHED_SESSION_KEY=check-only-not-a-secret-0123456789abcdef docker compose -f docker-compose.yml config -q; }
  if command -v docker >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; then
    check "docker-compose.yml (docker compose config)" docker compose_plugin
  else
    skip "docker-compose.yml" docker-compose
  fi
fi

check "Dockerfile (hadolint)" hadolint hadolint Dockerfile

rules() {
  promtool check rules deploy/prometheus/alerts.yml || return 1
  if [ -f deploy/prometheus/alerts_test.yml ]; then promtool test rules deploy/prometheus/alerts_test.yml; fi
}
check "alert rules (promtool check rules)" promtool rules

json() { for f in deploy/grafana/*.json; do python3 -m json.tool "$f" >/dev/null || { echo "$f"; return 1; }; done; }
check "Grafana dashboards (JSON)" python3 json

check "scripts (shellcheck)" shellcheck shellcheck -S warning release/*.sh deploy/check.sh deploy/gpu-proof/run.sh

exit $failed
