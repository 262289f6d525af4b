// The sample browser: reads the JSON document in #proctor-data, filters and pages it.
// Model output is only ever put into the page with textContent, never as HTML.
(function () {
  "use strict";
  var source = document.getElementById("proctor-data");
  var list = document.getElementById("sample-list");
  if (!source || !list) {
    return;
  }
  var data = JSON.parse(source.textContent);
  var R = {};
  data.row_fields.forEach(function (name, i) { R[name] = i; });
  var S = {};
  data.sample_fields.forEach(function (name, i) { S[name] = i; });
  var rows = data.rows;
  var haystacks = null;

  function $(id) { return document.getElementById(id); }
  var controls = {
    model: $("f-model"),
    outcome: $("f-outcome"),
    category: $("f-category"),
    difficulty: $("f-difficulty"),
    search: $("f-search"),
    size: $("f-size")
  };
  var state = { page: 0, matches: [] };

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function fillSelect(select, values, label) {
    if (!select) { return; }
    select.appendChild(el("option", "", "all " + label)).value = "";
    values.forEach(function (value) {
      var option = el("option", "", value === "" ? "(none)" : value);
      option.value = value;
      select.appendChild(option);
    });
  }

  var difficulties = [];
  data.samples.forEach(function (s) {
    var d = s[S.difficulty];
    if (difficulties.indexOf(d) < 0) { difficulties.push(d); }
  });
  var present = {};
  rows.forEach(function (r) { present[r[R.outcome]] = true; });
  fillSelect(controls.model, data.models, "models");
  fillSelect(controls.outcome, data.outcomes.filter(function (o, i) { return present[i]; }), "outcomes");
  fillSelect(controls.category, data.categories, "categories");
  fillSelect(controls.difficulty, difficulties, "difficulties");

  function haystack(i) {
    if (haystacks === null) { haystacks = new Array(rows.length); }
    var h = haystacks[i];
    if (h === undefined) {
      var r = rows[i];
      var s = data.samples[r[R.sample]];
      h = [data.models[r[R.model]], s[S.id], s[S.input], s[S.target], r[R.text],
        r[R.extracted] || "", data.strings[r[R.explanation]]].join("\n").toLowerCase();
      haystacks[i] = h;
    }
    return h;
  }

  // The index in `values` of a select's choice; -1 for its first option, "all".
  function chosen(select, values) {
    if (!select || select.selectedIndex <= 0) { return -1; }
    return values.indexOf(select.value);
  }

  function apply() {
    var model = chosen(controls.model, data.models);
    var outcome = chosen(controls.outcome, data.outcomes);
    var category = chosen(controls.category, data.categories);
    var difficulty = chosen(controls.difficulty, difficulties);
    var query = controls.search ? controls.search.value.trim().toLowerCase() : "";
    var out = [];
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i];
      if (model >= 0 && r[R.model] !== model) { continue; }
      if (outcome >= 0 && r[R.outcome] !== outcome) { continue; }
      var s = data.samples[r[R.sample]];
      if (category >= 0 && s[S.category] !== category) { continue; }
      if (difficulty >= 0 && s[S.difficulty] !== difficulties[difficulty]) { continue; }
      if (query && haystack(i).indexOf(query) < 0) { continue; }
      out.push(i);
    }
    state.matches = out;
    state.page = 0;
    render();
  }

  function pageSize() {
    var n = controls.size ? parseInt(controls.size.value, 10) : 50;
    return n > 0 ? n : 50;
  }

  function field(dl, name, value, cls) {
    dl.appendChild(el("dt", "", name));
    var dd = el("dd", cls || "");
    if (cls === "pre") {
      dd.appendChild(el("pre", "", value));
    } else {
      dd.textContent = value;
    }
    dl.appendChild(dd);
  }

  function details(i) {
    var r = rows[i];
    var s = data.samples[r[R.sample]];
    var dl = el("dl", "sample-fields");
    if (s[S.prompt]) { field(dl, "prompt", s[S.prompt], "pre"); }
    field(dl, "input", s[S.input], "pre");
    field(dl, "target", s[S.target]);
    field(dl, "raw response", r[R.text] === "" ? "(empty)" : r[R.text], "pre");
    field(dl, "extracted", r[R.extracted] === null ? "(nothing found)" : r[R.extracted]);
    if (r[R.normalized] !== null && r[R.normalized] !== r[R.extracted]) {
      field(dl, "normalised", r[R.normalized]);
    }
    field(dl, "format followed", r[R.format_ok] ? "yes" : "no");
    field(dl, "rule", data.strings[r[R.rule]]);
    field(dl, "the rule says", data.strings[r[R.rule_text]]);
    field(dl, "why", data.strings[r[R.explanation]]);
    if (data.strings[r[R.human]]) { field(dl, "people's verdict", data.strings[r[R.human]]); }
    field(dl, "finish reason", data.strings[r[R.finish]]);
    field(dl, "tokens", (r[R.prompt_tokens] ?? "unknown") + " prompt + " + (r[R.completion_tokens] ?? "unknown") + " completion");
    field(dl, "latency", r[R.latency_s] + " s, " + r[R.attempts] + " attempt(s)");
    if (data.strings[r[R.error]]) { field(dl, "error", data.strings[r[R.error]]); }
    return dl;
  }

  function preview(text) {
    var line = text.replace(/\s+/g, " ").trim();
    return line.length > 120 ? line.slice(0, 119) + "…" : line;
  }

  function card(i) {
    var r = rows[i];
    var s = data.samples[r[R.sample]];
    var outcome = data.outcomes[r[R.outcome]];
    var article = el("article", "sample");
    article.setAttribute("data-outcome", outcome);
    var head = el("div", "sample-head");
    head.appendChild(el("span", "badge o-" + outcome, outcome));
    head.appendChild(el("span", "model", data.models[r[R.model]]));
    head.appendChild(el("span", "sid", s[S.id] + (r[R.epoch] ? " #" + r[R.epoch] : "")));
    head.appendChild(el("span", "cat", (data.categories[s[S.category]] || "(none)") +
      (s[S.difficulty] ? " · " + s[S.difficulty] : "")));
    var answer = el("span", "answer");
    answer.appendChild(el("span", "k", "target "));
    answer.appendChild(el("code", "", s[S.target]));
    answer.appendChild(el("span", "k", " got "));
    answer.appendChild(el("code", "", r[R.extracted] === null ? "—" : r[R.extracted]));
    head.appendChild(answer);
    article.appendChild(head);
    article.appendChild(el("div", "preview", preview(s[S.input]) + "  →  " + preview(r[R.text])));
    var more = el("details", "more");
    more.appendChild(el("summary", "", "prompt, raw response, extraction and rule"));
    more.addEventListener("toggle", function () {
      if (more.open && more.childNodes.length === 1) { more.appendChild(details(i)); }
    });
    article.appendChild(more);
    return article;
  }

  function render() {
    var size = pageSize();
    var total = state.matches.length;
    var pages = Math.max(1, Math.ceil(total / size));
    if (state.page >= pages) { state.page = pages - 1; }
    var start = state.page * size;
    var end = Math.min(total, start + size);
    var fragment = document.createDocumentFragment();
    for (var k = start; k < end; k++) { fragment.appendChild(card(state.matches[k])); }
    while (list.firstChild) { list.removeChild(list.firstChild); }
    list.appendChild(fragment);
    $("sample-count").textContent = total + " of " + rows.length + " answers match";
    $("page-info").textContent = total ? "showing " + (start + 1) + "–" + end + ", page " +
      (state.page + 1) + " of " + pages : "nothing matches";
    $("page-prev").disabled = state.page === 0;
    $("page-next").disabled = state.page >= pages - 1;
    document.documentElement.setAttribute("data-browser-ready", "1");
  }

  function setSelect(select, value) {
    if (!select || value === null) { return; }
    for (var i = 1; i < select.options.length; i++) {
      if (select.options[i].value === value) { select.selectedIndex = i; return; }
    }
  }

  var timer = null;
  ["model", "outcome", "category", "difficulty", "size"].forEach(function (name) {
    if (controls[name]) { controls[name].addEventListener("change", apply); }
  });
  if (controls.search) {
    controls.search.addEventListener("input", function () {
      if (timer !== null) { clearTimeout(timer); }
      timer = setTimeout(apply, 150);
    });
  }
  $("page-prev").addEventListener("click", function () { state.page -= 1; render(); });
  $("page-next").addEventListener("click", function () { state.page += 1; render(); });
  $("f-reset").addEventListener("click", function () {
    ["model", "outcome", "category", "difficulty"].forEach(function (name) {
      if (controls[name]) { controls[name].selectedIndex = 0; }
    });
    if (controls.search) { controls.search.value = ""; }
    apply();
  });

  // A heat-map cell (or any element marked so) jumps to its samples.
  Array.prototype.forEach.call(document.querySelectorAll("[data-filter-model]"), function (node) {
    node.addEventListener("click", function () {
      setSelect(controls.model, node.getAttribute("data-filter-model"));
      setSelect(controls.category, node.getAttribute("data-filter-category"));
      apply();
      $("samples").scrollIntoView();
    });
  });

  var params = new URLSearchParams(window.location.search);
  setSelect(controls.model, params.get("model"));
  setSelect(controls.outcome, params.get("outcome"));
  setSelect(controls.category, params.get("category"));
  setSelect(controls.difficulty, params.get("difficulty"));
  if (controls.search && params.get("q")) { controls.search.value = params.get("q"); }
  apply();
})();

// Review pages: c, w and s give the verdict of the reply shown; n goes to the note, Escape
// leaves it.
(function () {
  "use strict";
  var form = document.getElementById("review-form");
  if (!form) {
    return;
  }
  var keys = { c: "verdict-correct", w: "verdict-wrong", s: "verdict-skip" };
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var typing = target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT");
    if (typing && event.key === "Escape") {
      target.blur();  // back to the keys, the note kept
      return;
    }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    if (event.key === "n") {
      event.preventDefault();
      document.getElementById("note").focus();
      return;
    }
    var button = keys[event.key] && document.getElementById(keys[event.key]);
    if (button) {
      event.preventDefault();
      button.click();
    }
  });
})();
