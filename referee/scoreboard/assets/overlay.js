// overlay.js: the stream overlay, one table in a band along the bottom of
// a transparent page for OBS's browser source: the bid and its chance,
// the seats (dice counts; faces only of dice shown at the table), and the
// last result or the winner. The same topics as the table page.
(function () {
  'use strict';
  var D = window.LiarsDraw, O = window.LiarsOdds, L = window.LiarsLive, W = window.LiarsWords, el = D.el;
  var S = { cfg: null, table: '', state: null, status: '', look: null, result: null, winner: null, reveal: null };
  var $ = function (id) { return document.getElementById(id); };

  function star() { return !!(S.state && S.state.star_die); }
  // st0 is the dice's rules as the state says them (a page without a state
  // yet counts plain six-sided dice).
  function st0() { var st = S.state || {}; return { sides: st.sides || 6, star_die: !!st.star_die, wild: !!st.wild }; }

  function render() {
    var st = S.state, band = $('band');
    band.hidden = !st || !st.rules;
    band.classList.toggle('offline', S.status === 'offline');
    if (band.hidden) return;
    $('ov-table').textContent = S.table + ' \u00b7 ' + st.rules;
    var status = W.status(st, S.look), gh = W.gameWords(st, null);
    $('ov-state').textContent = (gh ? gh + ' \u00b7 ' : '') + (S.status === 'offline' ? 'table offline' : status ? status.text : W.phase(st));

    var bid = $('ov-bid'), chance = $('ov-chance');
    bid.textContent = ''; chance.textContent = '';
    bid.removeAttribute('data-quantity'); bid.removeAttribute('data-face');
    if (st.bid) {
      bid.setAttribute('data-quantity', String(st.bid.quantity));
      bid.setAttribute('data-face', String(st.bid.face));
      bid.appendChild(el('span', 'q', st.bid.quantity + ' \u00d7'));
      bid.appendChild(D.die(st.bid.face, { star: star() }));
      bid.appendChild(el('span', 'who', st.bid.seat));
      var c = O.bidChance(st);
      if (c) chance.textContent = O.percent(c.chance) + ' chance it is true';
    } else {
      bid.appendChild(el('span', 'none', st.phase === 'bidding' && st.turn ? st.turn + ' opens the bidding' : 'no bid'));
    }

    var seats = $('ov-seats');
    seats.textContent = '';
    (st.seats || []).forEach(function (s) {
      var card = el('div', 'ov-seat' + (st.turn === s.name ? ' turn' : '') + (s.out || s.left ? ' out' : ''));
      card.setAttribute('data-seat', s.name);
      card.setAttribute('data-dice', String(s.dice));
      card.appendChild(el('span', 'name', s.name));
      card.appendChild(el('span', 'count', s.dice));
      var dice = el('span', 'dice'), shown = s.shown || [];
      shown.forEach(function (f) { dice.appendChild(D.die(f, { star: star(), shown: true })); });
      for (var i = shown.length; i < s.dice; i++) dice.appendChild(D.die(0));
      card.appendChild(dice);
      if (s.chips !== undefined && s.chips !== null) card.appendChild(el('span', 'chips', ' \u00b7 ' + s.chips + ' chips'));
      if (st.wins && st.wins[s.name] !== undefined) card.appendChild(el('span', 'wins', ' \u00b7 ' + st.wins[s.name] + ' won'));
      seats.appendChild(card);
    });

    var box = $('ov-result');
    box.textContent = '';
    if (st.phase === 'game_over' && S.winner) {
      box.appendChild(el('div', 'winner', S.winner + ' wins!'));
    }
    var r = S.result, last = W.lastOf(st);
    if (last && (!r || (typeof last.seq === 'number' && !(r.seq >= last.seq)))) {
      // Opened after the reveal (or it was missed): the state's last,
      // without the dice.
      r = Object.assign({}, last, { unread: st.last_unconfirmed ? { n: L.notRead(st.last_unconfirmed), count: null } : null });
    }
    if (r) {
      box.appendChild(el('div', 'head', W.resultWords(r, star(), r.unread)));
      var ch = W.changesWords(r);
      if (ch) box.appendChild(el('div', 'changes', ch));
      if (r.unread) box.appendChild(el('div', 'unread', W.notReadWords(r.unread.n)));
      box.setAttribute('data-count', String(r.count));
      box.setAttribute('data-not-read', String(r.unread ? r.unread.n : 0));
    } else {
      box.removeAttribute('data-count');
      if (!box.childNodes.length) box.appendChild(el('div', 'none', 'no reveal yet'));
    }
  }

  function onMessage(topic, text) {
    var base = S.cfg.prefix + '/' + S.table + '/';
    if (topic === base + 'status') { S.status = text.trim(); render(); return; }
    if (topic === base + 'state' && text === '') { S.state = null; render(); return; }
    var v;
    try { v = JSON.parse(text); } catch (e) { return; }
    if (topic === base + 'state') {
      var st = L.cleanState(v);
      if (!st) return;
      if (W.newGame(S.state, st)) { S.result = null; S.winner = null; }
      if (st.status !== 'needs a look') S.look = null;
      S.state = st;
    } else if (topic === base + 'events') {
      var ev = L.cleanEvent(v);
      if (!ev) return;
      if (ev.type === 'revealed') S.reveal = ev;
      if (ev.type === 'resolved' && ev.call !== 'fold' && ev.bid) {
        S.result = ev;
        // A reveal with dice the camera did not read for sure: count the
        // dice read, never the stand-ins.
        var rv = S.reveal;
        if (rv && rv.unconfirmed && typeof ev.count === 'number') {
          ev.unread = { n: L.notRead(rv.unconfirmed), count: O.countOf(ev.bid.face, O.readOnly(rv.dice, rv.unconfirmed), st0()) };
        }
      }
      if (ev.type === 'resolved') S.reveal = null;
      if (ev.type === 'game_over' || ev.type === 'match_over') S.winner = ev.winner;
      if (ev.type === 'hand_started' && ev.game === 1 && ev.hand === 1) { S.result = null; S.winner = null; }
    } else if (topic === base + 'vision') {
      S.look = L.cleanLook(v);
    }
    render();
  }

  L.loadConfig().then(function (cfg) {
    S.cfg = cfg;
    S.table = new URLSearchParams(location.search).get('table') || cfg.table;
    if (!L.validTable(S.table)) return;
    document.title = S.table + ' \u00b7 overlay';
    var base = cfg.prefix + '/' + S.table + '/';
    L.connect(L.brokerURL(cfg), [base + 'state', base + 'status', base + 'events', base + 'vision'], onMessage, function (c) {
      document.body.setAttribute('data-conn', c);
    });
  }).catch(function () {});
})();
