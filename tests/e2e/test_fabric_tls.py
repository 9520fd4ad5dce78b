"""The fabric address exchange against a peer exporter that serves TLS and
asks for basic auth and a client certificate (its --web.config.file): the
client side is rnic_fabric_tool --exchange (the collector's own libcurl
client and config parser) and a second exporter with the fabric collector.
Certificates come from the real openssl CLI. Errors name the peer's
host:port and the step that failed. Bad exchange settings stop start-up
(exit 2)."""
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

from rnic_e2e import Exporter, parse_samples
from test_web_tls import Pki, bcrypt

BIN = os.environ["RNIC_EXPORTER"]
TOOL = os.environ["RNIC_FABRIC_TOOL"]
SRC = os.environ["RNIC_SOURCE_DIR"]
FIXTURE = os.path.join(SRC, "tests", "fixtures", "sys")
BASE_ARGS = ["--path.sysfs=" + FIXTURE, "--path.devkmsg=/dev/null",
             "--collector.fabric", "--collector.fabric.devices=^no-such-device$"]
PASSWORD = "fabric-s3cret"


class FabricTlsExchangeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rnic_fabtls_")
        cls.pki = Pki(cls.tmp)
        crt, key = cls.pki.issue("server", 11)
        cls.client_crt, cls.client_key = cls.pki.issue("client", 12, cls.pki.client_ext)
        cls.other = Pki(tempfile.mkdtemp(dir=cls.tmp))  # a CA that signed nothing here
        cls.write("web.yml",
                  "tls_server_config:\n  cert_file: %s\n  key_file: %s\n"
                  "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: %s\n"
                  "basic_auth_users:\n  rnic: '%s'\n" % (crt, key, cls.pki.ca_crt, bcrypt(PASSWORD)))
        cls.good_pw = cls.write("pw", PASSWORD + "\n")
        cls.bad_pw = cls.write("bad_pw", "wrong\n")
        cls.peer = Exporter(BIN, BASE_ARGS + ["--web.config.file=" + os.path.join(cls.tmp, "web.yml")])

    @classmethod
    def tearDownClass(cls):
        cls.peer.__exit__(None, None, None)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def write(cls, name, text):
        path = os.path.join(cls.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def fabric(self, scheme="https", ca=None, pw=None, cert=True, extra_tls=""):
        tls = ""
        if scheme == "https":
            tls = "  exchange_tls_config:\n    ca_file: %s\n" % (ca or self.pki.ca_crt)
            if cert:
                tls += "    cert_file: %s\n    key_file: %s\n" % (self.client_crt, self.client_key)
            tls += extra_tls
        return ("fabric:\n  exchange_scheme: %s\n%s"
                "  exchange_basic_auth: {username: rnic, password_file: %s}\n"
                % (scheme, tls, pw or self.good_pw))

    def exchange(self, config_text, peer=None):
        cfg = self.write("rnic.yml", config_text)
        p = subprocess.run([TOOL, "--exchange", (peer or self.peer).address, "--config", cfg],
                           capture_output=True, text=True, timeout=60)
        for mark in ("runtime error", "AddressSanitizer", "terminate called"):
            self.assertNotIn(mark, p.stderr)
        self.assertNotIn(PASSWORD, p.stdout + p.stderr)
        return p.returncode, p.stdout

    def test_right_ca_credentials_and_client_certificate(self):
        rc, out = self.exchange(self.fabric())
        self.assertEqual(rc, 0, out)
        self.assertIn('"version":1', out)
        self.assertIn('"devices":{}', out)

    def test_server_name_is_checked(self):
        rc, out = self.exchange(self.fabric(extra_tls="    server_name: localhost\n"))
        self.assertEqual(rc, 0, out)
        rc, out = self.exchange(self.fabric(extra_tls="    server_name: other.example\n"))
        self.assertEqual(rc, 1)
        self.assertIn("exchange_failed: %s: TLS handshake: certificate verify failed: "
                      % self.peer.address, out)
        self.assertIn("'other.example'", out)
        rc, out = self.exchange(self.fabric(
            extra_tls="    server_name: other.example\n    insecure_skip_verify: true\n"))
        self.assertEqual(rc, 0, out)

    def test_wrong_ca(self):
        rc, out = self.exchange(self.fabric(ca=self.other.ca_crt))
        self.assertEqual(rc, 1)
        self.assertIn("exchange_failed: %s: TLS handshake: certificate verify failed: "
                      % self.peer.address, out)

    def test_wrong_password(self):
        rc, out = self.exchange(self.fabric(pw=self.bad_pw))
        self.assertEqual(rc, 1)
        self.assertEqual(out, "exchange_failed: %s: HTTP status 401\n" % self.peer.address)

    def test_no_client_certificate(self):
        rc, out = self.exchange(self.fabric(cert=False))
        self.assertEqual(rc, 1)
        # TLS 1.3: the server's refusal arrives after the client's side of the
        # handshake is done, as the answer is read.
        self.assertRegex(out, r"^exchange_failed: %s: (TLS handshake|answer): .*"
                         r"\(does the peer require a client certificate\? "
                         r"exchange_tls_config.cert_file\)$" % re.escape(self.peer.address))

    def test_plain_http_against_the_tls_port(self):
        rc, out = self.exchange(self.fabric(scheme="http"))
        self.assertEqual(rc, 1)
        self.assertIn("exchange_failed: %s: answer: " % self.peer.address, out)
        self.assertIn("(does the peer serve TLS? exchange_scheme: https)", out)

    def test_https_against_a_plain_http_peer(self):
        with Exporter(BIN, BASE_ARGS) as plain:
            rc, out = self.exchange(self.fabric(), peer=plain)
        self.assertEqual(rc, 1)
        self.assertIn("exchange_failed: %s: TLS handshake: " % plain.address, out)
        self.assertIn("(does the peer serve plain HTTP? exchange_scheme: http)", out)

    def test_files_that_do_not_load_stop_start_up(self):
        # A key that is not the certificate's: libcurl refuses the pair.
        _, other_key = self.pki.issue("other", 13, self.pki.client_ext)
        cfg = self.write("rnic.yml", self.fabric().replace(self.client_key, other_key))
        for argv in ([TOOL, "--exchange", self.peer.address, "--config", cfg],
                     [BIN] + BASE_ARGS + ["--web.listen-address=127.0.0.1:0",
                                          "--config.file=" + cfg]):
            with self.subTest(argv=argv[0]):
                p = subprocess.run(argv, capture_output=True, text=True, timeout=20)
                self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                self.assertIn("fabric.exchange_tls_config.cert_file, key_file: cannot load '%s', '%s'"
                              % (self.client_crt, other_key), p.stderr)

    def test_exporter_exchanges_with_the_tls_peer(self):
        def failures(exp, peer):
            for n, l, v in parse_samples(exp.metrics_text()):
                if n == "rnic_fabric_address_exchange_failures_total" and l.get("peer") == peer:
                    return v
            return None

        for pw, ok in ((self.good_pw, True), (self.bad_pw, False)):
            with self.subTest(ok=ok):
                # The peers are exchanged with in order: once the dead second
                # peer's failure shows, the TLS peer has had its turn.
                cfg = self.write("rnic.yml", self.fabric(pw=pw).replace(
                    "fabric:\n", "fabric:\n  peers: ['%s', '127.0.0.2:1']\n  interval: 200ms\n"
                    % self.peer.address))
                with Exporter(BIN, BASE_ARGS + ["--config.file=" + cfg]) as a:
                    deadline = time.monotonic() + 30
                    while failures(a, "127.0.0.2") is None and time.monotonic() < deadline:
                        time.sleep(0.1)
                    self.assertIsNotNone(failures(a, "127.0.0.2"))
                    if ok:
                        self.assertIsNone(failures(a, "127.0.0.1"), a.log_text())
                    else:
                        self.assertEqual(failures(a, "127.0.0.1"), 1)
                        self.assertIn("HTTP status 401", a.log_text())
                    self.assertNotIn(PASSWORD, a.log_text())


class BadExchangeConfigTest(unittest.TestCase):
    """Bad exchange settings stop start-up with exit code 2, naming the key."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rnic_fabtls_bad_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def refused(self, text, needle):
        path = os.path.join(self.tmp, "rnic.yml")
        with open(path, "w") as f:
            f.write(text)
        p = subprocess.run([BIN] + BASE_ARGS + ["--web.listen-address=127.0.0.1:0",
                                                "--config.file=" + path],
                           capture_output=True, text=True, timeout=20)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(needle, p.stderr)
        for mark in ("runtime error", "AddressSanitizer", "terminate called"):
            self.assertNotIn(mark, p.stderr)

    def test_bad_values(self):
        garbage = os.path.join(self.tmp, "garbage.pem")
        with open(garbage, "w") as f:
            f.write("not a certificate\n")
        cases = [
            ("fabric: {exchange_scheme: ftp}\n", "fabric.exchange_scheme: must be http or https"),
            ("fabric: {exchange_tls_config: {ca_file: /x}}\n",
             "fabric.exchange_tls_config: needs exchange_scheme: https"),
            ("fabric: {exchange_scheme: https, exchange_tls_config: {ca_file: /nonexistent/ca.pem}}\n",
             "fabric.exchange_tls_config.ca_file: cannot load '/nonexistent/ca.pem'"),
            ("fabric: {exchange_scheme: https, exchange_tls_config: {ca_file: %s}}\n" % garbage,
             "fabric.exchange_tls_config.ca_file: cannot load"),
            ("fabric: {exchange_scheme: https, exchange_tls_config: {cert_file: %s}}\n" % garbage,
             "fabric.exchange_tls_config.key_file: cert_file and key_file go together"),
            ("fabric: {exchange_basic_auth: {username: u, password_file: /nonexistent/pw}}\n",
             "fabric.exchange_basic_auth.password_file: cannot read '/nonexistent/pw'"),
            ("fabric: {exchange_basic_auth: {password_file: /x}}\n",
             "fabric.exchange_basic_auth: needs a username"),
            # Endless or device files were read until memory ran out.
            ("fabric: {exchange_basic_auth: {username: u, password_file: /dev/zero}}\n",
             "fabric.exchange_basic_auth.password_file: /dev/zero: not a regular file"),
            ("fabric: {exchange_scheme: https, exchange_tls_config: {ca_file: /dev/zero}}\n",
             "fabric.exchange_tls_config.ca_file: /dev/zero: not a regular file"),
        ]
        for text, needle in cases:
            with self.subTest(text=text):
                self.refused(text, needle)


if __name__ == "__main__":
    unittest.main()
