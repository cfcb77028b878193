#!/usr/bin/env node
// agent-browser COMMAND [ARGS]: drive Chromium from the shell, one command per call, over the
// Chrome DevTools Protocol (Node >= 22: built-in fetch and WebSocket). The browser outlives each
// call, so pages, refs and logins persist between commands. See ../SKILL.md for the commands.
// CDP_URL (default http://127.0.0.1:9222) names the browser; when nothing answers there one is
// started: the desktop's (clawmark-desktop-start --browser) when AGENT_BROWSER_HEADED=1 and a
// display exists, else a headless Chromium.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";

const CDP = process.env.CDP_URL || "http://127.0.0.1:9222";
const PORT = new URL(CDP).port || "9222";
const BROWSERS = ["/usr/local/bin/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
const KEYS = { Enter: 13, Tab: 9, Escape: 27, Backspace: 8, Delete: 46, Space: 32, ArrowLeft: 37, ArrowUp: 38,
  ArrowRight: 39, ArrowDown: 40, PageUp: 33, PageDown: 34, Home: 36, End: 35 };
const die = (message) => { console.error(`agent-browser: ${message}`); process.exit(1); };
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

async function targets() {
  const answer = await fetch(`${CDP}/json/list`, { signal: AbortSignal.timeout(3000) });
  return answer.json();
}

async function ensureBrowser() {
  try { return await targets(); } catch { /* none yet: start one */ }
  const headed = process.env.AGENT_BROWSER_HEADED === "1" && process.env.DISPLAY;
  const desktop = spawnSync("sh", ["-c", "command -v clawmark-desktop-start"]).status === 0;
  if (headed && desktop) spawnSync("clawmark-desktop-start", ["--browser"], { stdio: "ignore" });
  else {
    const binary = BROWSERS.find((path) => existsSync(path));
    if (!binary) die(`no browser answers at ${CDP} and none is installed (looked for ${BROWSERS.join(", ")})`);
    const flags = [`--remote-debugging-port=${PORT}`, "--remote-debugging-address=127.0.0.1",
      "--user-data-dir=/tmp/agent-browser-profile", "--no-first-run", "--no-default-browser-check",
      // Chromium's own sandbox needs user namespaces, which no-new-privileges containers do not give.
      "--window-size=1440,900", "--no-sandbox", "--test-type", "--disable-gpu",
      ...(headed ? [] : ["--headless=new"]), "about:blank"];
    spawn(binary, flags, { detached: true, stdio: "ignore" }).unref();
  }
  for (let i = 0; i < 60; i++) {
    try { return await targets(); } catch { await sleep(250); }
  }
  die(`the browser did not answer at ${CDP} within 15 s`);
}

async function connect() {
  let page = (await ensureBrowser()).find((t) => t.type === "page");
  if (!page) page = await (await fetch(`${CDP}/json/new?about:blank`, { method: "PUT" })).json();
  const socket = new WebSocket(page.webSocketDebuggerUrl);
  const pending = new Map(); const seen = [];
  let last = 0;
  socket.onmessage = ({ data }) => {
    const message = JSON.parse(data);
    if (pending.has(message.id)) { pending.get(message.id)(message); pending.delete(message.id); } else seen.push(message);
  };
  await new Promise((ok, ko) => { socket.onopen = ok; socket.onerror = () => ko(die("cannot reach the page's DevTools socket")); });
  const call = (method, params = {}) => new Promise((ok) => {
    const id = ++last; pending.set(id, ok); socket.send(JSON.stringify({ id, method, params }));
  }).then((m) => (m.error ? die(`${method}: ${m.error.message}`) : m.result));
  const event = async (name, ms) => {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (seen.some((e) => e.method === name)) return true;
    return false;
  };
  return { call, event, seen, close: () => socket.close() };
}

async function js(b, expression) {
  const out = await b.call("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
  if (out.exceptionDetails) die(out.exceptionDetails.exception?.description?.split("\n")[0] || out.exceptionDetails.text);
  return out.result.value;
}

// `@e3` (a ref from `snapshot`) or a CSS selector, as a JavaScript expression finding the element.
function element(target) {
  if (!target) die("this command needs a target: a ref from `snapshot` (@e3) or a CSS selector");
  const css = target.startsWith("@") ? `[data-agent-ref="${target.slice(1)}"]` : target;
  return `(() => { const el = document.querySelector(${JSON.stringify(css)});
    if (!el) throw new Error("no element matches ${target.replace(/"/g, "'")} (take a new snapshot)"); return el; })()`;
}

const SNAPSHOT = `(() => {
  const wanted = "a,button,input,select,textarea,summary,[role],[contenteditable=true],[onclick],h1,h2,h3,h4,label,img[alt]";
  const visible = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none"; };
  const roleOf = (el) => el.getAttribute("role") || ({ a: "link", button: "button", select: "combobox", textarea: "textbox",
    summary: "button", img: "img", label: "label" })[el.tagName.toLowerCase()] || (/^h[1-6]$/i.test(el.tagName) ? "heading"
    : el.tagName === "INPUT" ? ({ checkbox: "checkbox", radio: "radio", submit: "button", button: "button" })[el.type] || "textbox" : "generic");
  const nameOf = (el) => (el.getAttribute("aria-label") || el.getAttribute("alt") || el.getAttribute("placeholder")
    || el.innerText || el.value || el.getAttribute("title") || el.getAttribute("name") || "").trim().replace(/\\s+/g, " ").slice(0, 100);
  document.querySelectorAll("[data-agent-ref]").forEach((el) => el.removeAttribute("data-agent-ref"));
  const lines = [\`page: \${document.title} (\${location.href})\`]; let n = 0;
  for (const el of document.querySelectorAll(wanted)) {
    if (!visible(el)) continue;
    const ref = "e" + (++n); el.setAttribute("data-agent-ref", ref);
    const value = "value" in el && el.value && el.tagName !== "BUTTON" ? \` value="\${String(el.value).slice(0, 60)}"\` : "";
    lines.push(\`- \${roleOf(el)} "\${nameOf(el)}" [ref=@\${ref}]\${value}\`);
  }
  return lines.join("\\n");
})()`;

async function key(b, name) {
  const code = KEYS[name] ?? name.toUpperCase().charCodeAt(0);
  const text = name === "Enter" ? "\r" : name.length === 1 ? name : undefined;
  await b.call("Input.dispatchKeyEvent", { type: "keyDown", key: name, windowsVirtualKeyCode: code, text });
  await b.call("Input.dispatchKeyEvent", { type: "keyUp", key: name, windowsVirtualKeyCode: code });
}

async function settle(b, how) {
  if (how === "networkidle") {  // no new resource for 500 ms, at most 15 s
    let count = -1;
    for (const end = Date.now() + 15000; Date.now() < end; await sleep(500)) {
      const now = await js(b, "performance.getEntriesByType('resource').length + ':' + document.readyState");
      if (now === count && now.endsWith("complete")) return;
      count = now;
    }
  } else await b.event("Page.loadEventFired", 30000);
}

async function run(b, [command, ...args]) {
  const flag = (name) => args.includes(name);
  const plain = args.filter((a) => !a.startsWith("--"));
  switch (command) {
    case "open": case "goto": case "navigate": {
      if (!plain[0]) die("open needs a URL");
      const url = /^[a-z]+:/i.test(plain[0]) ? plain[0] : `https://${plain[0]}`;
      await b.call("Page.enable");
      const nav = await b.call("Page.navigate", { url });
      if (nav.errorText) die(`could not open ${url}: ${nav.errorText}`);
      await b.event("Page.loadEventFired", 30000);
      return js(b, "document.title");
    }
    case "snapshot": return js(b, SNAPSHOT);
    case "get": {
      const what = plain[0];
      if (what === "url") return js(b, "location.href");
      if (what === "title") return js(b, "document.title");
      const source = plain[1] ? element(plain[1]) : "document.body";
      if (what === "text") return js(b, `${source}.innerText`);
      if (what === "html") return js(b, `${source}.outerHTML`);
      if (what === "value") return js(b, `${source}.value`);
      return die("get url | title | text [TARGET] | html [TARGET] | value TARGET");
    }
    case "click": return js(b, `(() => { const el = ${element(plain[0])}; el.scrollIntoView({block: "center"}); el.click();
      return "clicked " + el.tagName.toLowerCase(); })()`);
    case "hover": return js(b, `(() => { const el = ${element(plain[0])};
      for (const t of ["mouseover", "mouseenter", "mousemove"]) el.dispatchEvent(new MouseEvent(t, {bubbles: true}));
      return "hovered " + el.tagName.toLowerCase(); })()`);
    case "fill": case "type": return js(b, `(() => { const el = ${element(plain[0])}; el.focus();
      const text = ${JSON.stringify(plain.slice(1).join(" "))};
      if (el.isContentEditable) el.innerText = ${command === "type"} ? el.innerText + text : text;
      else el.value = ${command === "type"} ? el.value + text : text;
      el.dispatchEvent(new Event("input", {bubbles: true})); el.dispatchEvent(new Event("change", {bubbles: true}));
      return "filled " + el.tagName.toLowerCase(); })()`);
    case "press": if (!plain[0]) die("press needs a key (Enter, Tab, Escape, ArrowDown, a letter)");
      await key(b, plain[0]); return `pressed ${plain[0]}`;
    case "scroll": {
      const pixels = Number(plain[1] || 600) * (plain[0] === "up" ? -1 : 1);
      return js(b, `(window.scrollBy(0, ${pixels}), "scrolled to " + Math.round(window.scrollY))`);
    }
    case "wait": {
      const load = args[args.indexOf("--load") + 1];
      if (flag("--load")) { await settle(b, load); return `loaded (${load})`; }
      if (/^\d+$/.test(plain[0] || "")) { await sleep(Number(plain[0])); return `waited ${plain[0]} ms`; }
      for (const end = Date.now() + 30000; Date.now() < end; await sleep(250))
        if (await js(b, `!!document.querySelector(${JSON.stringify(plain[0])})`)) return `found ${plain[0]}`;
      return die(`nothing matched ${plain[0]} within 30 s`);
    }
    case "screenshot": {
      const jpeg = args[args.indexOf("--screenshot-format") + 1] === "jpeg";
      const file = plain.find((a) => a !== "jpeg") || `/tmp/agent-browser-${Date.now()}.${jpeg ? "jpg" : "png"}`;
      const shot = await b.call("Page.captureScreenshot", { format: jpeg ? "jpeg" : "png", captureBeyondViewport: flag("--full") });
      writeFileSync(file, Buffer.from(shot.data, "base64"));
      return file;
    }
    case "pdf": {
      if (!plain[0]) die("pdf needs a file");
      writeFileSync(plain[0], Buffer.from((await b.call("Page.printToPDF")).data, "base64"));
      return plain[0];
    }
    case "eval": return JSON.stringify(await js(b, plain.join(" ") || "undefined"));
    case "back": await js(b, "history.back()"); await sleep(1000); return js(b, "location.href");
    case "reload": await b.call("Page.enable"); await b.call("Page.reload"); await b.event("Page.loadEventFired", 30000);
      return js(b, "document.title");
    case "close": await b.call("Browser.close").catch(() => {}); return "closed";
    default: return die(`unknown command ${command}; commands: open snapshot get click hover fill type press scroll `
      + "wait screenshot pdf eval back reload close batch");
  }
}

const argv = process.argv.slice(2);
if (!argv.length || argv[0] === "--help") { console.log("agent-browser COMMAND [ARGS]; see SKILL.md"); process.exit(0); }
const browser = await connect();
if (argv[0] === "batch") {  // a JSON array of commands on stdin, e.g. [["open", "URL"], ["snapshot"]]
  const chunks = []; for await (const chunk of process.stdin) chunks.push(chunk);
  for (const step of JSON.parse(Buffer.concat(chunks).toString())) console.log(await run(browser, step.map(String)));
} else console.log(await run(browser, argv));
browser.close();
process.exit(0);
