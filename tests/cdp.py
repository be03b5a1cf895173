"""A headless Chromium driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: JSON messages ended by NUL on fds 3 and 4), so the
tests need no websocket library nor a port. Every request the page makes,
every console message, exception and log entry (a CSP refusal is one) is
kept. Shared by tests/report_browser.py and bench/report.sh."""
import base64, json, os, shutil, subprocess, tempfile, time, zlib

def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None

class Browser:
    name = "chromium"

    def __init__(self, width=1280, height=900):
        exe = chromium()
        if not exe:
            raise RuntimeError("no chromium (testdata/deps.sh installs Debian's)")
        self.profile = tempfile.mkdtemp(prefix="bc-chromium.")
        r_child, self.w = os.pipe()   # we write, it reads on fd 3
        self.r, w_child = os.pipe()   # it writes on fd 4
        def fds():  # (dup first: dup2 onto the same number keeps close-on-exec)
            a, b = os.dup(r_child), os.dup(w_child)
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen(
            [exe, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--metrics-recording-only", "--mute-audio",
             f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r_child)
        os.close(w_child)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None
        t = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=t, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(domain + ".enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def _read(self, timeout):
        end = time.time() + timeout
        while b"\0" not in self.buf:
            if time.time() > end:
                raise TimeoutError("chromium did not answer")
            import select
            ready, _, _ = select.select([self.r], [], [], max(0.0, end - time.time()))
            if ready:
                chunk = os.read(self.r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed its pipe")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, timeout=60, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read(timeout)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, timeout=60):
        for i, e in enumerate(self.events):
            if e["method"] == method:
                return self.events.pop(i)
        end = time.time() + timeout
        while True:
            m = self._read(max(0.1, end - time.time()))
            if "method" in m:
                if m["method"] == method:
                    return m
                self.events.append(m)

    def open(self, path, timeout=120):
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        self.seen = list(self.events)
        self.call("Page.navigate", url="file://" + os.path.abspath(path))
        self.wait_event("Page.loadEventFired", timeout)

    def eval(self, expr, timeout=120):
        r = self.call("Runtime.evaluate", timeout=timeout, expression=expr, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr[:80]}: {r['exceptionDetails'].get('text')} "
                               f"{r['exceptionDetails'].get('exception', {}).get('description', '')}")
        return r["result"].get("value")

    def screenshot(self, path):
        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        with open(path, "wb") as f:
            f.write(data)
        return data

    def small_png(self):
        """the view at a quarter of its size, to count colours in (and the
        sampling step)"""
        data = self.call("Page.captureScreenshot", format="png",
                         clip={"x": 0, "y": 0, "width": 1280, "height": 900, "scale": 0.25})["data"]
        return base64.b64decode(data), 2

    def click(self, x, y):
        """a real mouse click at (x, y) of the viewport"""
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def problems(self):
        """every request but the page's own file, every console error or
        warning, exception and log entry (CSP refusals among them)"""
        out = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Network.requestWillBeSent":
                url = p.get("request", {}).get("url", "")
                if not url.startswith("file://") or p.get("type") not in ("Document", None):
                    out.append(f"request: {url} ({p.get('type')})")
            elif m == "Runtime.exceptionThrown":
                out.append(f"exception: {p.get('exceptionDetails', {}).get('text')}"
                           f" {p.get('exceptionDetails', {}).get('exception', {}).get('description', '')}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description")))
                                                  for a in p.get("args", [])))
            elif m == "Log.entryAdded":
                entry = p.get("entry", {})
                out.append(f"log {entry.get('level')}: {entry.get('text')}")
        return out

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self.w)
        os.close(self.r)
        shutil.rmtree(self.profile, ignore_errors=True)

def png_colors(data, step=7):
    """how many distinct colours a PNG (8-bit RGB or RGBA, as Chromium writes
    it) holds, sampling every step-th pixel of every step-th row: 1 is blank"""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = (int.from_bytes(body[0:4], "big"), int.from_bytes(body[4:8], "big"),
                                  body[8], body[9])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    colors = set()
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % step == 0:
            for x in range(0, w, step):
                colors.add(bytes(line[x * bpp:x * bpp + 3]))
        prev = line
    return len(colors)
