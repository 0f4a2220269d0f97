// tournament.js: a tournament on a TV (docs/venue.md). It follows the
// tournament's retained topics (<prefix>/tournament/<name>/state and
// .../standings, published by liarsd tournament) for the round, its
// seating and results, and every table's own state (<prefix>/+/state) for
// the hand, whose turn it is and the dice each seat has, live. A hall's
// 200 tables do not fit one screen: the page shows them a page at a time
// (?per=30 tables, ?cols=6) and turns the page every ?cycle=12 seconds;
// ?group=2/4 makes this screen show the second quarter of the tables only,
// so that four TVs share them. The standings beside show the leaders and
// turn their own pages of the rest. ?name= picks a tournament when the
// broker has several. Everything from the broker is drawn as text.
(function () {
  'use strict';
  var L = window.LiarsLive;
  var q = new URLSearchParams(location.search);
  function intParam(name, def, lo, hi) {
    var v = parseInt(q.get(name), 10);
    return isFinite(v) && v >= lo && v <= hi ? v : def;
  }
  var PER = intParam('per', 30, 1, 400), COLS = intParam('cols', 6, 1, 20), CYCLE = intParam('cycle', 12, 2, 600);
  var LEADERS = intParam('leaders', 10, 1, 50), MORE = intParam('more', 14, 0, 100);
  var group = /^(\d+)\/(\d+)$/.exec(q.get('group') || ''), GROUP = 0, GROUPS = 1;
  if (group && +group[2] >= 1 && +group[1] >= 1 && +group[1] <= +group[2]) { GROUP = +group[1] - 1; GROUPS = +group[2]; }
  var wanted = q.get('name');
  var prefix = 'liarsdice', name = null;
  var tour = null, standings = null, tables = {}, tiles = {}, page = 0, morePage = 0;

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = String(text);
    return n;
  }
  function isObj(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }
  function str(v) { return typeof v === 'string' ? v : ''; }
  function int(v) { return typeof v === 'number' && isFinite(v) ? Math.floor(v) : 0; }
  function names(v) { return Array.isArray(v) ? v.filter(function (x) { return typeof x === 'string'; }).slice(0, 64) : []; }

  // cleanTournament keeps what the page draws of the tournament's state.
  function cleanTournament(v) {
    if (!isObj(v)) return null;
    var t = { name: str(v.name), title: str(v.title), format: str(v.format), rounds: int(v.rounds), status: str(v.status),
      finished: v.finished === true, problems: names(v.problems).slice(0, 20), round: null };
    if (isObj(v.round)) {
      var r = v.round;
      t.round = { number: int(r.number), started: Date.parse(str(r.started)) || 0, final: r.final === true,
        done: int(r.done), total: int(r.total), games: [] };
      (Array.isArray(r.games) ? r.games : []).slice(0, 5000).forEach(function (g) {
        if (!isObj(g) || !L.validTable(g.table)) return;
        var game = { table: g.table, seats: names(g.seats), status: str(g.status), hand: int(g.hand), dice: {}, out: names(g.out), result: null };
        if (isObj(g.dice)) Object.keys(g.dice).slice(0, 64).forEach(function (k) { game.dice[k] = int(g.dice[k]); });
        if (isObj(g.result) && Array.isArray(g.result.order)) {
          game.result = { order: g.result.order.filter(Array.isArray).map(names).slice(0, 64), source: str(g.result.source) };
        }
        t.round.games.push(game);
      });
    }
    return t;
  }

  function cleanStandings(v) {
    if (!isObj(v) || !Array.isArray(v.standings)) return null;
    return {
      tie: str(v.tie_breaks),
      rows: v.standings.slice(0, 100000).filter(isObj).map(function (s) {
        return { rank: int(s.rank), player: str(s.player), points: int(s.points), wins: int(s.wins), dropped: s.dropped === true, out: s.out === true };
      })
    };
  }

  // games returns this screen's games: its group of the round's tables.
  function games() {
    if (!tour || !tour.round) return [];
    var all = tour.round.games, size = Math.ceil(all.length / GROUPS);
    return all.slice(GROUP * size, (GROUP + 1) * size);
  }

  function pages() { return Math.max(1, Math.ceil(games().length / PER)); }

  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function clock() {
    if (!tour || !tour.round || !tour.round.started || tour.finished) { $('clock').textContent = ''; return; }
    var s = Math.max(0, Math.floor((Date.now() - tour.round.started) / 1000));
    $('clock').textContent = (s >= 3600 ? Math.floor(s / 3600) + ':' : '') + pad(Math.floor(s / 60) % 60) + ':' + pad(s % 60);
  }

  function renderHeader() {
    $('title').textContent = tour ? (tour.title || tour.name) : 'Tournament';
    document.title = (tour ? (tour.title || tour.name) : 'Tournament') + ' \u2013 Liar\u2019s Dice';
    var r = tour && tour.round;
    $('round').textContent = !tour ? 'waiting for the tournament' : tour.finished ? 'final standings' :
      r ? (r.final ? 'final table' : 'round ' + r.number + (tour.format === 'swiss' && tour.rounds ? ' of ' + tour.rounds : '')) : 'registration';
    $('progress').textContent = r ? r.done + ' of ' + r.total + (r.total === 1 ? ' table' : ' tables') + ' finished' : '';
    var p = $('problems');
    p.hidden = !tour || !tour.problems.length;
    p.textContent = tour && tour.problems.length ? tour.problems.length + (tour.problems.length === 1 ? ' table needs' : ' tables need') + ' the organiser: ' + tour.problems[0] : '';
    clock();
  }

  // live returns the table's live state when it is this game's (the same
  // seats), else null.
  function live(g) {
    var t = tables[g.table], st = t && t.state;
    if (!st || st.seats.length !== g.seats.length) return null;
    for (var i = 0; i < st.seats.length; i++) if (g.seats.indexOf(st.seats[i].name) < 0) return null;
    return st;
  }

  var STATUS = { waiting: 'waiting', playing: 'playing', finished: 'finished', time: 'time', overridden: 'organiser',
    refused: 'see the organiser', abandoned: 'see the organiser', 'no result': 'see the organiser' };

  function fillTile(tile, g) {
    var st = g.result ? null : live(g), t = tables[g.table];
    tile.className = 'tile s-' + g.status.replace(/ /g, '-') + (t && t.status === 'offline' ? ' offline' : '');
    tile.textContent = '';
    var head = el('div', 'head');
    head.appendChild(el('span', 'id', g.table));
    var what = STATUS[g.status] || g.status;
    if (!g.result && (st ? st.hand : g.hand)) what = 'hand ' + (st ? st.hand : g.hand);
    if (t && t.status === 'offline') what = 'offline';
    head.appendChild(el('span', 'st', what));
    tile.appendChild(head);
    var ul = el('ul');
    if (g.result) {
      var ahead = 0;
      g.result.order.forEach(function (grp) {
        grp.forEach(function (n) {
          var li = el('li', ahead === 0 ? 'win' : '');
          li.appendChild(el('span', 'n', (ahead + 1) + '. ' + n));
          ul.appendChild(li);
        });
        ahead += grp.length;
      });
    } else {
      g.seats.forEach(function (n) {
        var seat = st ? st.seats.filter(function (s) { return s.name === n; })[0] : null;
        var dice = seat ? seat.dice : g.dice[n], out = seat ? seat.out || seat.left : g.out.indexOf(n) >= 0;
        var li = el('li', (out ? 'out' : '') + (st && st.turn === n ? ' turn' : ''));
        li.appendChild(el('span', 'n', n));
        li.appendChild(el('span', 'd', out ? '' : (dice === undefined ? '' : dice)));
        ul.appendChild(li);
      });
    }
    tile.appendChild(ul);
    if (st && st.seq !== null) tile.setAttribute('data-seq', String(st.seq));
  }

  function renderPage() {
    var box = $('tables'), list = games(), n = pages();
    if (page >= n) page = 0;
    box.style.setProperty('--cols', String(COLS));
    box.style.gridTemplateRows = 'repeat(' + Math.ceil(PER / COLS) + ', minmax(0, 1fr))';
    box.textContent = '';
    tiles = {};
    var shown = list.slice(page * PER, (page + 1) * PER);
    shown.forEach(function (g) {
      var tile = el('div', 'tile');
      tile.setAttribute('data-table', g.table);
      try { fillTile(tile, g); } catch (e) { if (window.console) console.error('tournament:', e); }
      tiles[g.table] = { el: tile, game: g };
      box.appendChild(tile);
    });
    if (!list.length) box.appendChild(el('p', 'none', tour ? (tour.round ? 'no tables' : 'the first round has not started') : 'no tournament on this broker yet'));
    $('page').textContent = list.length ? 'tables ' + shown[0].table + ' \u2013 ' + shown[shown.length - 1].table +
      ' \u00b7 ' + (page * PER + 1) + '\u2013' + (page * PER + shown.length) + ' of ' + list.length +
      (GROUPS > 1 ? ' (group ' + (GROUP + 1) + ' of ' + GROUPS + ')' : '') : '';
    var dots = $('page-dots');
    dots.textContent = '';
    if (n > 1) for (var i = 0; i < n; i++) dots.appendChild(el('span', i === page ? 'on' : ''));
  }

  function standingRow(s) {
    var li = el('li');
    li.appendChild(el('span', 'r', s.rank));
    li.appendChild(el('span', 'p', s.player + (s.dropped ? ' (dropped)' : '')));
    li.appendChild(el('span', 'pts', s.points));
    li.appendChild(el('span', 'w', s.wins + (s.wins === 1 ? ' win' : ' wins')));
    return li;
  }

  function renderStandings() {
    var lead = $('leaders'), more = $('more');
    lead.textContent = '';
    more.textContent = '';
    if (!standings) return;
    standings.rows.slice(0, LEADERS).forEach(function (s) { lead.appendChild(standingRow(s)); });
    var rest = standings.rows.slice(LEADERS), pagesMore = MORE ? Math.ceil(rest.length / MORE) : 0;
    if (morePage >= pagesMore) morePage = 0;
    var part = rest.slice(morePage * MORE, (morePage + 1) * MORE);
    $('more-title').textContent = part.length ? 'ranks ' + part[0].rank + '\u2013' + part[part.length - 1].rank + ' of ' + standings.rows.length : '';
    part.forEach(function (s) { more.appendChild(standingRow(s)); });
    $('tie-breaks').textContent = standings.tie ? 'Ties: ' + standings.tie + '.' : '';
  }

  function onMessage(topic, text) {
    var parts = topic.split('/');
    if (parts[0] !== prefix) return;
    if (parts.length === 4 && parts[1] === 'tournament') {
      if (wanted ? parts[2] !== wanted : (name && parts[2] !== name)) return;
      var v;
      try { v = JSON.parse(text); } catch (e) { return; }
      name = parts[2];
      if (parts[3] === 'state') {
        tour = cleanTournament(v);
        renderHeader();
        renderPage();
      } else if (parts[3] === 'standings') {
        standings = cleanStandings(v);
        renderStandings();
      }
      return;
    }
    if (parts.length !== 3 || !L.validTable(parts[1])) return;
    var id = parts[1], t = tables[id] || (tables[id] = { state: null, status: '' });
    if (parts[2] === 'status') t.status = text.trim();
    else if (parts[2] === 'state') {
      var s;
      try { s = JSON.parse(text); } catch (e) { return; }
      t.state = L.cleanState(s);
    } else return;
    var tile = tiles[id];
    if (tile) fillTile(tile.el, tile.game);
  }

  setInterval(clock, 1000);
  setInterval(function () {
    if (pages() > 1) { page = (page + 1) % pages(); renderPage(); }
    morePage++;
    renderStandings();
  }, CYCLE * 1000);

  L.loadConfig().then(function (cfg) {
    prefix = q.get('prefix') || cfg.prefix;
    renderHeader();
    renderPage();
    L.connect(L.brokerURL(cfg), [prefix + '/tournament/+/state', prefix + '/tournament/+/standings', prefix + '/+/state', prefix + '/+/status'],
      onMessage, function (s) { L.showConn($('conn'), s); });
  }).catch(function (e) { $('conn').textContent = String(e); });
})();
