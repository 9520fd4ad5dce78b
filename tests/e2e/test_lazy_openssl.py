"""OpenSSL is mapped only when something configured needs it (memory): the
real exporter without a web config has no libssl/libcrypto in /proc/<pid>/maps;
with TLS, basic_auth_users or an https fabric exchange it has, and serves.
A libssl.so.3 that cannot be loaded stops start-up with exit code 2 naming
the setting. The binary neither links OpenSSL nor exports the forwarding
definitions of collectors/common/openssl_loader.cc."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from rnic_e2e import Exporter
from test_web_tls import PASSWORD, Pki, bcrypt, curl

BIN = os.environ["RNIC_EXPORTER"]
SRC = os.environ["RNIC_SOURCE_DIR"]
FIXTURE = os.path.join(SRC, "tests", "fixtures", "sys")
BASE_ARGS = ["--path.sysfs=" + FIXTURE, "--path.devkmsg=/dev/null",
             "--collector.disable-defaults", "--collector.sysfs"]
FABRIC_ARGS = ["--path.sysfs=" + FIXTURE, "--path.devkmsg=/dev/null",
               "--collector.disable-defaults", "--collector.fabric",
               "--collector.fabric.devices=^no-such-device$"]
OPENSSL_RE = re.compile(r"/lib(ssl|crypto)\.so")


def openssl_mappings(pid):
    with open("/proc/%d/maps" % pid) as f:
        return sorted({line.split()[-1] for line in f if OPENSSL_RE.search(line)})


def stub_names():
    """The names openssl_loader.cc forwards: X(type, name, (params), (args))."""
    with open(os.path.join(SRC, "collectors", "common", "openssl_loader.cc")) as f:
        text = f.read()
    return set(re.findall(r"^\s*X\([^,]+,\s*(\w+),", text, re.M))


class LazyOpenSslTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rnic_lazyssl_")
        cls.pki = Pki(cls.tmp)
        cls.crt, cls.key = cls.pki.issue("server", 2002)
        cls.hash = bcrypt(PASSWORD)
        # A libssl.so.3 that dlopen() refuses; LD_LIBRARY_PATH puts it before
        # the system's (the RPATH directory holds only the unversioned shims).
        cls.broken = os.path.join(cls.tmp, "broken")
        os.mkdir(cls.broken)
        with open(os.path.join(cls.broken, "libssl.so.3"), "w") as f:
            f.write("not an ELF file\n")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def tls_yml(self):
        return self.write("tls.yml", "tls_server_config:\n  cert_file: %s\n  key_file: %s\n"
                          % (self.crt, self.key))

    def auth_yml(self):
        return self.write("auth.yml", "basic_auth_users:\n  alice: '%s'\n" % self.hash)

    def fabric_yml(self, scheme):
        tls = "  exchange_tls_config:\n    ca_file: %s\n" % self.pki.ca_crt if scheme == "https" else ""
        return self.write("fabric_%s.yml" % scheme,
                          "fabric:\n  exchange_scheme: %s\n%s" % (scheme, tls))

    def broken_env(self):
        return dict(os.environ, LD_LIBRARY_PATH=self.broken)

    def refused(self, args, needle):
        p = subprocess.run([BIN, "--web.listen-address=127.0.0.1:0"] + args,
                           capture_output=True, text=True, timeout=60, env=self.broken_env())
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(needle, p.stderr)
        self.assertIn("libssl.so.3", p.stderr)
        for mark in ("AddressSanitizer", "runtime error", "internal error"):
            self.assertNotIn(mark, p.stderr)

    def test_no_web_config_maps_no_openssl(self):
        with Exporter(BIN, BASE_ARGS) as e:
            self.assertIn("rdma_", e.metrics_text())
            self.assertEqual(openssl_mappings(e.proc.pid), [])

    def test_tls_loads_openssl_and_serves_https(self):
        with Exporter(BIN, BASE_ARGS + ["--web.config.file=" + self.tls_yml()]) as e:
            rc, status, _ = curl("https://%s/metrics" % e.address, "--cacert", self.pki.ca_crt)
            self.assertEqual((rc, status), (0, "200"))
            maps = openssl_mappings(e.proc.pid)
            self.assertTrue(any("libssl.so.3" in m for m in maps), maps)
            self.assertTrue(any("libcrypto.so.3" in m for m in maps), maps)

    def test_basic_auth_without_tls_loads_openssl_and_checks(self):
        with Exporter(BIN, BASE_ARGS + ["--web.config.file=" + self.auth_yml()]) as e:
            url = "http://%s/metrics" % e.address
            self.assertEqual(curl(url, "-u", "alice:" + PASSWORD)[1], "200")
            # Twice: the second answer comes from the HMAC-keyed cache.
            self.assertEqual(curl(url, "-u", "alice:" + PASSWORD)[1], "200")
            self.assertEqual(curl(url, "-u", "alice:wrong")[1], "401")
            self.assertEqual(curl(url)[1], "401")
            self.assertTrue(any("libcrypto.so.3" in m for m in openssl_mappings(e.proc.pid)))

    def test_fabric_exchange_loads_openssl_only_for_https(self):
        with Exporter(BIN, FABRIC_ARGS + ["--config.file=" + self.fabric_yml("http")]) as e:
            self.assertEqual(openssl_mappings(e.proc.pid), [])
        with Exporter(BIN, FABRIC_ARGS + ["--config.file=" + self.fabric_yml("https")]) as e:
            self.assertTrue(any("libssl.so.3" in m for m in openssl_mappings(e.proc.pid)))

    def test_unloadable_libssl_is_a_start_up_error_naming_the_setting(self):
        self.refused(BASE_ARGS + ["--web.config.file=" + self.tls_yml()],
                     "tls_server_config needs OpenSSL")
        self.refused(BASE_ARGS + ["--web.config.file=" + self.auth_yml()],
                     "basic_auth_users needs OpenSSL")
        self.refused(FABRIC_ARGS + ["--config.file=" + self.fabric_yml("https")],
                     "fabric.exchange_scheme: https needs OpenSSL")
        # Nothing configured needs it: the broken library is never opened.
        with Exporter(BIN, BASE_ARGS, env=self.broken_env()) as e:
            self.assertIn("rdma_", e.metrics_text())


class NoOpenSslLinkTest(unittest.TestCase):
    def test_not_linked(self):
        out = subprocess.run(["readelf", "-d", BIN], capture_output=True, text=True,
                             check=True).stdout
        needed = re.findall(r"\(NEEDED\).*\[(.+)\]", out)
        self.assertTrue(needed, out)
        self.assertEqual([n for n in needed if OPENSSL_RE.search("/" + n)], [])

    def test_forwarding_definitions_are_not_exported(self):
        names = stub_names()
        # The list is parsed from the source: an empty parse would pass vacuously.
        self.assertGreater(len(names), 30)
        self.assertIn("SSL_CTX_ctrl", names)
        out = subprocess.run(["nm", "-D", "--defined-only", BIN], capture_output=True,
                             text=True, check=True).stdout
        exported = {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}
        self.assertEqual(sorted(names & exported), [])
        self.assertEqual(sorted(n for n in exported
                                if re.match(r"(SSL|TLS|ERR|X509|EVP|HMAC|CRYPTO|OPENSSL)_", n)),
                         [])
        # The symbols exist in the binary, hidden (so the check above means something).
        local = subprocess.run(["nm", "--defined-only", BIN], capture_output=True,
                               text=True, check=True).stdout
        if local.strip():  # a stripped binary has no static symbol table
            symbols = {line.split()[-1] for line in local.splitlines()}
            self.assertTrue("SSL_CTX_new" in symbols, "no SSL_CTX_new in the binary")


if __name__ == "__main__":
    unittest.main()
