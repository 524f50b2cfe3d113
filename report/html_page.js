// html_page.js — the HTML report's page script (embedded by report/html.c; no library).
//
// Reads the data of <script id="sp-data"> (its layout is written at the top of html.c)
// and builds every view from it: the flame graph and icicle on a canvas (hover for
// values, click to zoom and to select a function, regular-expression search with the
// share it matches), the top table (flat and cum, sortable), the callers and callees
// of the selected function, and the annotated source and disassembly of the functions
// the data annotates.  The fragment #view=V&fn=NAME&zoom=NAME&search=RE applies the
// same actions on load.  window.symprof is a small hook for scripted checks.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('sp-data').textContent);
  var KINDS = ['', 'inline', 'kernel', 'JIT', 'unresolved'];

  // -- values -------------------------------------------------------------------------
  var TIME = [['ns', 1], ['us', 1e3], ['ms', 1e6], ['s', 1e9], ['mins', 60e9], ['hrs', 3600e9]];
  var MEM = [['B', 1], ['kB', 1024], ['MB', 1048576], ['GB', 1073741824], ['TB', 1099511627776]];
  var TIME_IN = {nanoseconds: 1, nanosecond: 1, ns: 1, microseconds: 1e3, us: 1e3, milliseconds: 1e6,
                 ms: 1e6, seconds: 1e9, s: 1e9};
  var MEM_IN = {bytes: 1, byte: 1, b: 1, kilobytes: 1024, kb: 1024, megabytes: 1048576, mb: 1048576};
  function unitTable() {
    var u = (D.unit || '').toLowerCase();
    if (u in TIME_IN) return [TIME, TIME_IN[u]];
    if (u in MEM_IN) return [MEM, MEM_IN[u]];
    return null;
  }
  var UT = unitTable();
  function fmt(v) {
    if (!UT) return String(v);
    var x = v * UT[1], tab = UT[0], a = Math.abs(x), k = 0, want = (D.show || '').toLowerCase();
    if (want && want !== 'auto' && want !== 'minimum') {
      for (var j = 0; j < tab.length; j++) if (tab[j][0].toLowerCase() === want) k = j;
    } else {
      while (k + 1 < tab.length && a >= tab[k + 1][1]) k++;
    }
    var s = (x / tab[k][1]).toFixed(2).replace(/\.00$/, '');
    return (s === '-0' ? '0' : s) + tab[k][0];
  }
  function pct(v, t) { return t ? (100 * v / t).toFixed(2) + '%' : '-'; }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  // -- the call tree --------------------------------------------------------------------
  // A tree: arrays over its nodes in depth-first order (parent before children):
  // depth, name index, kind, value (cumulative), base value, parent, end (one past the
  // last node of the subtree), start (x offset in value units).
  function makeTree(depth, names, kinds, v, b) {
    var n = depth.length, parent = new Int32Array(n), end = new Int32Array(n),
      start = new Float64Array(n), self = new Float64Array(n), stack = [], maxd = 0, i;
    for (i = 0; i < n; i++) {
      while (stack.length > depth[i]) { var j = stack.pop(); end[j] = i; }
      parent[i] = stack.length ? stack[stack.length - 1] : -1;
      stack.push(i);
      if (depth[i] > maxd) maxd = depth[i];
      self[i] = v[i];
    }
    while (stack.length) end[stack.pop()] = n;
    var next = new Float64Array(n);
    for (i = 0; i < n; i++) {
      var p = parent[i];
      if (p >= 0) { start[i] = next[p]; next[p] += v[i]; self[p] -= v[i]; }
      next[i] = start[i];
    }
    return {n: n, depth: depth, name: names, kind: kinds, v: v, b: b, parent: parent, end: end,
            start: start, self: self, maxDepth: maxd};
  }
  var T = (function () {
    var f = D.tree.f, names = new Int32Array(f.length), kinds = new Uint8Array(f.length);
    for (var i = 0; i < f.length; i++) { names[i] = f[i] >> 3; kinds[i] = f[i] & 7; }
    return makeTree(D.tree.d, names, kinds, D.tree.v, D.tree.b || null);
  })();
  var TOTAL = T.n ? T.v[0] : 0;
  function nameOf(t, i) { return D.names[t.name[i]]; }

  // Flat and cum per function name (a recursive call counted once in cum).
  function functionTotals() {
    var flat = {}, cum = {}, onPath = {}, stack = [], i, nm;
    for (i = 1; i < T.n; i++) {
      while (stack.length && T.end[stack[stack.length - 1]] <= i) onPath[T.name[stack.pop()]]--;
      nm = T.name[i];
      flat[nm] = (flat[nm] || 0) + T.self[i];
      if (!onPath[nm]) cum[nm] = (cum[nm] || 0) + T.v[i];
      onPath[nm] = (onPath[nm] || 0) + 1;
      stack.push(i);
    }
    var rows = [];
    for (nm in cum) rows.push({name: D.names[nm], idx: +nm, flat: flat[nm] || 0, cum: cum[nm]});
    return rows;
  }

  // The callees of NAME merged over its outermost occurrences, and its callers (each
  // occurrence's path to the root, inverted), as trees of their own.
  function sandwich(name) {
    var roots = [], i, k;
    for (i = 1; i < T.n; i++) {
      if (D.names[T.name[i]] !== name) continue;
      var p = T.parent[i], inner = false;
      for (; p > 0; p = T.parent[p]) if (D.names[T.name[p]] === name) { inner = true; break; }
      if (!inner) roots.push(i);
    }
    function node(nm, kd) { return {nm: nm, kd: kd, v: 0, kids: {}, order: []}; }
    function child(nd, nm, kd) {
      var key = nm + ':' + kd;
      if (!(key in nd.kids)) { nd.kids[key] = node(nm, kd); nd.order.push(key); }
      return nd.kids[key];
    }
    var callees = node(T.name[roots.length ? roots[0] : 0], 0), callers = node(callees.nm, 0);
    for (k = 0; k < roots.length; k++) {
      var r = roots[k], path = [callees];
      callees.v += T.v[r];
      for (i = r + 1; i < T.end[r]; i++) {
        var d = T.depth[i] - T.depth[r];
        path.length = d;
        var c = child(path[d - 1], T.name[i], T.kind[i]);
        c.v += T.v[i];
        path.push(c);
      }
      var up = callers;
      callers.v += T.v[r];
      for (var q = T.parent[r]; q > 0; q = T.parent[q]) {
        up = child(up, T.name[q], T.kind[q]);
        up.v += T.v[r];
      }
    }
    function flatten(root) {
      var depth = [], names = [], kinds = [], v = [];
      (function walk(nd, d) {
        depth.push(d); names.push(nd.nm); kinds.push(nd.kd); v.push(nd.v);
        nd.order.sort(function (a, b) {
          var x = D.names[nd.kids[a].nm], y = D.names[nd.kids[b].nm];
          return x < y ? -1 : x > y ? 1 : 0;
        });
        for (var j = 0; j < nd.order.length; j++) walk(nd.kids[nd.order[j]], d + 1);
      })(root, 0);
      return makeTree(depth, names, kinds, v, null);
    }
    return {n: roots.length, callees: flatten(callees), callers: flatten(callers)};
  }

  // -- drawing ---------------------------------------------------------------------------
  var ROW = 16;
  function hash(s) {
    var h = 2166136261;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    return h >>> 0;
  }
  function kindColor(name, kind) {
    var h = hash(name), a = (h & 255) / 255, b = ((h >> 8) & 255) / 255, c = ((h >> 16) & 255) / 255;
    switch (kind) {
      case 1: return 'rgb(' + (50 * a | 0) + ',' + (190 + 50 * b | 0) + ',' + (190 + 50 * c | 0) + ')';
      case 2: return 'rgb(' + (235 + 20 * a | 0) + ',' + (130 + 50 * b | 0) + ',' + (30 * c | 0) + ')';
      case 3: return 'rgb(' + (60 * a | 0) + ',' + (180 + 60 * b | 0) + ',' + (60 * c | 0) + ')';
      case 4: var g = 160 + 40 * a | 0; return 'rgb(' + g + ',' + g + ',' + g + ')';
    }
    return 'rgb(' + (205 + 50 * c | 0) + ',' + (230 * a | 0) + ',' + (55 * b | 0) + ')';
  }
  function diffColor(delta, max) {
    var c = delta && max ? 225 - (195 * Math.abs(delta) / max | 0) : 240;
    return delta > 0 ? 'rgb(255,' + c + ',' + c + ')' : delta < 0 ? 'rgb(' + c + ',' + c + ',255)'
      : 'rgb(240,240,240)';
  }

  // A graph drawn on CANVAS from tree T; opts.inverted puts the root at the top.
  function Graph(canvas, t, opts) {
    this.c = canvas; this.t = t; this.inv = !!opts.inverted; this.zoom = 0; this.match = null;
    this.onClick = opts.onClick || null; this.boxes = [];
    var self = this;
    canvas.addEventListener('mousemove', function (e) { self.hover(e); });
    canvas.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
    canvas.addEventListener('click', function (e) {
      var i = self.hit(e);
      if (i >= 0 && self.onClick) self.onClick(self, i);
    });
    if (t.b) {
      var m = 0;
      for (var i = 0; i < t.n; i++) m = Math.max(m, Math.abs(t.v[i] - t.b[i]));
      this.maxChange = m;
    }
  }
  Graph.prototype.width = function () { return Math.max(300, this.c.parentNode.clientWidth || 1000); };
  Graph.prototype.draw = function () {
    var t = this.t, z = this.zoom, W = this.width(), zv = t.v[z] || 1,
      dpr = window.devicePixelRatio || 1, c = this.c, scale = W / zv, x0 = t.start[z],
      anc = {}, vis = [], maxd = 0, i, k;
    for (var a = z; a >= 0; a = t.parent[a]) anc[a] = true;
    // the frames wide enough to see, and the deepest of them: the canvas is that tall
    for (i = 0; i < t.n;) {
      var inside = i >= z && i < t.end[z];
      if (!inside && !anc[i]) { i = i < z ? i + 1 : t.end[i]; continue; }
      var x = inside ? (t.start[i] - x0) * scale : 0, w = inside ? t.v[i] * scale : W;
      if (w < 0.4 || t.v[i] <= 0) { i = t.end[i]; continue; }
      vis.push([i, x, w, inside]);
      if (t.depth[i] > maxd) maxd = t.depth[i];
      i++;
    }
    var H = (maxd + 1) * ROW + 2;
    c.width = W * dpr; c.height = H * dpr; c.style.width = W + 'px'; c.style.height = H + 'px';
    var g = c.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.fillStyle = '#fafaf7'; g.fillRect(0, 0, W, H);
    g.font = '12px system-ui, sans-serif'; g.textBaseline = 'middle';
    var boxes = [], matchColor = 'rgb(230,0,230)';
    for (k = 0; k < vis.length; k++) {
      i = vis[k][0];
      var bx = vis[k][1], bw = vis[k][2], row = this.inv ? t.depth[i] : maxd - t.depth[i], y = row * ROW;
      var nm = nameOf(t, i), color;
      if (this.match && this.match[i]) color = matchColor;
      else if (t.b) color = diffColor(t.v[i] - t.b[i], this.maxChange);
      else color = kindColor(nm, t.kind[i]);
      g.globalAlpha = vis[k][3] ? 1 : 0.55;
      g.fillStyle = color;
      g.fillRect(bx, y + 0.5, Math.max(bw - 0.5, 0.5), ROW - 1);
      if (bw > 30) {
        g.fillStyle = '#000';
        var room = Math.floor((bw - 6) / 6.6);
        g.fillText(nm.length <= room ? nm : nm.slice(0, Math.max(room - 2, 1)) + '..', bx + 3,
          y + ROW / 2 + 0.5, bw - 4);
      }
      boxes.push([bx, y, bw, ROW, i]);
    }
    g.globalAlpha = 1;
    this.boxes = boxes;
  };
  Graph.prototype.hit = function (e) {
    var r = this.c.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
    for (var k = this.boxes.length - 1; k >= 0; k--) {
      var b = this.boxes[k];
      if (x >= b[0] && x < b[0] + b[2] && y >= b[1] && y < b[1] + b[3]) return b[4];
    }
    return -1;
  };
  Graph.prototype.label = function (i) {
    var t = this.t, nm = nameOf(t, i), k = KINDS[t.kind[i]];
    var s = nm + (k ? ' [' + k + ']' : '') + ' — ';
    if (t.b) return s + 'before ' + fmt(t.b[i]) + ', after ' + fmt(t.v[i]) + ', change ' +
      (t.v[i] - t.b[i] >= 0 ? '+' : '') + fmt(t.v[i] - t.b[i]);
    return s + fmt(t.v[i]) + ' (' + pct(t.v[i], TOTAL) + ' of the total, ' +
      pct(t.v[i], t.v[0]) + ' here)';
  };
  Graph.prototype.hover = function (e) {
    var i = this.hit(e);
    if (i < 0) { tip.style.display = 'none'; return; }
    tip.textContent = this.label(i);
    tip.style.display = 'block';
    tip.style.left = Math.min(e.clientX + 12, window.innerWidth - tip.offsetWidth - 4) + 'px';
    tip.style.top = (e.clientY + 14) + 'px';
    details.textContent = this.label(i);
  };
  // The box of the widest drawn frame named NAME, in page coordinates.
  Graph.prototype.box = function (name) {
    var r = this.c.getBoundingClientRect(), best = null;
    for (var k = 0; k < this.boxes.length; k++) {
      var b = this.boxes[k];
      if (nameOf(this.t, b[4]) === name && (!best || b[2] > best[2])) best = b;
    }
    return best ? {x: r.left + best[0], y: r.top + best[1], w: best[2], h: best[3], node: best[4]} : null;
  };

  // -- the page ------------------------------------------------------------------------
  var tip = el('div', {id: 'sp-tip'}), details, state = {view: 'flame', fn: null, search: ''};
  document.body.appendChild(tip);
  var header = el('header');
  header.appendChild(el('h1', {id: 'sp-title'}, D.title));
  var summary = 'Total ' + fmt(TOTAL) + ' (' + D.type + ')';
  if (D.diff) summary += '; differential: widths are the newer profile, colours the change ' +
    '(red grew, blue shrank); base total ' + fmt(T.b ? T.b[0] : 0);
  header.appendChild(el('div', {id: 'sp-summary'}, summary));
  var nav = el('nav'), tabs = {};
  var VIEWS = [['flame', 'Flame graph'], ['icicle', 'Icicle'], ['top', 'Top'],
               ['sandwich', 'Callers / callees'], ['source', 'Source'], ['disasm', 'Disassembly'],
               ['info', 'Info']];
  VIEWS.forEach(function (v) {
    var b = el('button', {id: 'sp-tab-' + v[0], type: 'button'}, v[1]);
    b.addEventListener('click', function () { show(v[0]); });
    tabs[v[0]] = b;
    nav.appendChild(b);
  });
  header.appendChild(nav);
  document.body.appendChild(header);
  var main = el('main');
  document.body.appendChild(main);
  var views = {};
  function section(id) { var s = el('section', {id: 'sp-view-' + id, 'class': 'view'}); main.appendChild(s); views[id] = s; return s; }

  // flame graph and icicle share one canvas and toolbar
  var fv = section('flame');
  views.icicle = fv;
  var bar = el('div', {'class': 'bar'});
  var reset = el('button', {id: 'sp-reset', type: 'button'}, 'Reset zoom');
  var search = el('input', {id: 'sp-search', type: 'text', placeholder: 'Search (regular expression)'});
  var matched = el('span', {id: 'sp-matched'});
  bar.appendChild(reset); bar.appendChild(search); bar.appendChild(matched);
  fv.appendChild(bar);
  details = el('div', {id: 'sp-details'}, '\u00a0');
  fv.appendChild(details);
  var selBox = el('div', {id: 'sp-selected'});
  fv.appendChild(selBox);
  var canvas = el('canvas', {id: 'sp-flame'});
  fv.appendChild(canvas);
  var graph = new Graph(canvas, T, {onClick: function (g, i) {
    zoomTo(i === g.zoom ? (i === 0 ? 0 : T.parent[i]) : i);
    if (i > 0) select(nameOf(T, i));
  }});
  reset.addEventListener('click', function () { zoomTo(0); });
  search.addEventListener('input', function () { doSearch(search.value); });
  function zoomTo(i) {
    graph.zoom = i < 0 ? 0 : i;
    document.documentElement.setAttribute('data-zoom', i > 0 ? nameOf(T, i) : '');
    graph.draw();
    if (state.search) doSearch(state.search);
  }
  function doSearch(re) {
    state.search = re;
    if (!re) { graph.match = null; matched.textContent = ''; graph.draw(); return; }
    var rx;
    try { rx = new RegExp(re); } catch (e) { matched.textContent = 'bad expression'; return; }
    var m = new Uint8Array(T.n), sum = 0, z = graph.zoom, byName = {};
    for (var i = 1; i < T.n; i++) {
      var k = T.name[i];
      if (!(k in byName)) byName[k] = rx.test(D.names[k]);
      if (byName[k]) m[i] = 1;
    }
    // the matched share: nodes under the zoom matching with no matching ancestor there
    for (var j = z; j < T.end[z]; j++) {
      if (!m[j]) continue;
      sum += T.v[j];
      j = T.end[j] - 1;
    }
    graph.match = m;
    var share = T.v[z] ? 100 * sum / T.v[z] : 0;
    matched.textContent = 'Matched: ' + share.toFixed(1) + '%';
    matched.setAttribute('data-share', share.toFixed(4));
    matched.setAttribute('data-value', String(sum));
    graph.draw();
  }

  // top
  var tv = section('top'), topRows = functionTotals(), topSort = {key: 'flat', dir: -1};
  var topTable = el('table', {id: 'sp-top'});
  tv.appendChild(topTable);
  function drawTop() {
    var k = topSort.key, dir = topSort.dir;
    topRows.sort(function (a, b) {
      var x = a[k], y = b[k];
      if (x !== y) return (x < y ? -1 : 1) * dir;
      return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    });
    topTable.textContent = '';
    var thead = el('thead'), tr = el('tr');
    [['flat', 'flat'], ['flatp', 'flat%'], ['sum', 'sum%'], ['cum', 'cum'], ['cump', 'cum%'],
     ['name', 'function']].forEach(function (h) {
      var th = el('th', {'data-key': h[0], 'class': h[0] === 'name' ? 'name' : ''},
        h[1] + (k === h[0] || (k === 'flat' && h[0] === 'flatp') || (k === 'cum' && h[0] === 'cump')
          ? (dir < 0 ? ' \u25bc' : ' \u25b2') : ''));
      th.addEventListener('click', function () {
        var key = h[0] === 'flatp' || h[0] === 'sum' ? 'flat' : h[0] === 'cump' ? 'cum' : h[0];
        topSort = {key: key, dir: topSort.key === key ? -topSort.dir : key === 'name' ? 1 : -1};
        drawTop();
      });
      tr.appendChild(th);
    });
    thead.appendChild(tr); topTable.appendChild(thead);
    var tb = el('tbody'), running = 0, limit = Math.min(topRows.length, 3000);
    for (var i = 0; i < limit; i++) {
      var r = topRows[i], row = el('tr', {'data-name': r.name, 'data-flat': r.flat, 'data-cum': r.cum});
      running += r.flat;
      [fmt(r.flat), pct(r.flat, TOTAL), pct(running, TOTAL), fmt(r.cum), pct(r.cum, TOTAL)].forEach(function (s) { row.appendChild(el('td', null, s)); });
      row.appendChild(el('td', {'class': 'name'}, r.name));
      row.addEventListener('click', (function (n) { return function () { select(n); show('sandwich'); }; })(r.name));
      tb.appendChild(row);
    }
    topTable.appendChild(tb);
    if (limit < topRows.length) tv.appendChild(el('p', {'class': 'note'}, (topRows.length - limit) + ' more functions not listed'));
  }

  // callers / callees
  var sv = section('sandwich');
  function drawSandwich() {
    sv.textContent = '';
    if (!state.fn) { sv.appendChild(el('p', {'class': 'note'}, 'Click a function in the flame graph or the top table.')); return; }
    var s = sandwich(state.fn);
    sv.appendChild(el('h2', null, state.fn + ': callers above, callees below'));
    var row = functionTotals().filter(function (r) { return r.name === state.fn; })[0];
    sv.appendChild(el('p', {id: 'sp-sw-values', 'data-flat': row ? row.flat : 0, 'data-cum': row ? row.cum : 0},
      row ? 'flat ' + fmt(row.flat) + ' (' + pct(row.flat, TOTAL) + '), cum ' + fmt(row.cum) + ' (' + pct(row.cum, TOTAL) + ')' : ''));
    sv.appendChild(el('h2', null, 'Callers (the function at the top, its callers under it)'));
    var c1 = el('canvas', {id: 'sp-callers'}); sv.appendChild(c1);
    sv.appendChild(el('h2', null, 'Callees (the function at the top, what it calls under it)'));
    var c2 = el('canvas', {id: 'sp-callees'}); sv.appendChild(c2);
    var click = function (g, i) { g.zoom = i === g.zoom ? Math.max(g.t.parent[i], 0) : i; g.draw(); };
    var g1 = new Graph(c1, s.callers, {inverted: true, onClick: click});
    var g2 = new Graph(c2, s.callees, {inverted: true, onClick: click});
    g1.draw(); g2.draw();
    state.sw = {callers: g1, callees: g2};
  }

  // annotated source and disassembly
  function annOf(name) { return D.ann.filter(function (a) { return a.n === name; }); }
  function heat(tr, v, max) {
    if (v && max) { tr.className += ' hot'; tr.style.setProperty('--heat', (0.12 + 0.6 * Math.abs(v) / max).toFixed(3)); }
  }
  var srcv = section('source');
  function drawSource() {
    srcv.textContent = '';
    var list = state.fn ? annOf(state.fn) : [];
    if (!list.length) {
      srcv.appendChild(el('p', {'class': 'note'}, state.fn ? state.fn + ' is not among the annotated functions (the hottest ' + D.ann.length + ').' : 'Select a function.'));
      return;
    }
    list.forEach(function (a) {
      srcv.appendChild(el('h2', null, a.n + ' \u2014 ' + (a.file || 'unknown file')));
      srcv.appendChild(el('p', {'class': 'note', 'data-flat': a.flat, 'data-cum': a.cum},
        'flat ' + fmt(a.flat) + ', cum ' + fmt(a.cum) + ' (' + pct(a.cum, TOTAL) + ' of the total). Lines of callees inlined at a line are listed under it.'));
      var src = D.sources.filter(function (s) { return s.path === a.file; })[0];
      if (src && src.missing) srcv.appendChild(el('p', {'class': 'missing'}, 'Source not shown: ' + src.missing));
      var table = el('table', {'class': 'src'}), tb = el('tbody'), byLine = {}, max = 0;
      table.appendChild(el('thead')).appendChild((function () {
        var tr = el('tr');
        ['line', 'flat', 'cum', ''].forEach(function (h, k) { tr.appendChild(el('th', {'class': k === 3 ? 'name' : ''}, h)); });
        return tr;
      })());
      a.lines.forEach(function (l) { byLine[l[0]] = l; max = Math.max(max, Math.abs(l[2])); });
      var shown = [];
      for (var k = 0; k < a.text.length; k++) shown.push(a.lo + k);
      a.lines.forEach(function (l) { if (!a.text.length || l[0] < a.lo || l[0] >= a.lo + a.text.length) shown.push(l[0]); });
      shown.sort(function (x, y) { return x - y; });
      shown.forEach(function (ln) {
        var l = byLine[ln], text = ln >= a.lo && ln < a.lo + a.text.length ? a.text[ln - a.lo] : l ? l[3] : '';
        var tr = el('tr', {'data-line': ln, 'data-flat': l ? l[1] : 0, 'data-cum': l ? l[2] : 0, 'class': 'ln'});
        tr.appendChild(el('td', null, String(ln)));
        tr.appendChild(el('td', null, l && l[1] ? fmt(l[1]) : '.'));
        tr.appendChild(el('td', null, l && l[2] ? fmt(l[2]) : '.'));
        tr.appendChild(el('td', {'class': 'code'}, text));
        if (l) heat(tr, l[2], max);
        tb.appendChild(tr);
        if (!l) return;
        l[4].forEach(function (r) {
          var ir = el('tr', {'class': 'inl', 'data-depth': r[0], 'data-fn': r[1], 'data-line': r[3], 'data-flat': r[4], 'data-cum': r[5]});
          ir.appendChild(el('td', null, ''));
          ir.appendChild(el('td', null, r[4] ? fmt(r[4]) : '.'));
          ir.appendChild(el('td', null, r[5] ? fmt(r[5]) : '.'));
          ir.appendChild(el('td', {'class': 'code'}, new Array(r[0] + 1).join('\u2502 ') + r[2] + ':' + r[3] + ' ' + r[1] + ' \u2014 ' + r[6].trim()));
          tb.appendChild(ir);
        });
      });
      table.appendChild(tb);
      srcv.appendChild(table);
    });
  }
  var dv = section('disasm');
  function drawDisasm() {
    dv.textContent = '';
    var list = state.fn ? annOf(state.fn) : [];
    if (!list.length) {
      dv.appendChild(el('p', {'class': 'note'}, state.fn ? state.fn + ' is not among the annotated functions.' : 'Select a function.'));
      return;
    }
    list.forEach(function (a) {
      dv.appendChild(el('h2', null, a.n + (a.sym ? ' \u2014 ' + a.sym + ' in ' + a.obj : '')));
      if (!a.insns) { dv.appendChild(el('p', {'class': 'missing'}, 'No disassembly: ' + a.nod)); return; }
      dv.appendChild(el('p', {'class': 'note', 'data-flat': a.cflat, 'data-cum': a.ccum},
        'flat ' + fmt(a.cflat) + ', cum ' + fmt(a.ccum) + ' of the code; \u25b6 marks where a branch of the function lands; each instruction\u2019s inline chain is innermost first.'));
      var table = el('table', {'class': 'asm'}), tb = el('tbody'), rows = {}, max = 0;
      a.insns.forEach(function (x) { max = Math.max(max, Math.abs(x[3])); });
      var tr0 = el('tr');
      ['flat', 'cum', '', 'address', 'instruction', 'source'].forEach(function (h, k) { tr0.appendChild(el('th', {'class': k >= 4 ? 'name' : ''}, h)); });
      table.appendChild(el('thead')).appendChild(tr0);
      a.insns.forEach(function (x) {
        var tr = el('tr', {'data-addr': x[0], 'data-flat': x[2], 'data-cum': x[3], 'class': x[4] & 1 ? 'tgt' : ''});
        tr.appendChild(el('td', null, x[2] ? fmt(x[2]) : '.'));
        tr.appendChild(el('td', null, x[3] ? fmt(x[3]) : '.'));
        tr.appendChild(el('td', {'class': 'mark'}, x[4] & 1 ? '\u25b6' : ''));
        tr.appendChild(el('td', null, x[0] + ':'));
        var code = el('td', {'class': 'code'});
        var t = x[1], at = x[5] ? t.indexOf(x[5]) : -1;
        if (at >= 0) {
          code.appendChild(document.createTextNode(t.slice(0, at)));
          var link = el('a', {'class': 'jump', 'data-target': x[5]}, x[5]);
          link.addEventListener('click', function () {
            var r = rows[x[5]];
            if (r) { r.scrollIntoView({block: 'center'}); r.classList.add('flash'); setTimeout(function () { r.classList.remove('flash'); }, 800); }
          });
          code.appendChild(link);
          code.appendChild(document.createTextNode(t.slice(at + x[5].length)));
        } else code.textContent = t;
        tr.appendChild(code);
        tr.appendChild(el('td', {'class': 'chain'}, D.chains[x[6]]));
        heat(tr, x[3], max);
        rows[x[0]] = tr;
        tb.appendChild(tr);
      });
      table.appendChild(tb);
      dv.appendChild(table);
    });
  }
  var iv = section('info');
  (function drawInfo() {
    iv.appendChild(el('h2', null, 'Annotated functions'));
    var ul = el('ul');
    D.ann.forEach(function (a) {
      var li = el('li'), link = el('a', {'class': 'jump'}, a.n);
      link.addEventListener('click', function () { select(a.n); show('source'); });
      li.appendChild(link);
      li.appendChild(document.createTextNode(' \u2014 flat ' + fmt(a.flat) + ', cum ' + fmt(a.cum) + (a.insns ? '' : ' (no disassembly: ' + a.nod + ')')));
      ul.appendChild(li);
    });
    iv.appendChild(ul);
    var miss = D.sources.filter(function (s) { return s.missing; });
    iv.appendChild(el('h2', null, 'Sources not found (' + miss.length + ' of ' + D.sources.length + ')'));
    var ul2 = el('ul', {id: 'sp-missing'});
    miss.forEach(function (s) { ul2.appendChild(el('li', {'class': 'missing', 'data-path': s.path}, s.path + ': ' + s.missing)); });
    iv.appendChild(ul2);
    if (!miss.length) iv.appendChild(el('p', {'class': 'note'}, 'Every source file was read.'));
  })();

  function select(name) {
    state.fn = name;
    selBox.textContent = '';
    if (!name) return;
    var row = functionTotals().filter(function (r) { return r.name === name; })[0];
    selBox.appendChild(document.createTextNode('Selected: ' + name + (row ? ' \u2014 flat ' + fmt(row.flat) + ', cum ' + fmt(row.cum) + ' ' : ' ')));
    [['sandwich', 'callers / callees'], ['source', 'source'], ['disasm', 'disassembly']].forEach(function (v) {
      var b = el('button', {type: 'button', id: 'sp-open-' + v[0]}, v[1]);
      b.addEventListener('click', function () { show(v[0]); });
      selBox.appendChild(b);
    });
    var has = annOf(name).length > 0;
    tabs.source.disabled = tabs.disasm.disabled = false;
    if (!has) selBox.appendChild(el('span', {'class': 'note'}, ' (not annotated)'));
  }
  function show(view) {
    state.view = view;
    for (var k in tabs) tabs[k].className = k === view ? 'on' : '';
    for (var v in views) views[v].className = 'view';
    views[view].className = 'view on';
    document.documentElement.setAttribute('data-view', view);
    if (view === 'flame' || view === 'icicle') { graph.inv = view === 'icicle'; graph.draw(); }
    else if (view === 'top') drawTop();
    else if (view === 'sandwich') drawSandwich();
    else if (view === 'source') drawSource();
    else if (view === 'disasm') drawDisasm();
  }

  // #view=..&fn=..&zoom=..&search=..
  var frag = {};
  (location.hash || '').replace(/^#/, '').split('&').forEach(function (kv) {
    var i = kv.indexOf('=');
    if (i > 0) frag[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
  });
  show(frag.view || 'flame');
  if (frag.zoom) {
    for (var i = 1; i < T.n; i++) if (nameOf(T, i) === frag.zoom) { zoomTo(i); break; }
  }
  if (frag.search) { search.value = frag.search; doSearch(frag.search); }
  if (frag.fn) { select(frag.fn); show(frag.view || 'source'); }
  window.addEventListener('resize', function () { if (state.view === 'flame' || state.view === 'icicle') graph.draw(); });

  window.symprof = {
    data: D,
    state: function () { return {view: state.view, fn: state.fn, zoom: graph.zoom ? nameOf(T, graph.zoom) : '', search: state.search}; },
    show: show, select: select, search: function (re) { search.value = re; doSearch(re); },
    frameBox: function (name, which) {
      var g = which ? state.sw && state.sw[which] : graph;
      return g ? g.box(name) : null;
    },
    totals: functionTotals
  };
  document.documentElement.setAttribute('data-ready', '1');
})();
