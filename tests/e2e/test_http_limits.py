"""HTTP limits of the real binary over real sockets on 127.0.0.1:
--web.max-requests answers 503 at the limit (also at its default of 10 and at 40),
oversized requests get a clean error, slow clients neither block scrapers
nor hold a worker, and one client cannot take more than its share of
connections.

A scrape is made slow without a test hook: one sysfs counter file of a copied
fixture tree is a FIFO, so the sysfs collector blocks in open() until the
test writes to it, and every scrape waits for it (or its deadline)."""
import errno
import os
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest

from rnic_e2e import Exporter

BIN = os.environ["RNIC_EXPORTER"]
SRC = os.environ["RNIC_SOURCE_DIR"]
FIXTURE = os.path.join(SRC, "tests", "fixtures", "sys")
BASE_ARGS = ["--path.sysfs=" + FIXTURE, "--path.devkmsg=/dev/null"]
GATED_COUNTER = ("devices/pci0000:00/0000:00:02.0/0000:03:00.0/infiniband/mlx5_0/"
                 "ports/1/counters/port_rcv_data")
# Generous bounds: they only stop a broken build from hanging the suite.
WAIT = 90


class GatedExporter:
    """An exporter whose scrapes block until release() (collector deadline
    100 s, far beyond any wait below)."""

    def __init__(self, args):
        self.tmp = tempfile.mkdtemp(prefix="rnic_limits_")
        tree = os.path.join(self.tmp, "sys")
        shutil.copytree(FIXTURE, tree, symlinks=True)
        self.fifo = os.path.join(tree, GATED_COUNTER)
        os.unlink(self.fifo)
        os.mkfifo(self.fifo)
        self.releasing = threading.Event()
        self.done = threading.Event()
        self.releaser = threading.Thread(target=self._release_loop, daemon=True)
        self.releaser.start()
        self.exp = Exporter(BIN, ["--path.sysfs=" + tree, "--path.devkmsg=/dev/null",
                                  "--collector.disable-defaults", "--collector.sysfs",
                                  "--web.default-timeout=100"] + args)

    def _release_loop(self):
        # Each open() by the collector is answered with one value and EOF.
        while not self.done.is_set():
            if self.releasing.is_set():
                try:
                    fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
                except OSError as e:
                    if e.errno != errno.ENXIO:  # ENXIO: no reader waiting yet
                        raise
                else:
                    try:
                        os.write(fd, b"1\n")
                    except BrokenPipeError:
                        pass  # the reader gave up (its scrape ended): retry
                    finally:
                        os.close(fd)
                    continue
            time.sleep(0.01)

    def release(self):
        self.releasing.set()

    def close(self):
        self.release()
        self.exp.stop()
        self.done.set()
        self.releaser.join()
        os.unlink(self.exp.log.name)
        shutil.rmtree(self.tmp)


def start_scrapes(exp, n):
    """n parallel GET /metrics; returns (threads, results list of status)."""
    results = []
    lock = threading.Lock()

    def scrape():
        try:
            status, _, body = exp.get("/metrics", timeout=2 * WAIT)
        except Exception as e:  # noqa: BLE001 - reported by the assertions
            status, body = repr(e), b""
        with lock:
            results.append((status, body))

    threads = [threading.Thread(target=scrape) for _ in range(n)]
    for t in threads:
        t.start()
    return threads, results


def wait_for(cond, what):
    deadline = time.monotonic() + WAIT
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.05)


class MaxRequestsTest(unittest.TestCase):
    def check_503_at_limit(self, limit_args, limit):
        gated = GatedExporter(limit_args)
        try:
            # limit scrapes block in the collector; the one beyond is refused.
            threads, results = start_scrapes(gated.exp, limit + 1)
            wait_for(lambda: len(results) >= 1, "the scrape beyond the limit")
            status, body = results[0]
            self.assertEqual(status, 503, gated.exp.log_text())
            self.assertIn(b"--web.max-requests", body)
            # The blocked scrapes are still in flight (they wait for release),
            # and a spare worker still answers health checks.
            self.assertEqual(len(results), 1, results)
            self.assertEqual(gated.exp.get("/-/healthy", timeout=WAIT)[0], 200)
            gated.release()
            for t in threads:
                t.join(2 * WAIT)
            self.assertEqual(sorted(r[0] for r in results), [200] * limit + [503])
            # Below the limit again: served.
            self.assertEqual(gated.exp.get("/metrics", timeout=WAIT)[0], 200)
        finally:
            gated.close()

    def test_503_at_small_limit(self):
        self.check_503_at_limit(["--web.max-requests=2"], 2)

    def test_503_at_default_limit_of_10(self):
        # Needs 11 workers at once: the pool is sized from the limit.
        self.check_503_at_limit([], 10)

    def test_503_at_a_large_limit(self):
        self.check_503_at_limit(["--web.max-requests=40"], 40)

    def test_limit_out_of_range_is_a_flag_error(self):
        p = subprocess.run([BIN, "--web.max-requests=100000"] + BASE_ARGS,
                           capture_output=True, text=True, timeout=WAIT)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("rnic_exporter: error: --web.max-requests=100000: expected 0 (no limit) "
                      "to 1024", p.stderr)


