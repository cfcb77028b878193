#!/usr/bin/env node
// cdp.mjs ACTION [ARG]: drive the desktop's Chromium over the Chrome DevTools Protocol.
//   open URL          navigate the current tab and wait for load; prints the title
//   text              visible text of the page (document.body.innerText)
//   screenshot FILE   PNG of the viewport to FILE
//   click SELECTOR    click the first element matching the CSS selector; prints what it clicked
//   type SELECTOR TXT set the value of an input/textarea and fire input/change events
//   eval JS           evaluate an expression; prints its JSON value
// Needs Node >= 22 (built-in WebSocket) and Chromium with --remote-debugging-port (CDP_URL,
// default http://127.0.0.1:9222; `clawmark-desktop-start --browser` starts one).
import { writeFileSync } from "node:fs";

const base = process.env.CDP_URL || "http://127.0.0.1:9222";
const [action, arg, arg2] = process.argv.slice(2);
const fail = (msg) => { console.error(`cdp: ${msg}`); process.exit(1); };

async function pageSocket() {
  let targets;
  try { targets = await (await fetch(`${base}/json/list`)).json(); }
  catch (e) { fail(`no Chromium answers at ${base} (${e.cause?.code || e.message}); start it: clawmark-desktop-start --browser`); }
  let page = targets.find((t) => t.type === "page");
  if (!page) page = await (await fetch(`${base}/json/new?about:blank`, { method: "PUT" })).json();
  return page.webSocketDebuggerUrl;
}

function session(url) {
  const ws = new WebSocket(url);
  let next = 0; const waiting = new Map(); const events = [];
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.id !== undefined && waiting.has(msg.id)) { waiting.get(msg.id)(msg); waiting.delete(msg.id); }
    else events.push(msg);
  };
  const ready = new Promise((ok, ko) => { ws.onopen = ok; ws.onerror = () => ko(new Error("websocket error")); });
  const send = (method, params = {}) => new Promise((ok) => {
    const id = ++next; waiting.set(id, ok); ws.send(JSON.stringify({ id, method, params }));
  }).then((msg) => { if (msg.error) fail(`${method}: ${msg.error.message}`); return msg.result; });
  const until = async (name, ms) => {
    const end = Date.now() + ms;
    while (Date.now() < end) { if (events.some((e) => e.method === name)) return true; await new Promise((r) => setTimeout(r, 100)); }
    return false;
  };
  return { ready, send, until, close: () => ws.close() };
}

async function evaluate(s, expression) {
  const out = await s.send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
  if (out.exceptionDetails) fail(`page error: ${out.exceptionDetails.exception?.description || out.exceptionDetails.text}`);
  return out.result.value;
}

const s = session(await pageSocket());
await s.ready;
const selector = JSON.stringify(arg ?? "");
switch (action) {
  case "open": {
    if (!arg) fail("open needs a URL");
    await s.send("Page.enable");
    const nav = await s.send("Page.navigate", { url: arg });
    if (nav.errorText) fail(`could not open ${arg}: ${nav.errorText}`);
    await s.until("Page.loadEventFired", 30000);
    console.log(await evaluate(s, "document.title"));
    break;
  }
  case "text": console.log(await evaluate(s, "document.body ? document.body.innerText : ''")); break;
  case "screenshot": {
    if (!arg) fail("screenshot needs a file");
    const shot = await s.send("Page.captureScreenshot", { format: "png" });
    writeFileSync(arg, Buffer.from(shot.data, "base64"));
    console.log(arg);
    break;
  }
  case "click":
    console.log(await evaluate(s, `(() => { const el = document.querySelector(${selector});
      if (!el) throw new Error("no element matches " + ${selector}); el.click();
      return el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + " " + (el.innerText || el.value || "").slice(0, 80); })()`));
    break;
  case "type":
    console.log(await evaluate(s, `(() => { const el = document.querySelector(${selector});
      if (!el) throw new Error("no element matches " + ${selector}); el.focus(); el.value = ${JSON.stringify(arg2 ?? "")};
      el.dispatchEvent(new Event("input", { bubbles: true })); el.dispatchEvent(new Event("change", { bubbles: true }));
      return "typed into " + el.tagName.toLowerCase(); })()`));
    break;
  case "eval": console.log(JSON.stringify(await evaluate(s, arg ?? "undefined"))); break;
  default: fail(`unknown action ${action}; actions: open text screenshot click type eval`);
}
s.close();
