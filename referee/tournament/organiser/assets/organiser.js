// organiser.js: the organiser's page. It reads /api/state every two
// seconds and sends each of the organiser's actions as one tournament
// input to /api/do (docs/venue.md). Everything from the server is drawn
// as text, never as markup.
(function () {
  'use strict';
  var login = null; // {user, password}
  try { login = JSON.parse(sessionStorage.getItem('liarsd-organiser') || 'null'); } catch (e) { login = null; }
  // open: the tables whose details are shown, with what the organiser
  // typed there (kept when the page is drawn again).
  var state = null, open = {}, drawn = {};

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = String(text);
    return n;
  }

  function headers() {
    var h = { 'Content-Type': 'application/json' };
    if (login) h.Authorization = 'Basic ' + btoa(unescape(encodeURIComponent(login.user + ':' + login.password)));
    return h;
  }

  function flash(text, bad) {
    var f = $('flash');
    f.hidden = false;
    f.textContent = text;
    f.className = bad ? 'bad' : 'good';
    clearTimeout(flash.timer);
    flash.timer = setTimeout(function () { f.hidden = true; }, bad ? 12000 : 5000);
  }

  // send posts one input and says what came of it.
  function send(input, done) {
    return fetch('api/do', { method: 'POST', headers: headers(), body: JSON.stringify(input) })
      .then(function (r) {
        if (r.status === 401) { showLogin(); throw new Error('log in first'); }
        return r.json();
      })
      .then(function (rep) {
        flash(rep.ok ? rep.message : (rep.reason + ': ' + rep.message), !rep.ok);
        if (rep.ok && done) done();
        refresh();
        return rep;
      })
      .catch(function (e) { flash(String(e.message || e), true); });
  }

  function showLogin() {
    $('login').hidden = false;
    $('main').hidden = true;
  }

  function refresh() {
    return fetch('api/state', { headers: headers(), cache: 'no-store' }).then(function (r) {
      if (r.status === 401 || r.status === 403) {
        return r.json().then(function (e) { showLogin(); if (login) flash(e.message, true); });
      }
      return r.json().then(function (s) {
        $('login').hidden = true;
        $('main').hidden = false;
        state = s;
        render();
      });
    }).catch(function () { $('status').textContent = 'no answer from the server'; });
  }

  function render() {
    var v = state.view;
    $('title').textContent = v.title || v.name;
    document.title = (v.title || v.name) + ' – organiser';
    $('status').textContent = v.status;
    renderRound(v);
    renderPlayers();
    renderStandings();
    renderSetup(v);
  }

  function renderRound(v) {
    var r = v.round;
    $('round-title').textContent = r ? 'Round ' + r.number + (r.final ? ' (final table)' : '') + (v.format === 'swiss' && v.rounds ? ' of ' + v.rounds : '') : 'No round yet';
    var meta = [];
    if (r) meta.push(r.done + ' of ' + r.total + ' tables have a result');
    meta.push(v.active + ' players' + (v.players !== v.active ? ' (' + (v.players - v.active) + ' dropped)' : ''));
    if (v.time_limit) meta.push('time limit ' + v.time_limit);
    $('round-meta').textContent = meta.join(' \u00b7 ');
    $('round-bar').style.width = r && r.total ? Math.round(100 * r.done / r.total) + '%' : '0';
    var btn = $('start-round');
    btn.disabled = !v.setup || v.finished || (r && !r.complete);
    btn.textContent = v.finished ? 'The tournament is over' : !r ? 'Start round 1' : r.complete ? 'Start round ' + (r.number + 1) : 'Round ' + r.number + ' is being played';
    var pl = $('problem-list');
    pl.textContent = '';
    (v.problems || []).concat(v.notes || []).forEach(function (p) { pl.appendChild(el('li', null, p)); });
    $('problems').hidden = !pl.childNodes.length;
    var list = $('games');
    if (!r) { list.textContent = ''; return; }
    var filter = $('table-filter').value, q = $('table-search').value.trim().toLowerCase();
    var shown = 0, items = [];
    r.games.forEach(function (g) {
      var done = !!g.result;
      if (filter === 'open' && done) return;
      if (filter === 'done' && !done) return;
      if (q && g.table.toLowerCase().indexOf(q) < 0 && !g.seats.some(function (s) { return s.toLowerCase().indexOf(q) >= 0; })) return;
      if (++shown > 300) return;
      // A table's item is made again only when its game changed, so that
      // what the organiser is about to tap does not move or go.
      var key = r.number + '|' + (open[g.table] ? 'open' : '') + '|' + JSON.stringify(g);
      var c = drawn[g.table];
      if (!c || c.key !== key) drawn[g.table] = c = { key: key, li: gameItem(r, g) };
      items.push(c.li);
    });
    if (!shown) items.push(el('li', 'none', filter === 'open' ? 'every table has a result' : 'no table'));
    var same = list.childNodes.length === items.length && items.every(function (li, i) { return list.childNodes[i] === li; });
    if (!same) {
      list.textContent = '';
      items.forEach(function (li) { list.appendChild(li); });
    }
  }

  // armed: a button that does something hard to undo asks for a second
  // tap (no dialog: it would stop the page on a phone).
  function armed(button, again, action) {
    var label = button.textContent;
    button.addEventListener('click', function () {
      if (!button.classList.contains('armed')) {
        button.classList.add('armed');
        button.textContent = again;
        setTimeout(function () { button.classList.remove('armed'); button.textContent = label; }, 4000);
        return;
      }
      action();
    });
  }

  function place(result) {
    var out = [], ahead = 0;
    result.order.forEach(function (grp) {
      out.push((ahead + 1) + '. ' + grp.join(' = '));
      ahead += grp.length;
    });
    return out.join('  ');
  }

  function gameItem(r, g) {
    var li = el('li', 'game st-' + g.status.replace(/ /g, '-'));
    li.setAttribute('data-table', g.table);
    var head = el('button', 'game-head');
    head.type = 'button';
    head.appendChild(el('span', 'gt', g.table));
    head.appendChild(el('span', 'gs', g.status + (g.hand ? ' \u00b7 hand ' + g.hand : '')));
    head.addEventListener('click', function () {
      if (open[g.table]) delete open[g.table]; else open[g.table] = {};
      delete drawn[g.table];
      renderRound(state.view);
    });
    li.appendChild(head);
    var seats = el('div', 'seats');
    if (g.result) seats.textContent = place(g.result) + (g.result.source !== 'events' ? ' (' + g.result.source + (g.result.reason ? ': ' + g.result.reason : '') + ')' : '');
    else seats.textContent = g.seats.map(function (s) {
      var d = g.dice && g.dice[s] !== undefined ? ' ' + g.dice[s] : '';
      return ((g.out || []).indexOf(s) >= 0 ? '\u2715 ' : '') + s + d;
    }).join(', ');
    li.appendChild(seats);
    if (g.problem) li.appendChild(el('div', 'problem', g.problem));
    if (open[g.table]) li.appendChild(details(r, g));
    return li;
  }

  // details: the override form (the order, best first, and a reason), a
  // restart and a time call.
  function details(r, g) {
    var box = el('form', 'details');
    box.appendChild(el('p', 'meta', 'Override: the players in finishing order, best first, and why.'));
    var typed = open[g.table];
    var order = el('input');
    order.name = 'order';
    order.value = typed.order !== undefined ? typed.order : (g.result ? [].concat.apply([], g.result.order) : g.seats).join(', ');
    order.setAttribute('aria-label', 'finishing order');
    box.appendChild(order);
    var reason = el('input');
    reason.name = 'reason';
    reason.placeholder = 'reason (shown with the result)';
    reason.setAttribute('aria-label', 'reason');
    if (typed.reason !== undefined) reason.value = typed.reason;
    box.appendChild(reason);
    box.addEventListener('input', function () { typed.order = order.value; typed.reason = reason.value; });
    var ov = el('button', 'primary', 'Override the result');
    ov.type = 'submit';
    box.appendChild(ov);
    box.addEventListener('submit', function (e) {
      e.preventDefault();
      send({ type: 'override', round: r.number, table: g.table, reason: reason.value,
        order: order.value.split(',').map(function (s) { return s.trim(); }).filter(Boolean) }, function () { delete open[g.table]; });
    });
    if (!g.result) {
      var row = el('div', 'row');
      var rs = el('button', null, 'Restart the game');
      rs.type = 'button';
      armed(rs, 'Tap again: a new game', function () {
        send({ type: 'restart_game', round: r.number, table: g.table, reason: reason.value || 'restarted by the organiser' });
      });
      var ct = el('button', null, 'Call time');
      ct.type = 'button';
      armed(ct, 'Tap again: dice decide', function () {
        send({ type: 'call_time', round: r.number, table: g.table, reason: reason.value || 'time called by the organiser' });
      });
      row.appendChild(rs);
      row.appendChild(ct);
      box.appendChild(row);
    }
    return box;
  }

  function renderPlayers() {
    var st = state.standings.standings || [], q = $('player-search').value.trim().toLowerCase();
    $('player-count').textContent = st.length + (st.length === 1 ? ' player' : ' players');
    var list = $('players');
    list.textContent = '';
    var byName = st.slice().sort(function (a, b) { return a.player.localeCompare(b.player); });
    var shown = 0;
    byName.forEach(function (s) {
      if (q && s.player.toLowerCase().indexOf(q) < 0) return;
      if (++shown > 200) return;
      var li = el('li', s.dropped ? 'dropped' : '');
      li.appendChild(el('span', 'pn', s.player));
      li.appendChild(el('span', 'pm', (s.computer ? 'computer (' + s.computer + ')' : '') + (s.dropped ? ' dropped' : '') + (s.out ? ' out' : '')));
      if (!s.dropped) {
        var b = el('button', 'small', 'Drop');
        b.type = 'button';
        armed(b, 'Tap again to drop', function () { send({ type: 'drop', player: s.player, reason: 'dropped by the organiser' }); });
        li.appendChild(b);
      }
      list.appendChild(li);
    });
    if (shown > 200) list.appendChild(el('li', 'none', (shown - 200) + ' more: search for a name'));
  }

  function renderStandings() {
    var s = state.standings, q = $('standing-search').value.trim().toLowerCase();
    $('tie-breaks').textContent = s.tie_breaks ? 'Ordered by ' + s.tie_breaks + '.' : '';
    var body = $('standings');
    body.textContent = '';
    var shown = 0;
    (s.standings || []).forEach(function (p) {
      if (q && p.player.toLowerCase().indexOf(q) < 0) return;
      if (++shown > 100) return;
      var tr = el('tr', p.dropped || p.out ? 'dim' : '');
      [p.rank, p.player, p.points, p.wins, p.opponents].forEach(function (c) { tr.appendChild(el('td', null, c)); });
      body.appendChild(tr);
    });
  }

  function renderSetup(v) {
    var f = $('setup'), started = !!v.round;
    $('setup-fixed').hidden = !started;
    Array.prototype.forEach.call(f.elements, function (e) { e.disabled = started; });
    var rules = $('rules');
    if (!rules.options.length) {
      state.presets.forEach(function (p) { var o = el('option', null, p); o.value = p; rules.appendChild(o); });
      rules.value = 'common-hand';
      $('levels').textContent = state.levels.join(', ');
    }
    if (v.setup && !renderSetup.filled) {
      renderSetup.filled = true;
      var s = v.setup, E = f.elements;
      E.title.value = s.title || '';
      E.format.value = s.format;
      rules.value = s.rules;
      E.seats.value = s.seats;
      if (s.rounds) E.rounds.value = s.rounds;
      if (s.advance) E.advance.value = s.advance;
      E.tables.value = s.tables.join(', ');
      E.time_limit.value = s.time_limit && s.time_limit !== '0s' ? s.time_limit : '';
      E.options.value = s.options ? JSON.stringify(s.options) : '';
      formatChanged();
    }
  }

  // tables reads "t001-t200, bar-1": ranges of numbered ids and single ids.
  function tables(text) {
    var out = [];
    text.split(/[\s,]+/).filter(Boolean).forEach(function (item) {
      var m = /^(.*?)(\d+)-(?:\1)?(\d+)$/.exec(item);
      if (!m) { out.push(item); return; }
      var a = parseInt(m[2], 10), b = parseInt(m[3], 10), w = m[2].length;
      if (b < a || b - a > 5000) { out.push(item); return; }
      for (var i = a; i <= b; i++) {
        var n = String(i);
        while (n.length < w) n = '0' + n;
        out.push(m[1] + n);
      }
    });
    return out;
  }

  function formatChanged() {
    var ko = $('setup').elements.format.value === 'knockout';
    document.querySelector('label.swiss').hidden = ko;
    document.querySelector('label.knockout').hidden = !ko;
  }

  $('setup').elements.format.addEventListener('change', formatChanged);
  $('setup').addEventListener('submit', function (e) {
    e.preventDefault();
    var f = e.target.elements, s = { title: f.title.value.trim(), format: f.format.value, rules: f.rules.value, seats: +f.seats.value, tables: tables(f.tables.value) };
    if (s.format === 'swiss') s.rounds = +f.rounds.value; else s.advance = +f.advance.value;
    if (f.time_limit.value.trim()) s.time_limit = f.time_limit.value.trim();
    if (f.options.value.trim()) {
      try { s.options = JSON.parse(f.options.value); } catch (err) { flash('options: not JSON (' + err.message + ')', true); return; }
    }
    send({ type: 'setup', setup: s });
  });

  $('register').addEventListener('submit', function (e) {
    e.preventDefault();
    var players = e.target.elements.players.value.split('\n').map(function (l) { return l.trim(); }).filter(Boolean).map(function (l) {
      var i = l.lastIndexOf(','), p = { name: l };
      if (i > 0 && state.levels.indexOf(l.slice(i + 1).trim()) >= 0) { p.name = l.slice(0, i).trim(); p.computer = l.slice(i + 1).trim(); }
      return p;
    });
    if (!players.length) { flash('name one player or more, one a line', true); return; }
    send({ type: 'register', players: players }, function () { e.target.elements.players.value = ''; });
  });

  $('start-round').addEventListener('click', function () {
    send({ type: 'start_round' });
  });

  $('login').addEventListener('submit', function (e) {
    e.preventDefault();
    login = { user: e.target.elements.user.value, password: e.target.elements.password.value };
    sessionStorage.setItem('liarsd-organiser', JSON.stringify(login));
    refresh();
  });

  Array.prototype.forEach.call(document.querySelectorAll('nav.tabs button'), function (b) {
    b.addEventListener('click', function () {
      Array.prototype.forEach.call(document.querySelectorAll('nav.tabs button'), function (o) { o.classList.toggle('on', o === b); });
      Array.prototype.forEach.call(document.querySelectorAll('section.tab'), function (s) { s.hidden = s.id !== 'tab-' + b.getAttribute('data-tab'); });
    });
  });

  Array.prototype.forEach.call(document.querySelectorAll('[data-export]'), function (b) {
    b.addEventListener('click', function () {
      var name = b.getAttribute('data-export');
      fetch('api/' + name, { headers: headers() }).then(function (r) {
        if (!r.ok) throw new Error('HTTP ' + r.status);
        return r.blob();
      }).then(function (blob) {
        var a = el('a');
        a.href = URL.createObjectURL(blob);
        a.download = (state.view.name || 'tournament') + '-' + name;
        document.body.appendChild(a);
        a.click();
        a.remove();
      }).catch(function (e) { flash('export: ' + e.message, true); });
    });
  });

  ['table-filter', 'table-search'].forEach(function (id) { $(id).addEventListener('input', function () { if (state) renderRound(state.view); }); });
  $('player-search').addEventListener('input', function () { if (state) renderPlayers(); });
  $('standing-search').addEventListener('input', function () { if (state) renderStandings(); });

  refresh();
  setInterval(function () {
    // Not while the organiser types in a table's details.
    var a = document.activeElement;
    if (a && a.closest && a.closest('.details')) return;
    refresh();
  }, 2000);
})();
