#!/usr/bin/env bash
# Makes a CA and a server certificate for 127.0.0.1 (the host's Prometheus
# reaches the guest's exporter through a port forward there), a bcrypt hash
# for basic auth and the exporter's web config, all under RUN/tls (the guest
# reads them as /out/tls). Prints the Prometheus job's TLS and auth settings.
set -euo pipefail
run=$1
d=$run/tls
mkdir -p "$d"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=rnic-test-ca" \
  -keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
  -keyout "$d/server.key" -out "$d/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$d/ext.cnf"
openssl x509 -req -in "$d/server.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" \
  -CAcreateserial -days 2 -extfile "$d/ext.cnf" -out "$d/server.crt" 2>/dev/null
# Cost 5 keeps bcrypt quick under TCG; the exporter accepts any cost.
hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=32)))')
cat >"$d/web-config.yml" <<YAML
tls_server_config:
  cert_file: /out/tls/server.crt
  key_file: /out/tls/server.key
basic_auth_users:
  prom: '$hash'
YAML
cat <<YAML
scheme: https
tls_config: {ca_file: '$d/ca.crt'}
basic_auth: {username: prom, password: s3cret}
YAML
