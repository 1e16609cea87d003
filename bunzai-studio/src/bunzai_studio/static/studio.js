// bunzai studio page script. Card data is only ever placed as text nodes (textContent) or as
// attribute values we choose (class, alt, title); images only from data: URLs of sniffed raster
// bytes the server produced. No string is ever parsed as HTML, nothing is evaluated, and the
// only requests go to this server.
"use strict";

(() => {
  const IMAGE_URL = /^data:image\/(png|jpeg|gif|webp|avif|bmp);base64,[A-Za-z0-9+/=]*$/;
  let maxUpload = null;
  let maxUploadHint = "--max-upload";

  // -- DOM helpers ------------------------------------------------------------------------------

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = String(value);
      else if (key === "testid") node.dataset.testid = value;
      else if (key === "open") node.open = true;
      else if (key === "onclick") node.addEventListener("click", value);
      else node.setAttribute(key, String(value));
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function image(src, props) {
    // Defence in depth: the server only sends data: URLs of sniffed raster images.
    if (typeof src !== "string" || !IMAGE_URL.test(src)) return null;
    const img = el("img", props);
    img.src = src;
    return img;
  }

  function section(title, count, ...children) {
    return el("details", {class: "section", open: true},
      el("summary", {}, title, count === null ? null : el("span", {class: "count"}, ` (${count})`)),
      ...children);
  }

  function jsonBlock(title, value, open) {
    return el("details", {class: "json", open: !!open},
      el("summary", {}, title),
      el("pre", {class: "json", text: JSON.stringify(value, null, 2)}));
  }

  function table(headers, rows, rowClass) {
    return el("table", {},
      el("thead", {}, el("tr", {}, headers.map(h => el("th", {text: h})))),
      el("tbody", {}, rows.map((cells, i) =>
        el("tr", {class: rowClass ? rowClass(i) : null},
          cells.map(c => c instanceof Node ? el("td", {}, c) : el("td", {text: c ?? ""}))))));
  }

  function textBlock(label, value) {
    if (value === null || value === undefined || value === "") return null;
    return el("div", {class: "field"}, el("h4", {text: label}), el("pre", {class: "text", text: value}));
  }

  function yesNo(value) {
    if (value === null || value === undefined) return el("span", {class: "muted", text: "—"});
    return el("span", {class: value ? "yes" : "no", text: value ? "yes" : "no"});
  }

  function chips(values) {
    return el("span", {}, (values || []).map(v => el("span", {class: "chip", text: v})));
  }

  function bytes(n) {
    if (n === null || n === undefined) return "—";
    if (n < 1024) return `${n} B`;
    if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
    return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  }

  function fields(pairs) {
    const shown = pairs.filter(([, v]) => v !== null && v !== undefined && v !== "" &&
      !(Array.isArray(v) && v.length === 0));
    if (!shown.length) return null;
    return el("dl", {class: "fields"}, shown.flatMap(([k, v]) =>
      [el("dt", {text: k}), el("dd", {}, v instanceof Node ? v : String(v))]));
  }

  function date(seconds) {
    if (typeof seconds !== "number") return null;
    const d = new Date(seconds * 1000);
    return isNaN(d) ? String(seconds) : d.toISOString().replace(".000Z", "Z");
  }

  // -- talking to the server --------------------------------------------------------------------

  async function post(path, form) {
    let response;
    try {
      response = await fetch(path, {method: "POST", body: form});
    } catch (err) {
      return {error: `could not reach the studio server: ${err.message}`};
    }
    try {
      return await response.json();
    } catch (err) {
      return {error: `the studio server answered HTTP ${response.status} without JSON`};
    }
  }

  function tooLarge(file) {
    if (maxUpload === null || file.size <= maxUpload) return null;
    return `${file.name}: upload is ${file.size.toLocaleString("en-US")} bytes, over the limit ` +
      `of ${maxUpload.toLocaleString("en-US")} (raise it with ${maxUploadHint})`;
  }

  async function inspect(file, article, fromFormat) {
    article.replaceChildren(el("p", {class: "pending", text: `Reading ${file.name}…`}));
    const refusal = tooLarge(file);
    if (refusal) {
      article.replaceChildren(head(file, {}), error(refusal));
      return;
    }
    const form = new FormData();
    form.append("file", file, file.name);
    if (fromFormat) form.append("from", fromFormat);
    const data = await post("/api/inspect", form);
    article.replaceChildren(...render(file, data, article));
  }

  // -- rendering --------------------------------------------------------------------------------

  function error(message) {
    return el("p", {class: "error-message", role: "alert", testid: "error", text: message});
  }

  function head(file, data) {
    const entity = data.entities && data.entities[0];
    const view = entity ? entity.view : null;
    const name = view && view.name ? view.name : file.name;
    const avatar = view ? avatarOf(view) : null;
    const badges = el("div", {class: "badges"});
    if (data.format) {
      append(badges, [el("span", {class: "badge format", testid: "format", text: data.format,
        title: data.format_label || null})]);
    }
    if (data.kind) append(badges, [el("span", {class: "badge", text: data.kind})]);
    if (typeof data.confidence === "number") {
      append(badges, [el("span", {class: "badge", text: `confidence ${data.confidence.toFixed(2)}`})]);
    }
    if (data.read_as) append(badges, [el("span", {class: "badge warn", text: "read as chosen"})]);
    if (data.valid === true) append(badges, [el("span", {class: "badge ok", text: "valid"})]);
    if (data.valid === false) append(badges, [el("span", {class: "badge bad", text: "invalid"})]);
    const facts = entity ? factsOf(entity.summary) : null;
    return el("div", {class: "result-head"},
      avatar ? image(avatar, {class: "avatar", alt: "avatar"}) : null,
      el("div", {},
        el("h2", {testid: "name", text: name}),
        el("div", {class: "file-line", text:
          [file.name, bytes(file.size), data.container ? `container ${data.container}` : null]
            .filter(Boolean).join(" · ")}),
        badges, facts));
  }

  function factsOf(summary) {
    const skip = new Set(["kind", "name", "extensions"]);
    const items = Object.entries(summary || {}).filter(([k, v]) => !skip.has(k) &&
      v !== null && typeof v !== "object");
    if (!items.length) return null;
    return el("div", {class: "facts"}, items.map(([k, v]) =>
      el("span", {text: `${k.replaceAll("_", " ")}: ${typeof v === "boolean" ? (v ? "yes" : "no")
        : k.endsWith("_bytes") ? bytes(v) : v}`})));
  }

  function avatarOf(view) {
    const assets = view.assets || (view.avatar ? [view.avatar] : []);
    const icon = assets.find(a => a.preview && a.type === "icon") || assets.find(a => a.preview);
    return icon ? icon.preview : null;
  }

  function render(file, data, article) {
    const out = [head(file, data)];
    if (data.error) out.push(error(data.error));
    if (data.status === "ambiguous" && data.tied && !data.entities) {
      out.push(el("div", {class: "choices"}, "Read it as: ", data.tied.map(fmt =>
        el("button", {class: "secondary", text: fmt, onclick: () => inspect(file, article, fmt)}))));
    }
    if (data.candidates) out.push(detection(data));
    if (!data.entities) return out;
    out.push(origin(data.label));
    out.push(validation(data.issues || []));
    if (data.audit) out.push(activeContent(data.audit));
    data.entities.forEach((entity, i) => {
      const title = data.entities.length > 1 ? `Entity ${i + 1}: ${entity.view.name || "(unnamed)"}`
        : `The ${entity.view.kind}`;
      out.push(section(title, null, entityView(entity.view)));
    });
    out.push(converter(file, data));
    return out;
  }

  function detection(data) {
    const rows = data.candidates.map(c => [c.format, c.kind, c.score.toFixed(2), c.reason || ""]);
    const parts = [table(["candidate", "kind", "score", "reason"], rows,
      i => (data.candidates[i].format === data.format ? "winner" : null))];
    if (!rows.length) parts.unshift(el("p", {class: "muted", text: "No adapter claimed this file."}));
    if (data.container_error) {
      parts.push(el("p", {}, "Container problem: ", el("code", {text: data.container_error})));
    }
    if (data.faults && data.faults.length) {
      parts.push(el("h4", {text: "Adapter faults"}),
        table(["adapter", "message"], data.faults.map(f => [f.format, f.message])));
    }
    return section("Detection", data.candidates.length, parts);
  }

  function origin(label) {
    const parts = [];
    for (const role of ["origin", "last_writer"]) {
      const g = label && label[role];
      if (!g) continue;
      parts.push(el("p", {},
        el("strong", {text: role === "origin" ? "Origin: " : "Last saved by: "}),
        `${g.app} (confidence ${g.confidence.toFixed(2)})`),
        el("ul", {}, (g.evidence || []).map(e => el("li", {text: e}))));
    }
    if (!parts.length) parts.push(el("p", {class: "muted", text: "No app evidence found."}));
    return section("Origin", null, parts);
  }

  function validation(issues) {
    if (!issues.length) return section("Validation", 0, el("p", {class: "yes", text: "No issues."}));
    return section("Validation", issues.length, table(["severity", "path", "message"], issues.map(i =>
      [el("span", {class: `sev-${i.severity}`, text: i.severity}), el("code", {text: i.path}), i.message])));
  }

  function activeContent(audit) {
    // What the file runs, as bunzai audit words it. Excerpts are card text: text nodes only.
    const found = audit.findings || [];
    if (!found.length) {
      return el("div", {testid: "active-content"},
        section("Active content", 0, el("p", {class: "yes", text: "No active content."})));
    }
    const rows = found.map(f => [
      el("code", {text: (f.entity === undefined ? "" : `[${f.entity}].`) + f.path}),
      f.name || "", f.what + (f.count ? ` \u00d7${f.count}` : ""), f.app, f.when,
      el("code", {class: "excerpt", text: f.excerpt})]);
    return el("div", {testid: "active-content"},
      section("Active content", found.length, el("p", {text: audit.summary}),
        table(["where", "name", "what", "app", "when", "excerpt"], rows)));
  }

  // -- the entity -------------------------------------------------------------------------------

  function entityView(v) {
    switch (v.kind) {
      case "character": return character(v);
      case "lorebook": return lorebookView(v);
      case "persona": return persona(v);
      case "regex": return el("div", {}, regexTable([v]), extensions(v));
      case "module": return moduleView(v);
      case "chat": return chatView(v);
      default: return jsonBlock("entity", v, true);
    }
  }

  function character(v) {
    const greetings = [];
    if (v.first_mes) greetings.push(textBlock("First message", v.first_mes));
    (v.alternate_greetings || []).forEach((g, i) => greetings.push(textBlock(`Alternate greeting ${i + 1}`, g)));
    (v.group_only_greetings || []).forEach((g, i) => greetings.push(textBlock(`Group-only greeting ${i + 1}`, g)));
    const notes = Object.entries(v.creator_notes_multilingual || {}).map(([lang, text]) =>
      textBlock(`Creator notes (${lang})`, text));
    return el("div", {class: "entity"},
      fields([["name", v.name], ["nickname", v.nickname], ["creator", v.creator],
        ["version", v.character_version], ["tags", v.tags && v.tags.length ? chips(v.tags) : null],
        ["source", v.source && v.source.length ? chips(v.source) : null],
        ["created", date(v.creation_date)], ["modified", date(v.modification_date)],
        ["passthrough kept for", (v.passthrough_formats || []).join(", ")]]),
      textBlock("Description", v.description), textBlock("Personality", v.personality),
      textBlock("Scenario", v.scenario), textBlock("System prompt", v.system_prompt),
      textBlock("Post-history instructions", v.post_history_instructions),
      textBlock("Example messages", v.mes_example), textBlock("Creator notes", v.creator_notes),
      notes,
      greetings.length ? el("h3", {text: `Greetings (${greetings.length})`}) : null, greetings,
      v.lorebook ? el("h3", {text: `Lorebook (${v.lorebook.entries.length} entries)`}) : null,
      v.lorebook ? lorebookView(v.lorebook) : null,
      v.regex_scripts && v.regex_scripts.length
        ? [el("h3", {text: `Regex scripts (${v.regex_scripts.length})`}), regexTable(v.regex_scripts)] : null,
      assets(v.assets),
      v.triggers ? jsonBlock(`trigger scripts (${v.triggers.length}, never run)`, v.triggers) : null,
      extensions(v));
  }

  function lorebookView(book) {
    const entries = book.entries || [];
    const settings = fields([["name", book.name], ["description", book.description],
      ["scan depth", book.scan_depth], ["token budget", book.token_budget],
      ["recursive scanning", book.recursive_scanning === null || book.recursive_scanning === undefined
        ? null : (book.recursive_scanning ? "yes" : "no")]]);
    const rows = entries.map((e, i) => {
      const title = e.comment || e.name;
      const keys = el("div", {}, chips(e.keys),
        e.secondary_keys && e.secondary_keys.length ? [el("div", {class: "muted", text: "secondary:"}), chips(e.secondary_keys)] : null,
        e.constant ? el("div", {class: "muted", text: "constant"}) : null,
        e.is_folder ? el("div", {class: "muted", text: "folder"}) : null);
      const content = el("div", {}, title ? el("div", {class: "cell-title", text: title}) : null,
        el("div", {class: "cell-text", text: e.content}));
      const position = e.position === null || e.position === undefined ? "—"
        : (e.depth !== null && e.depth !== undefined && e.position === "at_depth" ? `${e.position} (depth ${e.depth})` : e.position);
      return [String(i), keys, content, yesNo(e.enabled), position];
    });
    return el("div", {class: "lorebook"}, settings,
      entries.length ? table(["#", "keys", "content", "enabled", "position"], rows)
        : el("p", {class: "muted", text: "No entries."}),
      book.extensions ? extensions(book) : null);
  }

  function regexTable(scripts) {
    return el("div", {class: "regex"}, table(["name", "find", "replace", "placement", "disabled"], scripts.map(s => [
      s.name || "",
      el("code", {text: `/${s.pattern}/${s.flags || ""}`}),
      el("div", {class: "cell-text mono", text: s.replace}),
      (s.placement || []).join(", "),
      yesNo(s.disabled)])));
  }

  function persona(v) {
    return el("div", {class: "entity"},
      fields([["name", v.name], ["title", v.title], ["default", v.is_default ? "yes" : null],
        ["position", v.position], ["depth", v.depth], ["role", v.role], ["lorebook", v.lorebook],
        ["avatar id", v.avatar_id]]),
      textBlock("Description", v.description), textBlock("Note", v.note),
      v.avatar ? assets([v.avatar]) : null,
      v.connections ? jsonBlock("connections", v.connections) : null,
      extensions(v));
  }

  function moduleView(v) {
    return el("div", {class: "entity"},
      fields([["name", v.name], ["id", v.id], ["namespace", v.namespace]]),
      textBlock("Description", v.description),
      v.lorebook ? [el("h3", {text: `Lorebook (${v.lorebook.entries.length} entries)`}), lorebookView(v.lorebook)] : null,
      v.regex_scripts && v.regex_scripts.length ? [el("h3", {text: "Regex scripts"}), regexTable(v.regex_scripts)] : null,
      assets(v.assets),
      v.triggers ? jsonBlock(`trigger scripts (${v.triggers.length}, never run)`, v.triggers) : null,
      extensions(v));
  }

  function chatView(v) {
    const who = (v.participants || []).map(p => `${p.name} (${p.role})`);
    const rows = (v.messages || []).map((m, i) => {
      const flags = [m.hidden ? "hidden" : null, m.alternatives && m.alternatives.length
        ? `${m.alternatives.length} alternatives` : null, m.attachments && m.attachments.length
        ? `${m.attachments.length} attachment(s)` : null].filter(Boolean).join(", ");
      return [String(i), el("div", {}, el("div", {class: "cell-title", text: m.speaker || ""}),
        el("div", {class: "muted", text: m.role})),
        el("div", {class: "cell-text", text: m.text}), m.time || "", flags];
    });
    return el("div", {class: "entity chat"},
      fields([["title", v.title], ["participants", who.length ? chips(who) : null],
        ["started", v.created], ["branch of", v.branch_of],
        ["passthrough kept for", (v.passthrough_formats || []).join(", ")]]),
      textBlock("Author's note", v.notes), textBlock("Memory", v.memory),
      textBlock("Scenario", v.scenario), textBlock("Greeting", v.greeting),
      textBlock("Example dialogue", v.example_dialogue), textBlock("System prompt", v.system_prompt),
      el("h3", {text: `Transcript (${rows.length} messages)`}),
      rows.length ? table(["#", "speaker", "text", "time", ""], rows)
        : el("p", {class: "muted", text: "No messages."}),
      v.lorebook ? [el("h3", {text: `Lorebook (${v.lorebook.entries.length} entries)`}), lorebookView(v.lorebook)] : null,
      extensions(v));
  }

  function assets(list) {
    if (!list || !list.length) return null;
    return [el("h3", {text: `Assets (${list.length})`}), el("div", {class: "gallery"}, list.map(a => {
      const preview = a.preview ? image(a.preview, {alt: `${a.type} ${a.name}`, title: a.name}) : null;
      const note = a.preview_note || (a.uri ? `uri: ${a.uri}` : "no preview");
      return el("figure", {},
        preview || el("div", {class: "no-preview", text: note}),
        el("figcaption", {text: [a.type, a.name, a.sniffed_type, bytes(a.size)].filter(Boolean).join(" · ")}));
    }))];
  }

  function extensions(v) {
    const blocks = Object.entries(v.extensions || {});
    if (!blocks.length) return null;
    return [el("h3", {text: `Extension blocks (${blocks.length})`}),
      blocks.map(([name, value]) => jsonBlock(name, value))];
  }

  // -- converting -------------------------------------------------------------------------------

  function converter(file, data) {
    const targets = data.targets || [];
    if (!targets.length) return section("Convert", 0, el("p", {class: "muted", text: "No format can write this kind."}));
    const select = el("select", {testid: "convert-to", "aria-label": "target format"},
      targets.map(t => el("option", {value: t.format, text: `${t.label} (${t.format})`})));
    const other = targets.find(t => t.format !== data.format);
    if (other) select.value = other.format;
    const outcome = el("div", {class: "convert-outcome"});
    const button = el("button", {testid: "convert", text: "Convert"});
    button.addEventListener("click", async () => {
      button.disabled = true;
      outcome.replaceChildren(el("p", {class: "pending", text: "Converting…"}));
      const form = new FormData();
      form.append("file", file, file.name);
      form.append("to", select.value);
      if (data.format) form.append("from", data.format);
      const result = await post("/api/convert", form);
      outcome.replaceChildren(...converted(result));
      button.disabled = false;
    });
    return section("Convert", null,
      el("p", {class: "muted", text: `Formats that hold a ${data.kind}. The loss report shows what the target cannot carry before you download.`}),
      el("div", {class: "convert-row"}, select, button), outcome);
  }

  function converted(result) {
    if (result.error) return [error(result.error)];
    const out = [];
    const loss = result.loss || [];
    const groups = result.loss_groups || [];
    out.push(el("div", {class: "loss-report", testid: "loss-report"},
      el("h4", {text: `Loss report: ${result.format} → ${result.to}`}),
      loss.length ? [
        el("p", {testid: "loss-summary", text: result.loss_summary}),
        table(["action", "field", "entries", "why"], groups.map(g =>
          [g.action, el("code", {text: g.path}), String(g.count), g.reason])),
        groups.length < loss.length ? el("details", {class: "json"},
          el("summary", {}, `Every entry (${loss.length})`),
          table(["action", "field", "why"], loss.map(e => [e.action, el("code", {text: e.path}), e.reason])))
          : null,
      ] : el("p", {class: "yes", text: "Nothing lost."})));
    if (result.warnings && result.warnings.length) {
      out.push(el("h4", {text: "Warnings"}),
        table(["path", "message"], result.warnings.map(w => [el("code", {text: w.path}), w.message])));
    }
    out.push(el("div", {class: "downloads"}, (result.files || []).map(f =>
      el("button", {testid: "download", text: `Download ${f.name} (${bytes(f.size)})`,
        onclick: () => download(f)}))));
    return out;
  }

  function download(f) {
    const raw = atob(f.data);
    const buf = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) buf[i] = raw.charCodeAt(i);
    const url = URL.createObjectURL(new Blob([buf], {type: "application/octet-stream"}));
    const a = el("a", {download: f.name});
    a.href = url;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 30000);
  }

  // -- wiring -----------------------------------------------------------------------------------

  async function handle(files) {
    const results = document.getElementById("results");
    const jobs = Array.from(files).map(file => {
      const article = el("article", {class: "result", testid: "result"},
        el("p", {class: "pending", text: `Waiting: ${file.name}`}));
      results.prepend(article);
      return [file, article];
    });
    for (const [file, article] of jobs) await inspect(file, article, null);
  }

  async function start() {
    try {
      const info = await (await fetch("/api/info")).json();
      maxUpload = info.max_upload;
      maxUploadHint = info.max_upload_hint;
      document.getElementById("about").textContent =
        `bunzai ${info.core_version} · studio ${info.studio_version} · ${info.formats} formats · uploads up to ${bytes(info.max_upload)}`;
    } catch (err) {
      document.getElementById("about").textContent = "could not reach the studio server";
    }
    const picker = document.getElementById("picker");
    picker.addEventListener("change", () => {
      const files = Array.from(picker.files);
      picker.value = "";  // picking the same file again must work too
      handle(files);
    });
    const drop = document.getElementById("drop");
    for (const type of ["dragenter", "dragover"]) {
      drop.addEventListener(type, ev => { ev.preventDefault(); drop.classList.add("over"); });
    }
    drop.addEventListener("dragleave", () => drop.classList.remove("over"));
    drop.addEventListener("drop", ev => {
      ev.preventDefault();
      drop.classList.remove("over");
      if (ev.dataTransfer && ev.dataTransfer.files.length) handle(ev.dataTransfer.files);
    });
    // A file dropped outside the drop zone must not make the browser navigate to it.
    window.addEventListener("dragover", ev => ev.preventDefault());
    window.addEventListener("drop", ev => ev.preventDefault());
    document.body.dataset.ready = "1";
  }

  start();
})();
