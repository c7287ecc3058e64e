#!/usr/bin/env bash
# Checks the open-loop generator against nginx answering an empty 204 (nothing on the server side
# costs anything), so a kvorum result can be told apart from a generator limit. Installs nginx with
# apt when missing (root), runs it on 127.0.0.1:18999 with one worker per core, then the generator
# at each rate given (default 10000 20000 40000 60000 80000) for 30 s.
set -euo pipefail
[ "${1:-}" != --help ] || { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0; }
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
command -v nginx > /dev/null || { apt-get update -qq && apt-get install -y -qq nginx > /dev/null; }
work=$(mktemp -d)
cat > "$work/nginx.conf" <<CONF
worker_processes auto;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:18999;
    location / { return 204; }
  }
}
CONF
nginx -c "$work/nginx.conf"
trap 'nginx -c "$work/nginx.conf" -s stop; rm -rf "$work"' EXIT
rates=$(IFS=,; echo "${*:-10000,20000,40000,60000,80000}")
rates=${rates// /,}
bench/run.sh calibrate --url http://127.0.0.1:18999/ --rates "$rates"
