"""--web.config.file end to end: the real binary serving TLS with a CA, server
and client certificates made by the real `openssl` CLI, checked with the real
`curl` and `openssl s_client`, and scraped by a real Prometheus over TLS with
basic_auth. Also every bad web config stops start-up with exit code 2."""
import ctypes
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

from rnic_e2e import Exporter

BIN = os.environ["RNIC_EXPORTER"]
SRC = os.environ["RNIC_SOURCE_DIR"]
FIXTURE = os.path.join(SRC, "tests", "fixtures", "sys")
BASE_ARGS = ["--path.sysfs=" + FIXTURE, "--path.devkmsg=/dev/null",
             "--collector.disable-defaults", "--collector.sysfs"]
PASSWORD = "s3cret:with colon"


def bcrypt(password, cost=5):
    """A bcrypt hash from the system's libcrypt (what the exporter checks with)."""
    lib = ctypes.CDLL("libcrypt.so.1")
    lib.crypt_gensalt.restype = ctypes.c_char_p
    lib.crypt.restype = ctypes.c_char_p
    salt = lib.crypt_gensalt(b"$2b$", cost, None, 0)
    return lib.crypt(password.encode(), salt).decode()


def openssl(*args):
    subprocess.run(["openssl"] + list(args), check=True, capture_output=True)


class Pki:
    """A CA, server certificates for 127.0.0.1, and a client certificate."""

    def __init__(self, d):
        self.d = d
        self.ca_crt, self.ca_key = self.path("ca.crt"), self.path("ca.key")
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                "-nodes", "-keyout", self.ca_key, "-out", self.ca_crt, "-days", "2",
                "-subj", "/CN=rnic test CA")
        self.ext = self.path("server.ext")
        with open(self.ext, "w") as f:
            f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        self.client_ext = self.path("client.ext")
        with open(self.client_ext, "w") as f:
            f.write("extendedKeyUsage=clientAuth\n")

    def path(self, name):
        return os.path.join(self.d, name)

    def issue(self, name, serial, ext=None):
        """Returns (crt, key) signed by the CA with the given serial."""
        key, csr, crt = self.path(name + ".key"), self.path(name + ".csr"), self.path(name + ".crt")
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", csr, "-subj", "/CN=" + name)
        openssl("x509", "-req", "-in", csr, "-CA", self.ca_crt, "-CAkey", self.ca_key,
                "-set_serial", str(serial), "-out", crt, "-days", "2",
                "-extfile", ext or self.ext)
        return crt, key


def curl(url, *args):
    """(curl exit code, HTTP status, response headers lower-cased)."""
    p = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-D", "-", "-w", "%{http_code}",
                        "--max-time", "20", url] + list(args),
                       capture_output=True, text=True)
    lines = p.stdout.splitlines()
    status = lines[-1] if lines else "000"
    headers = {}
    for line in lines[:-1]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    return p.returncode, status, headers


