"""The shipped nginx config (docs/deploy/nginx.conf, docs/deploy.md) in front of two app servers, over HTTPS.

The template is rendered with free ports and a self-signed certificate for ``corpus.localhost`` (Chromium
resolves every ``*.localhost`` name to the loopback address, so the browser sends a real host name: the Host
and Origin headers are the ones a deployment sees). Two ``streamlit run`` servers on one fresh PostgreSQL
database run as docs/deploy.md says (``CORPUS_PUBLIC_ORIGIN``, ``CORPUS_TRUSTED_PROXIES``,
``CORPUS_APP_RUNS_JOBS=0``, one ``CORPUS_MODEL_KEY``), and nginx runs as a child of the test with its own
prefix, temp directories and logs under the test's temporary directory. nginx's access log names the app
server that answered each request and the browser's affinity value, which is how the test sees where each
browser went.

Skips with the reason when nginx is not installed, unless REQUIRE_BROWSER or CI is set (then it fails).
"""

from __future__ import annotations

import http.client
import http.server
import os
import re
import secrets
import shutil
import socket
import ssl
import struct
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from journey_steps import login, page_text
from test_several_servers import _wait

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "docs" / "deploy" / "nginx.conf"
HOST = "corpus.localhost"
AFFINITY_COOKIE = "corpus_affinity"
MODEL_KEY = "the-same-model-key-on-every-server"
# The site's log format (corpus_upstream); $upstream_addr lists every server tried, "A, B" when A failed.
LOG_LINE = re.compile(r'"(?P<method>\S+) (?P<path>\S+) [^"]*" (?P<status>\d{3}) \d+ '
                      r'upstream=(?P<tried>.+?) affinity=(?P<affinity>\S+)')


