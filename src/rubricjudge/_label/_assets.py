"""The labelling page's style and script (served inline, allowed by hash in the CSP)."""

from __future__ import annotations

__all__ = ["CSS", "JS"]

CSS = """
:root{--fg:#1d2330;--muted:#5b6475;--line:#d8dde6;--accent:#1f5fbf;--met:#1b7f3b;
--unmet:#b3261e;--na:#7a6a00;--bg:#fff;--soft:#f4f6fa}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);
background:var(--bg)}
header{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;align-items:baseline;padding:.6rem 1.2rem;
border-bottom:1px solid var(--line);background:var(--soft)}
header h1{font-size:1rem;margin:0}
#progress{font-variant-numeric:tabular-nums}
#calib{color:var(--muted)}
#calib.ready{color:var(--met)}
main{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1.2rem;padding:1rem 1.2rem;
max-width:1400px}
@media (max-width:900px){main{grid-template-columns:1fr}}
h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);margin:.2rem 0}
#query{white-space:pre-wrap;margin:0 0 .8rem;font-weight:600}
#submission pre.text{white-space:pre-wrap;word-wrap:break-word;font:inherit;margin:0;padding:.8rem;
border:1px solid var(--line);border-radius:6px;background:var(--soft);max-height:70vh;overflow:auto}
#submission .msg{margin:0 0 .7rem}
#submission .msg-head{font-size:.8rem;color:var(--muted);margin:0 0 .2rem}
#submission .media{display:flex;flex-wrap:wrap;gap:.6rem;margin:.4rem 0}
#submission .media figure{margin:0;max-width:200px}
#submission .media img{display:block;max-width:192px;max-height:192px;border:1px solid #ccd}
#submission .media figcaption{font-size:.8rem;color:var(--muted);word-break:break-word}
#submission pre.call{font-family:ui-monospace,monospace;font-size:.85rem}
#submission details{margin:0 0 .3rem}
#criteria{list-style:none;margin:0;padding:0}
.crit{border:2px solid var(--line);border-radius:6px;padding:.5rem .7rem;margin:0 0 .6rem}
.crit.focus{border-color:var(--accent);box-shadow:0 0 0 2px #1f5fbf22}
.crit .req{margin-bottom:.35rem}
.crit .penalty{color:var(--unmet);font-size:.8rem;font-weight:600;margin-left:.4rem}
.opts{display:flex;flex-wrap:wrap;gap:.35rem}
.opt{border:1px solid var(--line);border-radius:4px;padding:.1rem .45rem;color:var(--muted)}
.opt kbd{font:600 .8rem ui-monospace,monospace;color:var(--fg)}
.opt.chosen{border-color:var(--accent);background:var(--accent);color:#fff}
.opt.chosen kbd{color:#fff}
.judge{margin-top:.35rem;font-size:.85rem;color:var(--muted)}
.judge.agree{color:var(--met)}
.judge.differ{color:var(--unmet)}
#status{min-height:1.4rem;color:var(--muted)}
#status.error{color:var(--unmet);font-weight:600}
#help{font-size:.85rem;color:var(--muted)}
#help kbd{font:600 .8rem ui-monospace,monospace;color:var(--fg);border:1px solid var(--line);
border-radius:3px;padding:0 .25rem}
#done{padding:2rem 1.2rem;font-size:1.1rem}
#token-form{padding:1rem 1.2rem}
"""