def served_serial(address):
    """The serial of the certificate the server presents, via openssl s_client."""
    host, port = address.rsplit(":", 1)
    s = subprocess.run(["openssl", "s_client", "-connect", "%s:%s" % (host, port),
                        "-servername", "localhost"],
                       input="", capture_output=True, text=True, timeout=20)
    x = subprocess.run(["openssl", "x509", "-noout", "-serial"], input=s.stdout,
                       capture_output=True, text=True)
    return x.stdout.strip()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebTlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rnic_tls_")
        cls.pki = Pki(cls.tmp)
        cls.server_crt, cls.server_key = cls.pki.issue("server", 1001)
        cls.client_crt, cls.client_key = cls.pki.issue("client", 3003, cls.pki.client_ext)
        cls.hash = bcrypt(PASSWORD)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def web_config(self, text, name="web.yml"):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def tls_config(self, extra_tls="", rest=""):
        return self.web_config(
            "tls_server_config:\n  cert_file: %s\n  key_file: %s\n%s%s" %
            (self.server_crt, self.server_key, extra_tls, rest))

    def start(self, web_yml):
        return Exporter(BIN, BASE_ARGS + ["--web.config.file=" + web_yml])

    def https(self, exporter, path="/metrics"):
        return "https://%s%s" % (exporter.address, path)

    def test_basic_auth_and_headers(self):
        cfg = self.tls_config(rest="basic_auth_users:\n  alice: '%s'\n"
                              "http_server_config:\n  headers:\n"
                              "    X-Content-Type-Options: nosniff\n" % self.hash)
        with self.start(cfg) as e:
            ca = ["--cacert", self.pki.ca_crt]
            rc, status, hdrs = curl(self.https(e), *ca, "-u", "alice:" + PASSWORD)
            self.assertEqual((rc, status), (0, "200"))
            self.assertEqual(hdrs.get("x-content-type-options"), "nosniff")
            # Again: served from the verification cache, same answer.
            self.assertEqual(curl(self.https(e), *ca, "-u", "alice:" + PASSWORD)[1], "200")
            for creds in (["-u", "alice:wrong"], ["-u", "bob:" + PASSWORD], []):
                rc, status, hdrs = curl(self.https(e), *ca, *creds)
                self.assertEqual(status, "401", creds)
                self.assertEqual(hdrs.get("www-authenticate"), 'Basic realm="rnic_exporter"')
                self.assertEqual(hdrs.get("x-content-type-options"), "nosniff")
            # Every path is behind auth, as with exporter-toolkit.
            self.assertEqual(curl(self.https(e, "/-/healthy"), *ca)[1], "401")
            # An unknown CA is refused by curl: the server presents our chain.
            rc, _, _ = curl(self.https(e), "-u", "alice:" + PASSWORD)
            self.assertNotEqual(rc, 0)

    def test_basic_auth_without_tls(self):
        cfg = self.web_config("basic_auth_users:\n  alice: '%s'\n" % self.hash, "auth.yml")
        with self.start(cfg) as e:
            url = "http://%s/metrics" % e.address
            self.assertEqual(curl(url, "-u", "alice:" + PASSWORD)[1], "200")
            # Twice: the second answer comes from the HMAC-keyed cache.
            self.assertEqual(curl(url, "-u", "alice:" + PASSWORD)[1], "200")
            self.assertEqual(curl(url, "-u", "alice:wrong")[1], "401")
            self.assertEqual(curl(url)[1], "401")

    def test_plain_http_to_tls_port_fails_cleanly(self):
        with self.start(self.tls_config()) as e:
            for _ in range(3):
                rc, status, _ = curl("http://%s/metrics" % e.address)
                # Closed connection (curl 52/56) or a 400: never a 200 in clear text.
                self.assertTrue(rc != 0 or status == "400", (rc, status))
            rc, status, _ = curl(self.https(e), "--cacert", self.pki.ca_crt)
            self.assertEqual((rc, status), (0, "200"))
            self.assertIsNone(e.proc.poll())

    def test_min_and_max_version(self):
        ca = ["--cacert", self.pki.ca_crt]
        with self.start(self.tls_config("  max_version: TLS12\n")) as e:
            self.assertEqual(curl(self.https(e), *ca, "--tls-max", "1.2")[1], "200")
            rc, status, _ = curl(self.https(e), *ca, "--tlsv1.3")
            self.assertNotEqual(rc, 0)
        with self.start(self.tls_config("  min_version: TLS13\n")) as e:
            self.assertEqual(curl(self.https(e), *ca, "--tlsv1.3")[1], "200")
            rc, status, _ = curl(self.https(e), *ca, "--tls-max", "1.2")
            self.assertNotEqual(rc, 0)

    def test_cipher_suites(self):
        ca = ["--cacert", self.pki.ca_crt]
        cfg = self.tls_config("  max_version: TLS12\n  cipher_suites:\n"
                              "    - TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384\n")
        with self.start(cfg) as e:
            self.assertEqual(curl(self.https(e), *ca, "--ciphers",
                                  "ECDHE-ECDSA-AES256-GCM-SHA384")[1], "200")
            rc, _, _ = curl(self.https(e), *ca, "--ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256")
            self.assertNotEqual(rc, 0)

    def test_client_certificates(self):
        ca = ["--cacert", self.pki.ca_crt]
        cfg = self.tls_config("  client_auth_type: RequireAndVerifyClientCert\n"
                              "  client_ca_file: %s\n" % self.pki.ca_crt)
        other = Pki(tempfile.mkdtemp(dir=self.tmp))
        stranger_crt, stranger_key = other.issue("stranger", 9, other.client_ext)
        with self.start(cfg) as e:
            rc, status, _ = curl(self.https(e), *ca, "--cert", self.client_crt,
                                 "--key", self.client_key)
            self.assertEqual((rc, status), (0, "200"))
            self.assertNotEqual(curl(self.https(e), *ca)[1], "200")
            self.assertNotEqual(curl(self.https(e), *ca, "--cert", stranger_crt,
                                     "--key", stranger_key)[1], "200")
        cfg = self.tls_config("  client_auth_type: RequireAnyClientCert\n")
        with self.start(cfg) as e:
            self.assertEqual(curl(self.https(e), *ca, "--cert", stranger_crt,
                                  "--key", stranger_key)[1], "200")
            self.assertNotEqual(curl(self.https(e), *ca)[1], "200")
        cfg = self.tls_config("  client_auth_type: VerifyClientCertIfGiven\n"
                              "  client_ca_file: %s\n" % self.pki.ca_crt)
        with self.start(cfg) as e:
            self.assertEqual(curl(self.https(e), *ca)[1], "200")
            self.assertEqual(curl(self.https(e), *ca, "--cert", self.client_crt,
                                  "--key", self.client_key)[1], "200")
            self.assertNotEqual(curl(self.https(e), *ca, "--cert", stranger_crt,
                                     "--key", stranger_key)[1], "200")
        cfg = self.tls_config("  client_auth_type: RequestClientCert\n")
        with self.start(cfg) as e:
            self.assertEqual(curl(self.https(e), *ca)[1], "200")
            self.assertEqual(curl(self.https(e), *ca, "--cert", stranger_crt,
                                  "--key", stranger_key)[1], "200")

    def test_certificate_replaced_on_disk_is_served_without_restart(self):
        d = tempfile.mkdtemp(dir=self.tmp)
        crt, key = os.path.join(d, "tls.crt"), os.path.join(d, "tls.key")
        shutil.copy(self.server_crt, crt)
        shutil.copy(self.server_key, key)
        cfg = self.web_config("tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n",
                              os.path.join(d, "web.yml"))
        with self.start(cfg) as e:
            self.assertEqual(served_serial(e.address), "serial=03E9")  # 1001
            new_crt, new_key = self.pki.issue("server2", 2002)
            # As a renewal tool does: new files renamed into place.
            shutil.copy(new_key, key + ".new")
            shutil.copy(new_crt, crt + ".new")
            os.replace(key + ".new", key)
            os.replace(crt + ".new", crt)
            deadline = time.monotonic() + 30
            serial = None
            while time.monotonic() < deadline:
                serial = served_serial(e.address)
                if serial == "serial=07D2":  # 2002
                    break
                time.sleep(0.2)
            self.assertEqual(serial, "serial=07D2")
            rc, status, _ = curl(self.https(e), "--cacert", self.pki.ca_crt)
            self.assertEqual((rc, status), (0, "200"))
            self.assertIn("reloaded TLS certificate", e.log_text())
            # A broken replacement keeps the last good certificate.
            with open(crt, "w") as f:
                f.write("not a certificate\n")
            # The positive event first: the exporter saw the broken files
            # (a handshake checks them, at most once a second) and said so.
            deadline = time.monotonic() + 30
            while (time.monotonic() < deadline
                   and "cannot be loaded" not in e.log_text()):
                self.assertEqual(served_serial(e.address), "serial=07D2")
                time.sleep(0.2)
            self.assertIn("TLS files changed but cannot be loaded", e.log_text())
            self.assertEqual(served_serial(e.address), "serial=07D2")
            self.assertIsNone(e.proc.poll())

    def test_shipped_example_serves_tls(self):
        """packaging/web-config.yml, with its credentials directory pointed here."""
        d = tempfile.mkdtemp(dir=self.tmp)
        shutil.copy(self.server_crt, os.path.join(d, "tls.crt"))
        shutil.copy(self.server_key, os.path.join(d, "tls.key"))
        with open(os.path.join(SRC, "packaging", "web-config.yml")) as f:
            text = f.read()
        self.assertIn("/run/credentials/rnic-exporter.service/", text)
        cfg = self.web_config(text.replace("/run/credentials/rnic-exporter.service", d),
                              os.path.join(d, "web.yml"))
        with self.start(cfg) as e:
            rc, status, _ = curl(self.https(e), "--cacert", self.pki.ca_crt)
            self.assertEqual((rc, status), (0, "200"))

    def test_prometheus_scrapes_over_tls_with_basic_auth(self):
        cfg = self.tls_config(rest="basic_auth_users:\n  prom: '%s'\n" % self.hash)
        with self.start(cfg) as e:
            port = free_port()
            d = tempfile.mkdtemp(dir=self.tmp)
            prom_yml = os.path.join(d, "prometheus.yml")
            with open(prom_yml, "w") as f:
                json.dump({
                    "global": {"scrape_interval": "1s", "scrape_timeout": "1s"},
                    "scrape_configs": [{
                        "job_name": "rnic", "scheme": "https",
                        "tls_config": {"ca_file": self.pki.ca_crt},
                        "basic_auth": {"username": "prom", "password": PASSWORD},
                        "static_configs": [{"targets": [e.address]}],
                    }],
                }, f)
            log = open(os.path.join(d, "prometheus.log"), "w")
            prom = subprocess.Popen(
                ["prometheus", "--config.file=" + prom_yml, "--storage.tsdb.path=" + d,
                 "--web.listen-address=127.0.0.1:%d" % port], stdout=log, stderr=log)
            try:
                q = "http://127.0.0.1:%d/api/v1/query?query=%s" % (
                    port, urllib.parse.quote('up{job="rnic"}'))
                up = None
                deadline = time.monotonic() + 90
                while time.monotonic() < deadline and up != "1":
                    time.sleep(0.5)
                    try:
                        with urllib.request.urlopen(q, timeout=5) as r:
                            res = json.load(r)["data"]["result"]
                            up = res[0]["value"][1] if res else None
                    except OSError:
                        pass
                with open(os.path.join(d, "prometheus.log")) as f:
                    self.assertEqual(up, "1", f.read()[-3000:])
            finally:
                prom.terminate()
                prom.wait(30)
                log.close()