def raw_exchange(address, data):
    """Sends data, reads until the server closes; returns what it answered.
    A reset after the server stopped reading counts as closed."""
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=WAIT) as s:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        out = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except ConnectionResetError:
            pass
        return out


class OversizedRequestTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.exp = Exporter(BIN, BASE_ARGS + ["--web.max-requests=2"])

    @classmethod
    def tearDownClass(cls):
        cls.exp.stop()
        os.unlink(cls.exp.log.name)

    def assert_refused(self, data):
        answer = raw_exchange(self.exp.address, data)
        # A large request may be reset before the answer is read; when there
        # is an answer, it is an error status, never a scrape.
        if answer:
            status = answer.split(b"\r\n", 1)[0]
            self.assertRegex(status, rb"^HTTP/1\.[01] (400|413|414|431) ", answer[:300])
        # Whatever happened, the server still serves.
        self.assertEqual(self.exp.get("/-/healthy", timeout=WAIT)[0], 200)
        self.assertEqual(self.exp.get("/metrics", timeout=WAIT)[0], 200)

    def test_header_within_limit_is_served(self):
        answer = raw_exchange(self.exp.address,
                              b"GET /-/healthy HTTP/1.1\r\nConnection: close\r\nX-Pad: "
                              + b"a" * 8000 + b"\r\n\r\n")
        self.assertTrue(answer.startswith(b"HTTP/1.1 200 "), answer[:300])

    def test_headers_above_8_kib_get_431(self):
        # Within libmicrohttpd's 16 KiB per connection, beyond the exporter's
        # 8 KiB limit.
        answer = raw_exchange(self.exp.address,
                              b"GET /metrics HTTP/1.1\r\nX-Pad: " + b"a" * 12000
                              + b"\r\n\r\n")
        self.assertTrue(answer.startswith(b"HTTP/1.1 431 "), answer[:300])
        self.assertEqual(self.exp.get("/metrics", timeout=WAIT)[0], 200)

    def test_many_headers_get_431(self):
        # More than 64 headers, however small: 431.
        def head(n, size):
            return (b"GET /metrics HTTP/1.1\r\nConnection: close\r\n"
                    + b"".join(b"X-H%03d: %s\r\n" % (i, b"a" * size) for i in range(n))
                    + b"\r\n")
        for n, size in [(100, 100), (70, 1)]:
            with self.subTest(headers=n, size=size):
                answer = raw_exchange(self.exp.address, head(n, size))
                self.assertTrue(answer.startswith(b"HTTP/1.1 431 "), answer[:300])
        answer = raw_exchange(self.exp.address, head(40, 100))
        self.assertTrue(answer.startswith(b"HTTP/1.1 200 "), answer[:300])

    def test_oversized_header_gets_an_error(self):
        # Exactly the 16 KiB a connection gets, no end of headers: the
        # server reads it all, so its close cannot turn into a reset that
        # eats the answer.
        head = b"GET /metrics HTTP/1.1\r\nX-Big: "
        answer = raw_exchange(self.exp.address, head + b"a" * (16384 - len(head)))
        self.assertRegex(answer.split(b"\r\n", 1)[0], rb"^HTTP/1\.[01] (400|413|431) ")
        self.assert_refused(b"GET /metrics HTTP/1.1\r\nX-Big: " + b"a" * 32768 + b"\r\n\r\n")

    def test_oversized_request_line_gets_an_error(self):
        self.assert_refused(b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n")

    def test_megabyte_of_headers_does_not_hang_or_crash(self):
        self.assert_refused(b"GET /metrics HTTP/1.1\r\n" + b"X-A: b\r\n" * 131072 + b"\r\n")
        self.assertIsNone(self.exp.proc.poll())


class SlowClientTest(unittest.TestCase):
    """Clients that trickle a request that never ends."""
    # More than the default's 18 worker threads (10 + 8 spare), fewer than
    # the 32 connections a client may hold: a slow client holds no thread.
    SLOW_CLIENTS = 30

    def test_slow_clients_neither_block_scrapes_nor_hold_workers_forever(self):
        # Default --web.max-requests; only the quick sysfs collector, so the
        # scrape is done long before the slow clients' 10 s are up.
        with Exporter(BIN, BASE_ARGS + ["--collector.disable-defaults",
                                        "--collector.sysfs"]) as exp:
            host, port = exp.address.rsplit(":", 1)
            socks = []
            for _ in range(self.SLOW_CLIENTS):
                s = socket.create_connection((host, int(port)), timeout=WAIT)
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                socks.append(s)
            closed = set()
            stop = threading.Event()

            def trickle():
                while not stop.is_set():
                    for i, s in enumerate(socks):
                        if i in closed:
                            continue
                        try:
                            s.send(b"a")
                        except OSError:
                            closed.add(i)
                    time.sleep(0.2)

            t = threading.Thread(target=trickle, daemon=True)
            t.start()
            try:
                # While they are all still connected, a scraper and a
                # health check are served.
                self.assertEqual(exp.get("/metrics", timeout=WAIT)[0], 200)
                readable, _, _ = select.select(socks, [], [], 0)
                self.assertEqual(readable, [], "a slow client was answered before the scrape")
                self.assertEqual(exp.get("/-/healthy", timeout=WAIT)[0], 200)
                # Although they keep sending, the header deadline cuts each
                # one off: the server answers an error and/or closes.
                deadline = time.monotonic() + WAIT
                answered = set()
                while len(answered) < len(socks) and time.monotonic() < deadline:
                    readable, _, _ = select.select(
                        [s for i, s in enumerate(socks) if i not in answered], [], [], 1)
                    for s in readable:
                        answered.add(socks.index(s))
                self.assertEqual(len(answered), len(socks), "slow clients never cut off")
                for s in socks:
                    try:
                        data = s.recv(4096)
                    except ConnectionResetError:
                        data = b""
                    if data:
                        self.assertRegex(data.split(b"\r\n", 1)[0],
                                         rb"^HTTP/1\.[01] (400|408|413|431) ")
                self.assertEqual(exp.get("/metrics", timeout=WAIT)[0], 200)
            finally:
                stop.set()
                t.join()
                for s in socks:
                    s.close()


def recv_or_reset(s):
    try:
        return s.recv(4096)
    except ConnectionResetError:
        return b""


class PerClientLimitTest(unittest.TestCase):
    """One client address may hold 32 connections (kMinConnectionsPerClient,
    above the default's 18 worker threads); the next one is closed at once,
    and other clients are still served."""
    LIMIT = 32

    def test_connection_beyond_the_per_client_limit_is_refused(self):
        with Exporter(BIN, BASE_ARGS + ["--collector.disable-defaults",
                                        "--collector.sysfs"]) as exp:
            host, port = exp.address.rsplit(":", 1)

            def connect():
                # Another loopback address: a client other than exp.get's.
                s = socket.socket()
                s.settimeout(WAIT)
                s.bind(("127.0.0.2", 0))
                s.connect((host, int(port)))
                return s

            socks = []
            try:
                for _ in range(self.LIMIT):
                    s = connect()
                    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                    socks.append(s)
                extra = connect()
                socks.append(extra)
                # Accepted by the kernel, closed by the exporter unanswered.
                self.assertEqual(recv_or_reset(extra), b"")
                readable, _, _ = select.select(socks[:-1], [], [], 0)
                self.assertEqual(readable, [], "a connection within the limit was closed")
                # Another client: served, scrape and health check alike.
                self.assertEqual(exp.get("/-/healthy", timeout=WAIT)[0], 200)
                self.assertEqual(exp.get("/metrics", timeout=WAIT)[0], 200)
                # A slot freed is a slot for the same client again.
                socks[0].close()
                socks.pop(0)
                deadline = time.monotonic() + WAIT
                while True:
                    again = connect()
                    socks.append(again)
                    again.sendall(b"GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n")
                    answer = recv_or_reset(again)
                    if answer or time.monotonic() > deadline:
                        break
                    # The server had not seen the close yet: try once more.
                    socks.pop().close()
                    time.sleep(0.05)
                self.assertTrue(answer.startswith(b"HTTP/1.1 200 "), answer[:300])
            finally:
                for s in socks:
                    s.close()


if __name__ == "__main__":
    unittest.main()
