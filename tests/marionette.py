"""A headless Firefox driven over Marionette, its own protocol (JSON messages
framed as "LENGTH:" on a TCP port Firefox picks and writes into the profile),
so the tests need neither geckodriver nor a websocket library. It has the
interface of tests/cdp.py's Browser that tests/report_browser.py uses: open,
eval, screenshot, small_png, click, problems. Console messages (JS errors and
CSP refusals among them) come from Firefox's console service, read in the
chrome context; a request the CSP lets through shows in the page's resource
timing, one it blocks as a CSP refusal in the console."""
import atexit, base64, collections, json, os, shutil, socket, subprocess, tempfile, time

PREFS = {
    "marionette.port": 0,  # any free port, written to MarionetteActivePort
    "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.disabledForTesting": True,
    "browser.startup.homepage_override.mstone": "ignore",
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "services.settings.server": "",
    "extensions.update.enabled": False,
    "browser.safebrowsing.update.enabled": False,
    # the page's console calls on Firefox's stdout (a content process's
    # console API calls do not reach the parent's storage), the browser's not
    "devtools.console.stdout.content": True,
    "devtools.console.stdout.chrome": False,
}

# Firefox's own modules that log to stdout through a console of their own
# whatever devtools.console.stdout.chrome says (the prefix its
# console.createInstance gives): not the page's. RSLoader: Remote Settings,
# once, when its (emptied) server is not reached.
BROWSER_CONSOLES = ("RSLoader",)

def firefox():
    for name in ("firefox-esr", "firefox"):
        p = shutil.which(name)
        if p:
            return p
    return None