class BadWebConfigTest(unittest.TestCase):
    """Every bad web config stops start-up: exit code 2 and a message."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rnic_tls_bad_")
        self.pki = Pki(self.tmp)
        self.crt, self.key = self.pki.issue("server", 1)
        self.other_crt, self.other_key = self.pki.issue("other", 2)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def refused(self, text, needle, path=None):
        if path is None:
            path = os.path.join(self.tmp, "web.yml")
            with open(path, "w") as f:
                f.write(text)
        try:
            p = subprocess.run([BIN] + BASE_ARGS + ["--web.listen-address=127.0.0.1:0",
                                                    "--web.config.file=" + path],
                               capture_output=True, text=True, timeout=20)
        except subprocess.TimeoutExpired:
            self.fail("started instead of refusing: " + text)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("rnic_exporter: error: --web.config.file: ", p.stderr)
        self.assertIn(needle, p.stderr)
        for mark in ("runtime error", "AddressSanitizer", "terminate called"):
            self.assertNotIn(mark, p.stderr)

    def tls(self, crt, key, extra=""):
        return "tls_server_config:\n  cert_file: %s\n  key_file: %s\n%s" % (crt, key, extra)

    def test_missing_file(self):
        self.refused(None, "/nonexistent/web.yml: cannot be read", "/nonexistent/web.yml")

    def test_unknown_key(self):
        self.refused("tls_server_config: {}\nbasic_auth: {}\n", "basic_auth: unknown key")

    def test_bad_hash(self):
        self.refused("basic_auth_users:\n  alice: plaintext\n",
                     "basic_auth_users.alice: not a bcrypt hash")

    def test_key_not_matching_certificate(self):
        self.refused(self.tls(self.crt, self.other_key),
                     "does not match the certificate in cert_file")

    def test_missing_certificate(self):
        self.refused(self.tls(os.path.join(self.tmp, "nope.crt"), self.key),
                     "tls_server_config.cert_file %s: cannot be read" %
                     os.path.join(self.tmp, "nope.crt"))

    def test_garbage_certificate(self):
        bad = os.path.join(self.tmp, "garbage.crt")
        with open(bad, "w") as f:
            f.write("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n")
        self.refused(self.tls(bad, self.key), "tls_server_config.cert_file " + bad)

    def test_device_and_oversized_files(self):
        # Read without end before: /dev/zero, a FIFO, a runaway file.
        self.refused(None, "/dev/zero: not a regular file", "/dev/zero")
        self.refused(self.tls("/dev/zero", self.key),
                     "tls_server_config.cert_file /dev/zero: not a regular file")
        self.refused(self.tls(self.crt, "/dev/zero"),
                     "tls_server_config.key_file /dev/zero: not a regular file")
        self.refused("# padding\n" * ((2 << 20) // 10), ": larger than 1048576 bytes")
        big = os.path.join(self.tmp, "big.crt")
        with open(big, "wb") as f:
            f.truncate(2 << 20)
        self.refused(self.tls(big, self.key),
                     "tls_server_config.cert_file %s: larger than" % big)

    def test_second_document(self):
        self.refused("basic_auth_users: {}\n---\nbasic_auth: {}\n",
                     "more than one YAML document")

    def test_bad_client_auth_type(self):
        self.refused(self.tls(self.crt, self.key, "  client_auth_type: RequireClientCert\n"),
                     "tls_server_config.client_auth_type: expected NoClientCert")

    def test_unknown_cipher(self):
        self.refused(self.tls(self.crt, self.key, "  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n"),
                     "unknown cipher suite 'TLS_RSA_WITH_RC4_128_SHA'")

    def test_bad_client_ca(self):
        self.refused(self.tls(self.crt, self.key,
                              "  client_auth_type: VerifyClientCertIfGiven\n"
                              "  client_ca_file: %s\n" % os.path.join(self.tmp, "none.crt")),
                     "tls_server_config.client_ca_file")


if __name__ == "__main__":
    unittest.main()
