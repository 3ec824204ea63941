"""A tiny web session server for the tests: HTTP on 127.0.0.1:$PORT, a
page that says which GPUs it sees, and a WebSocket echo at /ws (standard
library only)."""
import base64
import hashlib
import http.server
import os
import struct

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if self.path == "/ws" and self.headers.get("Upgrade", "").lower() == "websocket":
            return self.websocket()
        body = ("web session: path=%s gpus=%s cookie=%s auth=%s" % (
            self.path, os.environ.get("CUDA_VISIBLE_DEVICES", ""),
            self.headers.get("Cookie", ""), self.headers.get("Authorization", ""))).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def websocket(self):
        accept = base64.b64encode(hashlib.sha1((self.headers["Sec-WebSocket-Key"] + GUID).encode()).digest()).decode()
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept)
        self.end_headers()
        self.wfile.flush()
        while True:
            head = self.rfile.read(2)
            if len(head) < 2:
                return
            op, n = head[0] & 0x0F, head[1] & 0x7F
            if n == 126:
                n = struct.unpack(">H", self.rfile.read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self.rfile.read(8))[0]
            mask = self.rfile.read(4) if head[1] & 0x80 else b"\0\0\0\0"
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(self.rfile.read(n)))
            if op == 8:
                return
            out = b"echo: " + data if op == 1 else data
            if len(out) < 126:
                frame = bytes([0x80 | op, len(out)])
            elif len(out) < 65536:
                frame = bytes([0x80 | op, 126]) + struct.pack(">H", len(out))
            else:
                frame = bytes([0x80 | op, 127]) + struct.pack(">Q", len(out))
            self.wfile.write(frame + out)
            self.wfile.flush()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler)
print("listening on 127.0.0.1:%s" % os.environ["PORT"], flush=True)
server.serve_forever()