def _nginx() -> str:
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
    if found is None:
        if os.environ.get("REQUIRE_BROWSER") or os.environ.get("CI"):
            pytest.fail("REQUIRE_BROWSER/CI is set but nginx is not installed (apt-get install -y nginx)")
        pytest.skip("nginx not installed (apt-get install -y nginx): the deployment config is not tried")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate and key for HOST, made with openssl (Debian's), else Python's cryptography."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    if shutil.which("openssl"):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", f"/CN={HOST}",
                        "-addext", f"subjectAltName=DNS:{HOST}"], check=True, capture_output=True)
        return cert, key
    try:
        import datetime

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        pytest.skip("neither openssl nor Python's cryptography is installed: no certificate for the proxy")
    private = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST)])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(private.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now)
                   .not_valid_after(now + datetime.timedelta(days=2))
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOST)]), critical=False)
                   .sign(private, hashes.SHA256()))
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key.write_bytes(private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    return cert, key


def server_line(address: str) -> str:
    """One line of ``@APP_SERVERS@`` for ``address``, in the form the template's header shows (its example)."""
    example = re.search(r"@APP_SERVERS@.*?(server 10\.0\.0\.11:8501[^;]*;)", TEMPLATE.read_text(), re.S)
    assert example, "the template's header no longer shows an @APP_SERVERS@ example for 10.0.0.11:8501"
    return example[1].replace("10.0.0.11:8501", address)


def render(template: str, values: dict[str, str]) -> str:
    """The template with every ``@NAME@`` replaced; a placeholder left without a value is an error."""
    for name, value in values.items():
        template = template.replace(f"@{name}@", value)
    left = sorted(set(re.findall(r"@[A-Z_]+@", template)))
    assert not left, f"placeholders without a value: {left}"
    return template


@dataclass
class Proxy:
    process: subprocess.Popen
    origin: str
    https_port: int
    http_port: int
    access_log: Path
    error_log: Path
    app_servers: tuple[str, ...]  # "127.0.0.1:PORT" of each app server, as nginx's logs name them

    def lines(self) -> list[dict]:
        """Each logged request: path, status, affinity, the servers tried and the one that answered (upstream)."""
        if not self.access_log.exists():
            return []
        lines = []
        for text in self.access_log.read_text().splitlines(keepends=True):
            if not text.endswith("\n"):  # a line nginx is writing right now
                continue
            match = LOG_LINE.search(text)
            assert match, f"not in the site's log format: {text}"
            tried = match["tried"].split(", ")
            lines.append({**match.groupdict(), "tried": tried, "upstream": tried[-1]})
        return lines

    def upstreams(self, affinity: str) -> set[str]:
        return {line["upstream"] for line in self.lines() if line["affinity"] == affinity}

    def upstream_errors(self) -> list[str]:
        """Every error.log line about the app servers (a failed connection, a reset, a server left out), the
        whole run's: they say why a request was passed to another server, and the tail alone often misses them."""
        if not self.error_log.exists():
            return []
        return [line for line in self.error_log.read_text().splitlines()
                if "upstream" in line or any(address in line for address in self.app_servers)]

    def logs(self) -> str:
        errors = "\n".join(self.upstream_errors()) or "(none)"
        tails = "\n".join(f"--- {p.name} (its end)\n{p.read_text()[-4000:]}" for p in (self.access_log, self.error_log)
                          if p.exists())
        return f"--- error.log, every line about the app servers\n{errors}\n{tails}"


def start_nginx(nginx: str, directory: Path, app_ports: list[int], https_port: int, http_port: int) -> Proxy:
    """nginx with the shipped site config on these ports, in the foreground, everything of its own under
    ``directory``."""
    origin = f"https://{HOST}:{https_port}"
    cert, key = _self_signed(directory)
    access_log, error_log = directory / "access.log", directory / "error.log"
    site = directory / "corpus.conf"
    site.write_text(render(TEMPLATE.read_text(), {
        "SERVER_NAME": HOST, "PUBLIC_ORIGIN": origin, "HTTPS_LISTEN": f"127.0.0.1:{https_port}",
        "HTTP_LISTEN": f"127.0.0.1:{http_port}", "CERTIFICATE": str(cert), "CERTIFICATE_KEY": str(key),
        "APP_SERVERS": " ".join(server_line(f"127.0.0.1:{port}") for port in app_ports),
        "ACCESS_LOG": str(access_log),
    }))
    temp = {name: directory / name for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in temp.values():
        path.mkdir()
    # The stock nginx.conf's part that the site file sits in, reduced to what runs here. As root, the workers
    # stay root so that they can write the temp directories under the test's private temporary directory.
    main = directory / "nginx.conf"
    main.write_text("\n".join([
        "user root;" if os.geteuid() == 0 else "",
        f"pid {directory / 'nginx.pid'};",
        f"error_log {error_log} info;",
        "worker_processes 1;",
        "events { worker_connections 512; }",
        "http {",
        *[f"    {name}_temp_path {path};" for name, path in temp.items()],
        f"    include {site};",
        "}",
    ]) + "\n")
    process = subprocess.Popen([nginx, "-p", str(directory), "-c", str(main), "-e", str(error_log),
                                "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                               stderr=(directory / "nginx.stderr").open("w"))
    proxy = Proxy(process, origin, https_port, http_port, access_log, error_log,
                  tuple(f"127.0.0.1:{port}" for port in app_ports))

    def listening() -> bool:
        assert process.poll() is None, f"nginx exited: {(directory / 'nginx.stderr').read_text()}\n{proxy.logs()}"
        try:
            socket.create_connection(("127.0.0.1", https_port), timeout=1).close()
        except OSError:
            return False
        return True

    _wait(listening, 20, "nginx to listen")
    return proxy


def _request(proxy: Proxy, method: str, path: str, *, tls: bool, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
    if tls:
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # the test's self-signed certificate
        conn = http.client.HTTPSConnection("127.0.0.1", proxy.https_port, timeout=30, context=context)
        host = f"{HOST}:{proxy.https_port}"
    else:
        conn = http.client.HTTPConnection("127.0.0.1", proxy.http_port, timeout=30)
        host = f"{HOST}:{proxy.http_port}"
    conn.request(method, path, body=body, headers={"Host": host, **(headers or {})})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


def _affinity(context) -> str:
    [value] = [c["value"] for c in context.cookies() if c["name"] == AFFINITY_COOKIE]
    return value


def _one_server(proxy: Proxy, affinity: str) -> str:
    """The one app server (address) that answered every request of the browser with ``affinity``."""
    went = proxy.upstreams(affinity)
    assert len(went) == 1, (f"one browser's requests went to {sorted(went)}; nginx's error.log about the app "
                            f"servers:\n" + "\n".join(proxy.upstream_errors()))
    return went.pop()


def _websockets_closed(proxy: Proxy, affinity: str, at_least: int) -> list[dict[str, str]]:
    """The websockets of ``affinity`` nginx has logged (it logs one when it closes)."""
    return _wait(lambda: len(found := [line for line in proxy.lines() if line["affinity"] == affinity
                                       and line["path"] == "/_stcore/stream"]) >= at_least and found,
                 30, f"{at_least} closed websocket(s) in nginx's access log")


def test_nginx_config_serves_two_servers_over_https_and_keeps_each_browser_on_one(
        pg_url, start_app, chromium, monkeypatch, tmp_path):
    nginx = _nginx()
    from db.engine import make_engine
    from db.schema import upgrade
    from tests.support.translation_fixtures import PASSWORD, add_user

    engine = make_engine(pg_url)
    upgrade(engine)
    add_user(engine, "lena", "lead")
    engine.dispose()

    # The servers need the public origin (nginx's port) before they start; nginx needs the servers' ports.
    https_port, http_port = _free_port(), _free_port()
    origin = f"https://{HOST}:{https_port}"
    for name, value in {"CORPUS_PUBLIC_ORIGIN": origin, "CORPUS_TRUSTED_PROXIES": "127.0.0.1",
                        "CORPUS_APP_RUNS_JOBS": "0", "CORPUS_MODEL_KEY": MODEL_KEY}.items():
        monkeypatch.setenv(name, value)
    servers = [start_app(pg_url), start_app(pg_url)]
    by_address = {f"127.0.0.1:{s.port}": s for s in servers}
    proxy = start_nginx(nginx, tmp_path, [s.port for s in servers], https_port, http_port)
    contexts = []

    def new_context():
        context = chromium.new_context(ignore_https_errors=True, locale="en-US", viewport={"width": 1400,
                                                                                             "height": 1000})
        contexts.append(context)
        return context

    try:
        # ---- plain HTTP is sent to the public origin; an upload of more than nginx's default 1 MB gets through
        moved = _request(proxy, "GET", "/tag?x=1", tls=False)
        assert (moved.status, moved.getheader("Location")) == (301, f"{origin}/tag?x=1")
        upload = _request(proxy, "PUT", "/_stcore/upload_file/no-session/no-file", tls=True, body=b"x" * 2_000_000,
                          headers={"Content-Type": "application/octet-stream"})
        assert upload.status != 413, "nginx refused a 2 MB upload (client_max_body_size)"
        assert upload.getheader("Strict-Transport-Security")

        # ---- a browser logs in through the proxy over HTTPS: the login form, /auth/session, the websocket
        first = new_context()
        page = first.new_page()
        page.set_default_timeout(45000)
        login(page, origin, "lena", PASSWORD)
        cookies = {c["name"]: c for c in first.cookies()}
        session = cookies["__Host-corpus_session"]  # the https public origin names it with the __Host- prefix
        assert session["secure"] and session["httpOnly"]
        affinity = _affinity(first)
        # ... and stays on one server across reloads and pages, every request and websocket alike
        for path in ("/", "/dashboard", "/"):
            page.goto(f"{origin}{path}")
            page.get_by_role("button", name="Log out").wait_for()
        home = _one_server(proxy, affinity)
        assert home in by_address, (home, by_address)
        lines = [line for line in proxy.lines() if line["affinity"] == affinity]
        assert any(line["path"].startswith("/auth/session") and line["status"] == "303" for line in lines), lines
        sockets = _websockets_closed(proxy, affinity, 3)  # the pages left so far each closed theirs
        assert {line["status"] for line in sockets} == {"101"}, sockets
        assert proxy.upstreams(affinity) == {home}
        assert _affinity(first) == affinity  # nginx set it once

        # ---- other browsers are spread: one lands on the other server (each new browser does so with even odds)
        other_server = None
        for _ in range(16):
            context = new_context()
            other = context.new_page()
            other.goto(origin)
            other.get_by_role("button", name="Log in", exact=True).wait_for(timeout=45000)
            if proxy.upstreams(_affinity(context)) != {home}:
                other_server = context
                break
            context.close()
            contexts.remove(context)
        assert other_server is not None, "16 new browsers all went to one server"
        elsewhere = _one_server(proxy, _affinity(other_server))
        assert elsewhere in by_address and elsewhere != home
        # ... where the first browser's login cookie is a login too (logins are rows in the one database)
        other_server.add_cookies([{"name": "__Host-corpus_session", "value": session["value"], "url": origin,
                                   "secure": True}])
        other.reload()
        other.get_by_role("button", name="Log out").wait_for(timeout=45000)
        other.reload()
        other.get_by_role("button", name="Log out").wait_for(timeout=45000)
        _websockets_closed(proxy, _affinity(other_server), 2)
        assert proxy.upstreams(_affinity(other_server)) == {elsewhere}
        assert proxy.upstreams(affinity) == {home}

        # ---- the first browser's server stops: its next page comes from the other one, still logged in
        by_address[home].stop()
        page.reload()
        page.get_by_role("button", name="Log out").wait_for(timeout=45000)
        # (its first request after the stop, the reload or the page's own reconnection, tried the stopped server first)
        assert [home, elsewhere] in [line["tried"] for line in proxy.lines() if line["affinity"] == affinity]
        assert proxy.upstreams(affinity) == {home, elsewhere}
        assert "[emerg]" not in proxy.error_log.read_text() and "[crit]" not in proxy.error_log.read_text()
    except Exception:
        for context in contexts:
            for p in context.pages:
                print(p.url, page_text(p))
        print(proxy.logs())
        raise
    finally:
        for context in contexts:
            context.close()
        proxy.process.terminate()
        try:
            proxy.process.wait(15)
        except subprocess.TimeoutExpired:
            proxy.process.kill()
            proxy.process.wait()


class _StandInServer:
    """An app server stand-in for the proxy's own behaviour: answers every GET with 200, keeps connections alive
    like the real one, and resets a connection (RST, what nginx sees when the app server drops a connection it
    is using) for the next ``resets`` requests, or for every request once stopped (its port closed too).
    ``connections`` lists the connection (nginx's address and port) each request came on."""

    def __init__(self) -> None:
        self.resets, self.stopped = 0, False
        self.connections: list[tuple[str, int]] = []
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                stand_in.connections.append(self.client_address)
                if stand_in.stopped or stand_in.resets:
                    stand_in.resets = max(stand_in.resets - 1, 0)
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()  # with a zero linger: a reset, not a clean close
                    self.close_connection = True
                    return
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.handle_error = lambda request, client_address: None  # the resets it makes itself
        self.port = self.httpd.server_address[1]
        self.address = f"127.0.0.1:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.stopped = True
        self.httpd.shutdown()
        self.httpd.server_close()


def test_nginx_config_keeps_a_browser_on_its_server_after_one_failed_request_and_moves_it_once_the_server_stops(
        tmp_path):
    """One failed request (a reset connection, as when an app server drops a kept-alive connection) is passed to
    the other server, and the browser's next requests go back to its own: nginx's default max_fails=1 would leave
    its server out for 10 s and move every browser on it, whose Streamlit sessions live there. A server that
    stops is left out after a few requests, and its browsers are served by the other."""
    nginx = _nginx()
    first, second = _StandInServer(), _StandInServer()
    proxy = start_nginx(nginx, tmp_path, [first.port, second.port], _free_port(), _free_port())

    def send(affinity: str) -> dict:
        """One request of the browser with ``affinity``, and nginx's log line for it."""
        before = len([line for line in proxy.lines() if line["affinity"] == affinity])
        response = _request(proxy, "GET", "/_stcore/health", tls=True,
                            headers={"Cookie": f"{AFFINITY_COOKIE}={affinity}"})
        assert response.status == 200, (response.status, proxy.logs())
        return _wait(lambda: len(mine := [line for line in proxy.lines() if line["affinity"] == affinity]) > before
                     and mine[-1], 10, "the request in nginx's access log")

    try:
        affinity = next(value for value in (secrets.token_hex(16) for _ in range(64))
                        if send(value)["upstream"] == first.address)
        assert [send(affinity)["tried"] for _ in range(2)] == [[first.address]] * 2

        # ---- one failed request: it is answered by the other server, and the browser stays on its own
        first.resets = 1
        assert send(affinity)["tried"] == [first.address, second.address]
        assert [send(affinity)["tried"] for _ in range(5)] == [[first.address]] * 5, proxy.logs()
        assert "Connection reset by peer" in "\n".join(proxy.upstream_errors())
        assert "temporarily disabled" not in proxy.error_log.read_text(), proxy.logs()

        # ---- its server stops: every request is answered by the other, which soon gets them without a try first
        first.stop()
        tried = [send(affinity)["tried"] for _ in range(6)]
        assert [t[-1] for t in tried] == [second.address] * 6, tried
        assert tried[0] == [first.address, second.address] and tried[-1] == [second.address], tried
    finally:
        proxy.process.terminate()
        proxy.process.wait(15)
        second.stop()
        if not first.stopped:
            first.stop()


class _SilentServer:
    """An app server whose machine is switched off: a connection to it is never answered (its listen queue is
    full, so the kernel drops the connection's first packet as a powered-off host would, and the caller waits)."""

    def __init__(self) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(0)
        self.port = self.listener.getsockname()[1]
        self.address = f"127.0.0.1:{self.port}"
        self.queued = socket.create_connection(("127.0.0.1", self.port), timeout=5)  # fills the queue

    def stop(self) -> None:
        self.queued.close()
        self.listener.close()


def test_nginx_config_gives_up_on_a_server_that_never_answers_in_seconds_and_the_next_one_answers(tmp_path):
    """A request for a switched-off server is answered by the other one after ``proxy_connect_timeout`` (3 s),
    not after nginx's default 60 s: the client here waits 30 s, so the default fails the test."""
    nginx = _nginx()
    silent, alive = _SilentServer(), _StandInServer()
    proxy = start_nginx(nginx, tmp_path, [silent.port, alive.port], _free_port(), _free_port())
    try:
        for _ in range(32):  # browsers until one belongs to the silent server
            affinity = secrets.token_hex(16)
            response = _request(proxy, "GET", "/_stcore/health", tls=True,
                                headers={"Cookie": f"{AFFINITY_COOKIE}={affinity}"})
            assert response.status == 200, (response.status, proxy.logs())
            line = _wait(lambda: [x for x in proxy.lines() if x["affinity"] == affinity], 10,
                         "the request in nginx's access log")[-1]
            if line["tried"][0] == silent.address:
                break
        else:
            pytest.fail(f"no browser of 32 was placed on the silent server:\n{proxy.logs()}")
        assert line["tried"] == [silent.address, alive.address], proxy.logs()
        assert "timed out" in "\n".join(proxy.upstream_errors()), proxy.logs()
    finally:
        proxy.process.terminate()
        proxy.process.wait(15)
        alive.stop()
        silent.stop()


def test_nginx_config_sends_each_request_to_an_app_server_on_a_connection_of_its_own(tmp_path):
    """No connection to an app server is kept for a later request: the app server (uvicorn) closes one left idle
    for 5 s, and a request nginx sent into it just then failed (a reset), even with nginx closing its idle
    connections at 3 s on a loaded machine. A failed request is answered by another server, or by none (a POST)."""
    nginx = _nginx()
    server = _StandInServer()
    proxy = start_nginx(nginx, tmp_path, [server.port], _free_port(), _free_port())
    try:
        for _ in range(6):
            response = _request(proxy, "GET", "/_stcore/health", tls=True,
                                headers={"Cookie": f"{AFFINITY_COOKIE}={secrets.token_hex(16)}"})
            assert response.status == 200
        assert len(server.connections) == 6 and len(set(server.connections)) == 6, server.connections
    finally:
        proxy.process.terminate()
        proxy.process.wait(15)
        server.stop()