class Browser:
    name = "firefox"

    def __init__(self, width=1280, height=900):
        exe = firefox()
        if not exe:
            raise RuntimeError("no firefox (testdata/deps.sh installs Debian's firefox-esr)")
        self.profile = tempfile.mkdtemp(prefix="bc-firefox.")
        with open(os.path.join(self.profile, "user.js"), "w") as f:
            for k, v in PREFS.items():
                f.write(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n")
        self.stdout = os.path.join(self.profile, "stdout")
        env = dict(os.environ, MOZ_HEADLESS_WIDTH=str(width), MOZ_HEADLESS_HEIGHT=str(height))
        self.proc = subprocess.Popen(
            [exe, "--headless", "--marionette", "--remote-allow-system-access", "--no-remote",
             "--profile", self.profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=open(self.stdout, "wb"), stderr=subprocess.DEVNULL, env=env)
        atexit.register(self._kill)  # (a test that dies leaves no browser behind)
        port_file = os.path.join(self.profile, "MarionetteActivePort")
        end = time.time() + 60
        while not os.path.exists(port_file) or not open(port_file).read().strip():
            if time.time() > end or self.proc.poll() is not None:
                self.close()
                raise RuntimeError("firefox did not start marionette")
            time.sleep(0.1)
        port = int(open(port_file).read().strip())
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.buf = b""
        self.next_id = 0
        self.events = []  # (the interface's; problems are read from Firefox)
        self._recv()  # the hello: {"applicationType": "gecko", "marionetteProtocol": 3}
        self.call("WebDriver:NewSession", capabilities={"alwaysMatch": {
            "pageLoadStrategy": "normal", "timeouts": {"script": 120000, "pageLoad": 120000}}})
        self.call("WebDriver:SetWindowRect", width=width, height=height)
        self.seen = collections.Counter()
        self.stdout_from = 0

    def _recv(self):
        while b":" not in self.buf:
            self._more()
        n, rest = self.buf.split(b":", 1)
        n = int(n)
        self.buf = rest
        while len(self.buf) < n:
            self._more()
        msg, self.buf = self.buf[:n], self.buf[n:]
        return json.loads(msg)

    def _more(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise RuntimeError("firefox closed marionette's socket")
        self.buf += chunk

    def call(self, command, **params):
        self.next_id += 1
        body = json.dumps([0, self.next_id, command, params]).encode()
        self.sock.sendall(str(len(body)).encode() + b":" + body)
        while True:
            m = self._recv()
            if m[0] == 1 and m[1] == self.next_id:
                if m[2]:
                    raise RuntimeError(f"{command}: {m[2].get('error')}: {m[2].get('message')}")
                r = m[3]
                return r.get("value", r) if isinstance(r, dict) else r

    def _context(self, ctx):
        self.call("Marionette:SetContext", value=ctx)

    def _console(self):
        """every console message Firefox holds: [flags, text, source, category],
        script errors first (flags -1: a plain message), then the page's
        console API calls ([level, text, source, "console"])"""
        self._context("chrome")
        try:
            return self.call("WebDriver:ExecuteScript", args=[], script="""
                const out = Services.console.getMessageArray().map(m => {
                    let e = null; try { e = m.QueryInterface(Ci.nsIScriptError); } catch (x) {}
                    return e ? [e.flags, e.errorMessage, e.sourceName + ':' + e.lineNumber, e.category]
                             : [-1, m.message, '', '']; });
                const api = Cc['@mozilla.org/consoleAPI-storage;1'].getService(Ci.nsIConsoleAPIStorage);
                for (const e of api.getEvents())
                    out.push([e.level, (e.arguments || []).map(String).join(' '), e.filename || '', 'console']);
                return out;""") or []
        finally:
            self._context("content")

    def open(self, path, timeout=120):
        self.seen = collections.Counter(map(tuple, self._console()))
        self.stdout_from = os.path.getsize(self.stdout)
        self.call("WebDriver:Navigate", url="file://" + os.path.abspath(path))

    def eval(self, expr, timeout=120):
        r = self.call("WebDriver:ExecuteAsyncScript", args=[], script=
                      "const done = arguments[arguments.length - 1];"
                      f"Promise.resolve().then(() => ({expr})).then(v => done({{ok: v === undefined ? null : v}}),"
                      " e => done({err: String(e) + ' ' + (e && e.stack || '')}));")
        if isinstance(r, dict) and "err" in r:
            raise RuntimeError(f"{expr[:80]}: {r['err']}")
        return r.get("ok") if isinstance(r, dict) else r

    def screenshot(self, path):
        data = base64.b64decode(self.call("WebDriver:TakeScreenshot", full=False, hash=False))
        with open(path, "wb") as f:
            f.write(data)
        return data

    def small_png(self):
        """the view as a PNG to count colours in (Firefox has no scaled
        capture: the whole viewport, counted more sparsely)"""
        return base64.b64decode(self.call("WebDriver:TakeScreenshot", full=False, hash=False)), 8

    def click(self, x, y):
        self.call("WebDriver:PerformActions", actions=[{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "x": int(x), "y": int(y), "origin": "viewport"},
                        {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}])
        self.call("WebDriver:ReleaseActions")

    def problems(self):
        """every request but the page's own file (resource timing), every
        console error or warning since open() (CSP refusals among them)"""
        out = []
        for url in self.eval("performance.getEntriesByType('resource').map(e => e.name)") or []:
            out.append(f"request: {url}")
        new = collections.Counter(map(tuple, self._console())) - self.seen
        for flags, text, source, category in new.elements():
            page = source.startswith("file://") or category == "content javascript"
            csp = "Content-Security-Policy" in (text or "") or "Content Security Policy" in (text or "")
            # flags: 0 error, 1 warning, 2 exception; console levels by name
            if csp or (page and flags in (0, 1, 2, "error", "warn", "assert")):
                out.append(f"console ({category or flags}): {text} ({source})")
        with open(self.stdout, "rb") as f:
            f.seek(self.stdout_from)
            for line in f.read().decode(errors="replace").splitlines():
                if line.startswith(("console.error:", "console.warn:", "console.assert:")) and \
                        not any(f": {c}: " in line[:40] for c in BROWSER_CONSOLES):
                    out.append(line)
        return out

    def _kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def close(self):
        try:
            self.call("Marionette:Quit")
        except Exception:
            pass
        try:
            self.sock.close()
        except Exception:
            pass
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)
