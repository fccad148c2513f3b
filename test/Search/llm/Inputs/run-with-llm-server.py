"""Runs a command against a scripted LLM server on 127.0.0.1.

    run-with-llm-server.py --rules RULES.json --log REQUESTS.jsonl \
        [--provider openai|anthropic] -- COMMAND ARGS...

The server answers OpenAI chat completions (POST .../chat/completions) or
Anthropic messages (POST .../messages). Each rule matches requests whose
body contains its "match" string (the first rule that matches wins) and
answers the n-th matching request with the n-th step of its "steps" (the
last step repeats):
    {"content": "..."}            a normal answer with that text
    {"content_file": "path"}      the same, the text read from a file
                                  (relative to the rules file)
    {"status": 429, "retry_after": 0}   an error status (body: an error)
    {"drop": true}                close the connection without answering
    {"delay": 3, ...}             wait that many seconds first
    {"huge": 10000000}            an answer body of that many bytes
"{key}" in an answer's text or an error's "message" is replaced by the API
key the request carried (a server that echoes the key back).
Every request is appended to the log (one JSON line: path, matched rule,
step). "{port}" in the command is replaced by the server's port. Exits with
the command's status.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--rules", required=True)
parser.add_argument("--log", required=True)
parser.add_argument("--provider", default="openai")
parser.add_argument("command", nargs=argparse.REMAINDER)
args = parser.parse_args()
command = args.command[1:] if args.command[:1] == ["--"] else args.command

rules = json.load(open(args.rules))
rules_dir = os.path.dirname(os.path.abspath(args.rules))
counters = [0] * len(rules)
lock = threading.Lock()


def answer_body(text):
    if args.provider == "anthropic":
        return {"content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": 100, "output_tokens": 50}}
    return {"choices": [{"message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 50}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *unused):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        body = self.rfile.read(length).decode()
        with lock:
            index = next((i for i, r in enumerate(rules) if r["match"] in body), None)
            step_number = counters[index] if index is not None else 0
            if index is not None:
                counters[index] += 1
            with open(args.log, "a") as log:
                log.write(json.dumps({"path": self.path, "rule": index,
                                      "step": step_number,
                                      "authorization": "Authorization" in self.headers
                                      or "x-api-key" in self.headers}) + "\n")
        if index is None:
            step = {"content": "I have no answer for this."}
        else:
            steps = rules[index]["steps"]
            step = steps[min(step_number, len(steps) - 1)]
        if "delay" in step:
            time.sleep(step["delay"])
        if step.get("drop"):
            self.connection.shutdown(socket.SHUT_RDWR)
            self.connection.close()
            return
        auth = self.headers.get("Authorization", "")
        key = auth[len("Bearer "):] if auth.startswith("Bearer ") else \
            self.headers.get("x-api-key", "")
        if "status" in step:
            message = step.get("message", "scripted error").replace("{key}", key)
            payload = json.dumps({"error": {"message": message}}).encode()
            self.send_response(step["status"])
            if "retry_after" in step:
                self.send_header("Retry-After", str(step["retry_after"]))
        elif "huge" in step:
            payload = b"x" * step["huge"]
            self.send_response(200)
        else:
            text = step.get("content")
            if "content_file" in step:
                text = open(os.path.join(rules_dir, step["content_file"])).read()
            payload = json.dumps(answer_body(text.replace("{key}", key))).encode()
            self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        try:
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a refused huge body, a timeout)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
port = server.server_address[1]
threading.Thread(target=server.serve_forever, daemon=True).start()
result = subprocess.run([c.replace("{port}", str(port)) for c in command])
server.shutdown()
sys.exit(result.returncode)
