"""A real ``ficsfen serve --listen ssl:...`` over loopback: a guest logs in over TLS, checking
the server's certificate (made for the test, valid one day), and reads a FEN."""

from __future__ import annotations

import datetime
import ipaddress
import ssl

import pytest

from ficsfen.server.testing import ServerProcess, TelnetClient

pytestmark = pytest.mark.slow

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"


def make_certificate(folder):
    """A self-signed certificate for localhost and 127.0.0.1 and its key: (key.pem, cert.pem)."""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:  # the tls extra (pyOpenSSL brings cryptography)
        from tests.conftest import missing

        missing("the cryptography package (pip install -e '.[test]')")
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    key_path, cert_path = folder / "key.pem", folder / "cert.pem"
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key_path, cert_path


def test_a_guest_over_tls_reads_a_fen(tmp_path) -> None:
    key, cert = make_certificate(tmp_path)
    endpoint = f"ssl:0:interface=127.0.0.1:privateKey={key}:certKey={cert}"
    with ServerProcess("--listen", endpoint, listeners=2) as server:
        context = ssl.create_default_context(cafile=str(cert))
        client = TelnetClient("127.0.0.1", server.ports[endpoint], timeout=server.timeout)
        client.sock = context.wrap_socket(client.sock, server_hostname="localhost")
        assert client.sock.version() in ("TLSv1.2", "TLSv1.3")
        client.read_until("login: ")
        client.send_bytes(b"\xff\xfd\x03")  # telnet's DO SUPPRESS-GO-AHEAD: answered inside TLS
        client.read_bytes_until(b"\xff\xfb\x03")
        client.buffer = b"login: " + client.buffer
        assert client.login().startswith("Guest")
        assert "examine" in client.command("examine")
        client.command("e4")
        assert client.command("fen").strip().splitlines()[-1].strip() == AFTER_E4
        client.close()
    log = "\n".join(server.log_lines)
    assert "connection from 127.0.0.1:" in log


def test_a_plain_client_on_the_tls_port_is_closed_and_others_go_on(tmp_path) -> None:
    key, cert = make_certificate(tmp_path)
    endpoint = f"ssl:0:interface=127.0.0.1:privateKey={key}:certKey={cert}"
    with ServerProcess("--listen", endpoint, listeners=2) as server:
        plain = TelnetClient("127.0.0.1", server.ports[endpoint], timeout=server.timeout)
        plain.send("guest")  # no TLS: the handshake fails
        with pytest.raises(ConnectionError):
            plain.read_until("login: ")
        plain.close()
        direct = server.connect()
        assert direct.login().startswith("Guest")
        direct.close()
    assert any("before the end of its TLS handshake" in line for line in server.log_lines)


@pytest.mark.parametrize("endpoint, reason", [
    ("ssl:0:privateKey=/nonexistent/key.pem", "/nonexistent/key.pem: No such file or directory"),
    ("haproxy", "Unknown endpoint type"),
])
def test_bad_endpoints_are_one_line(endpoint, reason) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "ficsfen", "serve", "--lang", "en", "--listen", endpoint,
                           "--data", "none", "--web", "none"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith(f'Bad endpoint "{endpoint}": {reason}')
