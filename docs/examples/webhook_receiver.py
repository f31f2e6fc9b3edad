#!/usr/bin/env python3
"""A webhook receiver for host-example, standard library only (docs/webhooks.md).

    WEBHOOK_SECRET=whsec_... python3 webhook_receiver.py serve 8080
        serves POST on http://127.0.0.1:8080/, prints each verified event,
        answers 204 (or 401 when the signature does not verify)

    WEBHOOK_SECRET=whsec_... WEBHOOK_SIGNATURE='t=...,v1=...' \\
        python3 webhook_receiver.py check < body.json
        exits 0 when the body verifies, 1 (with the reason) when not;
        WEBHOOK_NOW overrides the clock (seconds since the Unix epoch)
"""

import hashlib
import hmac
import http.server
import json
import os
import sys
import time

TOLERANCE_SECONDS = 5 * 60


def check(secret: str, header: str, body: bytes, now: int) -> int:
    """The receiver's check: returns the delivery's timestamp, or raises ValueError."""
    timestamp = None
    signatures = []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t":
            timestamp = int(value)
        elif key == "v1":
            signatures.append(value)
    if timestamp is None or not signatures:
        raise ValueError("the signature header is not t=TIMESTAMP,v1=HEX")
    # 1. Refuse a replay: a timestamp more than five minutes from now.
    if abs(now - timestamp) > TOLERANCE_SECONDS:
        raise ValueError(f"the timestamp {timestamp} is more than five minutes from now ({now})")
    # 2. Recompute HMAC-SHA256(secret, "TIMESTAMP." + body) over the raw bytes.
    signed = str(timestamp).encode() + b"." + body
    expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    # 3. Compare in constant time.
    if not any(hmac.compare_digest(expected, given) for given in signatures):
        raise ValueError("the signature does not match")
    return timestamp


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        header = self.headers.get("Host-Webhook-Signature", "")
        try:
            check(os.environ["WEBHOOK_SECRET"], header, body, int(time.time()))
        except ValueError as refused:
            self.send_response(401)
            self.end_headers()
            print(f"refused: {refused}", flush=True)
            return
        # The event's id is the same on every attempt: skip one already
        # seen. Taken from the signed body, not the (unsigned) header.
        event = json.loads(body)
        print(event["id"], event["type"], flush=True)
        self.send_response(204)
        self.end_headers()


def main() -> int:
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "serve" and len(sys.argv) == 3:
        server = http.server.HTTPServer(("127.0.0.1", int(sys.argv[2])), Receiver)
        server.serve_forever()
        return 0
    if command == "check":
        now = int(os.environ.get("WEBHOOK_NOW") or time.time())
        try:
            check(os.environ["WEBHOOK_SECRET"], os.environ["WEBHOOK_SIGNATURE"], sys.stdin.buffer.read(), now)
        except ValueError as refused:
            print(f"refused: {refused}", file=sys.stderr)
            return 1
        print("verified")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