JS = r"""
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  let token = null;
  const fromHash = location.hash.match(/token=([^&]+)/);
  if (fromHash) {
    token = decodeURIComponent(fromHash[1]);
    try { sessionStorage.setItem("rubricjudge-label-token", token); } catch (e) {}
    history.replaceState(null, "", location.pathname);
  } else {
    try { token = sessionStorage.getItem("rubricjudge-label-token"); } catch (e) {}
  }
  const st = { item: null, focus: 0, history: [], pos: -1, undo: [], skipped: [],
               chain: Promise.resolve() };

  function say(text, isError) {
    const el = $("status");
    el.textContent = text;
    el.className = isError ? "error" : "";
  }

  async function api(method, path, body) {
    const headers = { "Accept": "application/json" };
    if (token) headers["Authorization"] = "Bearer " + token;
    const init = { method: method, headers: headers, cache: "no-store" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const r = await fetch(path, init);
    let data = null;
    try { data = await r.json(); } catch (e) { data = null; }
    if (r.status === 401) {
      $("token-form").hidden = false;
      $("token").focus();
      throw new Error("this page needs its token");
    }
    if (!r.ok) throw new Error((data && data.error) || ("HTTP " + r.status));
    return data;
  }

  function choices(c) {
    const out = [];
    if (c.options) {
      c.options.forEach(function (o, i) {
        if (i < 10) out.push([String((i + 1) % 10), o, o]);
      });
    } else if (c.kind === "binary") {
      out.push(["y", "MET", "met"], ["n", "UNMET", "unmet"]);
    }
    out.push(["s", "CANNOT_ASSESS", "cannot assess"]);
    return out;
  }

  // Bidirectional controls (embeddings, overrides, isolates) are shown as their code
  // points: obeyed, a right-to-left override would reverse the text after it, and the
  // labeller would read what the submission does not say.
  const BIDI = /[\u202A-\u202E\u2066-\u2069]/g;
  function shown(text) {
    return String(text).replace(BIDI, function (c) {
      return "\u27e8U+" + c.charCodeAt(0).toString(16).toUpperCase() + "\u27e9";
    });
  }

  // The one place a submission is drawn, always as text (never as HTML): a string,
  // text with the model's thinking, or a conversation as numbered messages with
  // their tool calls and results (the numbers judges' reasons use: #3, tool 1).
  function textBlock(text, cls) {
    const pre = document.createElement("pre");
    pre.className = cls || "text";
    pre.textContent = text == null ? "" : shown(text);
    return pre;
  }
  function folded(summary, text) {
    const d = document.createElement("details");
    const s = document.createElement("summary");
    s.textContent = summary;
    d.append(s, textBlock(text));
    return d;
  }
  // images as thumbnails (data: URLs checked to be images), every part with its label
  function renderMedia(el, parts) {
    if (!parts) return;
    const box = document.createElement("div");
    box.className = "media";
    parts.forEach(function (p) {
      const fig = document.createElement("figure");
      fig.className = "part " + String(p.kind).replace(/[^a-z]/g, "");
      if (p.src && /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+\/=]+$/.test(p.src)) {
        const img = document.createElement("img");
        img.src = p.src;
        img.alt = p.label;
        fig.append(img);
      }
      const cap = document.createElement("figcaption");
      cap.textContent = p.label;
      fig.append(cap);
      box.append(fig);
    });
    el.append(box);
  }

  function renderSubmission(el, submission) {
    el.replaceChildren();
    if (typeof submission === "string") {
      el.append(textBlock(submission));
    } else if (submission && submission.kind === "text") {
      if (submission.thinking) el.append(folded("thinking", submission.thinking));
      el.append(textBlock(submission.text));
    } else if (submission && submission.kind === "conversation") {
      (submission.messages || []).forEach(function (m) {
        const box = document.createElement("div");
        box.className = "msg role-" + String(m.role).replace(/[^a-z_]/g, "");
        const head = document.createElement("div");
        head.className = "msg-head";
        let h = "#" + m.n + " " + m.role;
        if (m.turn) h += " · turn " + m.turn;
        if (m.tool) h += " · " + m.tool;
        if (m.result_of) h += " · result of tool " + m.result_of;
        if (m.error) h += " · error";
        head.textContent = h;
        box.append(head);
        if (m.reasoning) box.append(folded("reasoning", m.reasoning));
        if (m.text) box.append(textBlock(m.text));
        (m.calls || []).forEach(function (c) {
          const line = "tool " + c.n + ": " + c.name + "(" + c.arguments + ")";
          box.append(textBlock(line, "text call"));
        });
        el.append(box);
      });
    } else {
      el.append(textBlock(JSON.stringify(submission, null, 2)));
    }
  }

  function progress(d) {
    const left = d.total - d.labelled;
    $("progress").textContent = d.labelled + " of " + d.total + " items labelled by " +
      d.labeller + " · " + left + " to go";
    const c = d.calibration;
    const el = $("calib");
    if (c.needed <= 0) {
      const short = (c.short || []).map(function (g) {
        return g.about + " need " + g.needed + " more (calibrate skips them until then)";
      });
      el.textContent = "calibration: enough labels for " + c.about +
        (short.length ? "; " + short.join("; ") : "");
      el.className = short.length ? "" : "ready";
    } else {
      const counts = Object.keys(c.counts).map(function (k) { return c.counts[k] + " " + k; });
      el.textContent = "calibration needs " + c.needed + " more label" +
        (c.needed === 1 ? "" : "s") + " (" + c.min_labels + " with at least " + c.min_each +
        " of each of two answers, on " + c.about + "; have " + (counts.join(", ") || "none") + ")";
      el.className = "";
    }
  }

  function show(d) {
    progress(d);
    if (d.item_id === null) {
      st.item = null;
      $("item").hidden = true;
      $("done").hidden = false;
      say("");
      return;
    }
    $("done").hidden = true;
    $("item").hidden = false;
    st.item = d;
    $("item-id").textContent = shown(d.item_id) + " (" + d.position + " in " + d.order + " order)";
    $("query").textContent = shown(d.query || "");
    renderSubmission($("submission"), d.submission);
    renderMedia($("submission"), d.media);
    const list = $("criteria");
    list.replaceChildren();
    d.criteria.forEach(function (c, k) {
      const li = document.createElement("li");
      li.className = "crit";
      const req = document.createElement("div");
      req.className = "req";
      req.textContent = (k + 1) + ". " + shown(c.requirement);
      if (c.penalty) {
        const p = document.createElement("span");
        p.className = "penalty";
        p.textContent = "penalty: MET means the fault is there";
        req.append(p);
      }
      const opts = document.createElement("div");
      opts.className = "opts";
      choices(c).forEach(function (ch) {
        const o = document.createElement("span");
        o.className = "opt";
        o.dataset.value = ch[1];
        const kbd = document.createElement("kbd");
        kbd.textContent = ch[0];
        o.append(kbd, " " + ch[2]);
        opts.append(o);
      });
      const judge = document.createElement("div");
      judge.className = "judge";
      li.append(req, opts, judge);
      list.append(li);
    });
    const firstOpen = d.criteria.findIndex(function (c) { return !(c.name in d.labels); });
    st.focus = firstOpen < 0 ? 0 : firstOpen;
    paint();
  }

  function paint() {
    const d = st.item;
    if (!d) return;
    const items = $("criteria").children;
    d.criteria.forEach(function (c, k) {
      const li = items[k];
      li.classList.toggle("focus", k === st.focus);
      const mine = d.labels[c.name];
      li.querySelectorAll(".opt").forEach(function (o) {
        o.classList.toggle("chosen", mine !== undefined && o.dataset.value === mine);
      });
      const j = d.judge && d.judge[c.name];
      const el = li.querySelector(".judge");
      el.className = "judge";
      if (j) {
        const conf = j.confidence === null ? "" : " (confidence " + j.confidence.toFixed(2) + ")";
        // a reason is written for the answer that counted: shown beside that one
        const why = j.reason ? " — " + shown(j.reason) : "";
        el.textContent = "judge: " + j.answer + conf +
          (j.final ? "; counted as " + j.final + " after calibration or the evidence check" + why
            : why);
        if (mine !== undefined) el.classList.add(mine === j.answer ? "agree" : "differ");
      } else {
        el.textContent = "";
      }
    });
    if (items[st.focus]) items[st.focus].scrollIntoView({ block: "nearest" });
  }

  function queue(work) {
    st.chain = st.chain.then(work).catch(function (e) { say(e.message, true); });
    return st.chain;
  }

  function post(itemId, name, value) {
    return api("POST", "/api/labels", { item_id: itemId, labels: { [name]: value } });
  }

  function choose(key) {
    const d = st.item;
    if (!d) return;
    const k = st.focus;
    const c = d.criteria[k];
    const ch = choices(c).find(function (x) { return x[0] === key; });
    if (!ch) return;
    const name = c.name;
    const before = name in d.labels ? d.labels[name] : null;
    // shown and focus moved at once, so fast typing labels the next criterion; the
    // label is put back if the server refuses it
    d.labels[name] = ch[1];
    const next = d.criteria.findIndex(function (x, i) { return i > k && !(x.name in d.labels); });
    const open = d.criteria.findIndex(function (x) { return !(x.name in d.labels); });
    st.focus = next >= 0 ? next : (open >= 0 ? open : k);
    paint();
    say("saving…");
    queue(async function () {
      let r;
      try {
        r = await post(d.item_id, name, ch[1]);
      } catch (e) {
        if (before === null) delete d.labels[name]; else d.labels[name] = before;
        if (st.item === d) paint();
        throw e;
      }
      st.undo.push({ item: d.item_id, name: name, value: before });
      progress(r);
      if (st.item === d) {
        d.judge = r.judge;
        paint();
      }
      say(r.complete ? "saved; item done — Enter or → for the next" : "saved");
    });
  }

  async function open(itemId) {
    const d = await api("GET", "/api/items/" + encodeURIComponent(itemId));
    show(d);
    return d;
  }

  function forward() {
    queue(async function () {
      if (st.pos < st.history.length - 1) {
        st.pos += 1;
        await open(st.history[st.pos]);
        return;
      }
      if (st.item && Object.keys(st.item.labels).length < st.item.criteria.length) {
        st.skipped.push(st.item.item_id);
      }
      // one skip= per id: an id may hold a comma, which a joined list would split
      const query = st.skipped.map(function (id) { return "skip=" + encodeURIComponent(id); });
      const d = await api("GET", "/api/next" + (query.length ? "?" + query.join("&") : ""));
      if (d.item_id !== null) {
        st.history.push(d.item_id);
        st.pos = st.history.length - 1;
      }
      show(d);
      say("");
    });
  }

  function back() {
    queue(async function () {
      if (st.pos > 0) {
        st.pos -= 1;
        await open(st.history[st.pos]);
        say("");
      }
    });
  }

  function undo() {
    const last = st.undo.pop();
    if (!last) { say("nothing to undo"); return; }
    queue(async function () {
      await post(last.item, last.name, last.value);
      const d = await open(last.item);
      const k = d.criteria.findIndex(function (c) { return c.name === last.name; });
      st.focus = k < 0 ? 0 : k;
      paint();
      say("undone");
    });
  }

  function move(step) {
    if (!st.item) return;
    const n = st.item.criteria.length;
    st.focus = (st.focus + step + n) % n;
    paint();
  }

  document.addEventListener("keydown", function (ev) {
    if (ev.target && ev.target.tagName === "INPUT") return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const k = ev.key;
    let done = true;
    if (k === "ArrowDown" || k === "j" || k === "Tab") move(ev.shiftKey ? -1 : 1);
    else if (k === "ArrowUp" || k === "k") move(-1);
    else if (k === "ArrowRight" || k === "Enter") forward();
    else if (k === "ArrowLeft") back();
    else if (k === "u") undo();
    else if (k === "?") $("help").hidden = !$("help").hidden;
    else if (/^[yns0-9]$/.test(k)) choose(k);
    else done = false;
    if (done) ev.preventDefault();
  });

  $("token-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    token = $("token").value.trim();
    try { sessionStorage.setItem("rubricjudge-label-token", token); } catch (e) {}
    $("token-form").hidden = true;
    forward();
  });

  forward();
})();
"""
