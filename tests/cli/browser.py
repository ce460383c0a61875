#!/usr/bin/env python3
# browser.py - open an HTML file in headless Chromium through the DevTools protocol
# (--remote-debugging-pipe: JSON messages ended by NUL on fds 3 and 4), wait for the
# load, and print one JSON object: the console messages and exceptions seen, what
# EXPR (a JavaScript expression) evaluated to, and save a full-page screenshot.
#   browser.py CHROMIUM FILE.html SHOT.png EXPR
# Exit 0 when the page loaded and EXPR ran, 1 otherwise (the cause on stderr).
import json, os, subprocess, sys, tempfile, time, base64

chrome, page, shot, expr = sys.argv[1:5]
to_chrome_r, to_chrome_w = os.pipe()
from_chrome_r, from_chrome_w = os.pipe()
prof = tempfile.mkdtemp(prefix="chrome-", dir=os.path.dirname(os.path.abspath(shot)))


def child_fds():
    # Chromium reads commands on fd 3 and writes replies on fd 4
    os.dup2(to_chrome_r, 3)
    os.dup2(from_chrome_w, 4)


args = [chrome, "--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--hide-scrollbars", "--user-data-dir=" + prof, "--remote-debugging-pipe",
        "--window-size=1100,900", "about:blank"]
if os.geteuid() == 0:
    args.insert(1, "--no-sandbox")
proc = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=child_fds,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(to_chrome_r)
os.close(from_chrome_w)
buf = b""
next_id = 0
events = []


def recv():
    global buf
    while b"\0" not in buf:
        chunk = os.read(from_chrome_r, 1 << 20)
        if not chunk:
            raise RuntimeError("chromium closed the pipe")
        buf += chunk
    msg, buf = buf.split(b"\0", 1)
    return json.loads(msg)


def call(method, params=None, session=None):
    global next_id
    next_id += 1
    m = {"id": next_id, "method": method, "params": params or {}}
    if session:
        m["sessionId"] = session
    os.write(to_chrome_w, json.dumps(m).encode() + b"\0")
    while True:
        r = recv()
        if r.get("id") == next_id:
            if "error" in r:
                raise RuntimeError("%s: %s" % (method, r["error"]))
            return r.get("result", {})
        events.append(r)


def wait_event(name, session, timeout=60):
    end = time.time() + timeout
    for e in events:
        if e.get("method") == name and e.get("sessionId") == session:
            return e
    while time.time() < end:
        e = recv()
        events.append(e)
        if e.get("method") == name and e.get("sessionId") == session:
            return e
    raise RuntimeError("no " + name)


try:
    target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
    sess = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for d in ("Page", "Runtime", "Log"):
        call(d + ".enable", session=sess)
    call("Page.navigate", {"url": "file://" + os.path.abspath(page)}, session=sess)
    wait_event("Page.loadEventFired", sess)
    res = call("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session=sess)
    if "exceptionDetails" in res:
        raise RuntimeError("EXPR threw: %s" % res["exceptionDetails"])
    metrics = call("Page.getLayoutMetrics", session=sess)
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    png = call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
               "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"],
                        "scale": 1}}, session=sess)
    with open(shot, "wb") as f:
        f.write(base64.b64decode(png["data"]))
    console = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled":
            console.append({"level": p["type"], "text": " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", []))})
        elif m == "Runtime.exceptionThrown":
            console.append({"level": "exception", "text": p["exceptionDetails"].get("text", "")})
        elif m == "Log.entryAdded":
            console.append({"level": p["entry"]["level"], "text": p["entry"]["text"]})
    print(json.dumps({"console": console, "value": res["result"].get("value")}))
    rc = 0
except Exception as ex:  # the cause, on one line
    print("browser.py: %s" % ex, file=sys.stderr)
    rc = 1
finally:
    try:
        call("Browser.close")
    except Exception:
        pass
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    subprocess.run(["rm", "-rf", prof])
sys.exit(rc)
