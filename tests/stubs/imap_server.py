"""A small IMAP4rev1 server over TLS on 127.0.0.1, enough for imaplib: LOGIN, SELECT, UID SEARCH UNSEEN,
UID FETCH (BODY.PEEK[]), UID STORE +FLAGS (\\Seen), LOGOUT. Its certificate is self-signed for
127.0.0.1; `ca_file` is the file a client must trust."""

import datetime
import ipaddress
import re
import socketserver
import ssl
import tempfile
import threading
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def self_signed(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


class _Handler(socketserver.StreamRequestHandler):
    server: "ImapServer"

    def send(self, line: str | bytes) -> None:
        self.wfile.write((line.encode() if isinstance(line, str) else line) + b"\r\n")

    def handle(self):
        box = self.server
        self.send("* OK IMAP4rev1 stub ready")
        while True:
            line = self.rfile.readline()
            if not line:
                return
            tag, _, rest = line.decode().strip().partition(" ")
            command, _, args = rest.partition(" ")
            command = command.upper()
            box.commands.append(rest)
            if command == "CAPABILITY":
                self.send("* CAPABILITY IMAP4rev1 AUTH=PLAIN")
                self.send(f"{tag} OK CAPABILITY done")
            elif command == "LOGIN":
                user, password = [part.strip('"') for part in args.split(" ", 1)]
                if (user, password) == (box.user, box.password):
                    self.send(f"{tag} OK logged in")
                else:
                    self.send(f"{tag} NO [AUTHENTICATIONFAILED] wrong password")
            elif command == "SELECT":
                self.send(f"* {len(box.messages)} EXISTS")
                self.send("* FLAGS (\\Seen)")
                self.send(f"{tag} OK [READ-WRITE] SELECT done")
            elif command == "UID":
                self.uid(tag, args)
            elif command == "LOGOUT":
                self.send("* BYE")
                self.send(f"{tag} OK LOGOUT done")
                return
            else:
                self.send(f"{tag} BAD unknown command")

    def uid(self, tag: str, args: str) -> None:
        box = self.server
        sub, _, rest = args.partition(" ")
        sub = sub.upper()
        if sub == "SEARCH":
            unseen = [str(uid) for uid in sorted(box.messages) if uid not in box.seen]
            self.send("* SEARCH " + " ".join(unseen))
        elif sub == "FETCH":
            uid = int(rest.split()[0])
            raw = box.messages[uid]
            self.wfile.write(f"* {uid} FETCH (UID {uid} BODY[] {{{len(raw)}}}\r\n".encode() + raw + b")\r\n")
        elif sub == "STORE":
            uid = int(rest.split()[0])
            if re.search(r"\+FLAGS.*\\Seen", rest, re.I):
                box.seen.add(uid)
            self.send(f"* {uid} FETCH (UID {uid} FLAGS (\\Seen))")
        self.send(f"{tag} OK UID {sub} done")


class ImapServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, user: str = "support", password: str = "secret"):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.user, self.password = user, password
        self.messages: dict[int, bytes] = {}
        self.seen: set[int] = set()
        self.commands: list[str] = []
        self._folder = tempfile.TemporaryDirectory()
        self.ca_file, key_file = self_signed(Path(self._folder.name))
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.ca_file, key_file)
        self.socket = context.wrap_socket(self.socket, server_side=True)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return self.server_address[1]

    def add(self, raw: bytes) -> int:
        uid = max(self.messages, default=0) + 1
        self.messages[uid] = raw
        return uid

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        self._folder.cleanup()

    def settings(self, **overrides) -> dict:
        return {"IMAP_HOST": "127.0.0.1", "IMAP_PORT": self.port, "IMAP_USER": self.user,
                "IMAP_PASSWORD": self.password, "IMAP_FOLDER": "INBOX", "IMAP_SECURITY": "ssl",
                "IMAP_CA_FILE": str(self.ca_file), "IMAP_TIMEOUT_SECONDS": 10, "IMAP_BATCH": 50, **overrides}
