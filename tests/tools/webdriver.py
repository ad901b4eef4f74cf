"""A minimal W3C WebDriver client (Python stdlib only) for Debian's headless Chromium.

Starts /usr/bin/chromedriver on a free loopback port and talks to it over its HTTP/JSON API:
sessions, navigation, element lookup, clicks, typing, script execution, the browser console log
(chromedriver's "goog:loggingPrefs" + /se/log) and screenshots (viewport, element, full page
through chromedriver's DevTools bridge). Used by report_browser_test.py.
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
# Flags that work on this machine and in CI (no sandbox as root, no GPU, no network chatter).
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1"]


def find_browser():
    """(chromium, chromedriver) paths, or None when either is missing."""
    chromium = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    driver = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    return (chromium, driver) if chromium and driver else None


class WebDriverError(RuntimeError):
    pass


class Browser:
    def __init__(self, chromium, driver, width=1280, height=900):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.profile = tempfile.mkdtemp(prefix="sqlgrade-chromium-")
        self.proc = subprocess.Popen([driver, f"--port={self.port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 30
        while True:
            try:
                if self._call("GET", "/status")["ready"]:
                    break
            except (OSError, WebDriverError):
                pass
            if time.time() > deadline:
                self.close()
                raise WebDriverError("chromedriver did not start")
            time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium,
                                   "args": CHROMIUM_FLAGS + [f"--user-data-dir={self.profile}", f"--window-size={width},{height}"]},
            "goog:loggingPrefs": {"browser": "ALL"}}}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as f:
                payload = json.loads(f.read())
        except urllib.error.HTTPError as e:
            payload = json.loads(e.read() or b"{}")
            raise WebDriverError(f"{method} {path}: {payload.get('value', {}).get('message', e)}") from None
        return payload.get("value")

    def _s(self, method, path, body=None):
        return self._call(method, f"/session/{self.session}{path}", body)

    def open(self, path):
        self._s("POST", "/url", {"url": "file://" + os.path.abspath(path)})

    def find(self, css):
        return self._s("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def find_all(self, css):
        return [e[ELEMENT] for e in self._s("POST", "/elements", {"using": "css selector", "value": css})]

    def click(self, element):
        self._s("POST", f"/element/{element}/click", {})

    def type(self, element, text):
        self._s("POST", f"/element/{element}/value", {"text": text})

    def text(self, element):
        return self._s("GET", f"/element/{element}/text")

    def js(self, script, *args):
        return self._s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def console(self):
        """Browser console entries since the last call: [{'level', 'message', …}]."""
        return self._s("POST", "/se/log", {"type": "browser"})

    def screenshot(self, path, element=None):
        """PNG of the viewport, or of one element (its whole box, through DevTools' Page.captureScreenshot)."""
        if element is None:
            data = self._s("GET", "/screenshot")
        else:
            box = self.js("const r = arguments[0].getBoundingClientRect();"
                          "return {x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height};",
                          {ELEMENT: element})
            params = {"format": "png", "captureBeyondViewport": True, "clip": dict(box, scale=1)}
            data = self._s("POST", "/goog/cdp/execute", {"cmd": "Page.captureScreenshot", "params": params})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def set_viewport(self, width, height):
        """Emulate a viewport of exactly width x height CSS pixels (DevTools' device metrics override)."""
        self._s("POST", "/goog/cdp/execute", {"cmd": "Emulation.setDeviceMetricsOverride",
                                              "params": {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}})

    def close(self):
        try:
            if getattr(self, "session", None):
                self._s("DELETE", "")
        except (OSError, WebDriverError):
            pass
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
