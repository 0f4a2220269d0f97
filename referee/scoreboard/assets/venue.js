// venue.js: every table on the broker at a glance. It subscribes to
// <prefix>/+/state and <prefix>/+/status and keeps one card per table.
(function () {
  'use strict';
  var D = window.LiarsDraw, O = window.LiarsOdds, L = window.LiarsLive, W = window.LiarsWords, el = D.el;
  var tables = {}; // id -> {state, status, qr}
  var cfg = null, prefix = 'liarsdice';

  // qrOf is the table's QR code (its page on a phone), made once: the
  // cards are drawn again at every message.
  // phones: whether the server has an address phones reach (link.json),
  // asked once; null until answered.
  var phones = null;
  function qrOf(id, t) {
    if (phones === null) {
      phones = false;
      fetch('link.json?table=' + encodeURIComponent(id), { cache: 'no-store' }).then(function (r) { return r.json(); })
        .then(function (l) { phones = !!(l && l.url); if (phones) render(); }).catch(function () {});
    }
    if (!phones) return null;
    if (!t.qr) {
      t.qr = el('img', 'qr');
      t.qr.alt = 'QR code: ' + id + '\u2019s page';
      t.qr.src = 'qr.svg?table=' + encodeURIComponent(id);
    }
    return t.qr;
  }

  // card draws one table for a TV across the room: its name and whether
  // the referee is online, the game, the bid in large type with its
  // chance, each seat's dice, and the last result in the overlay's words,
  // who lost first.
  function card(id, t) {
    var st = t.state, c = el('a', 'venue-table');
    c.href = './?table=' + encodeURIComponent(id);
    c.setAttribute('data-table', id);
    if (t.status === 'offline') c.classList.add('offline');
    var head = el('div', 'vt-head');
    head.appendChild(el('span', 'vt-name', id));
    // The status topic is retained: until it comes, say nothing rather
    // than a badge no one can read.
    if (t.status === 'online' || t.status === 'offline') head.appendChild(el('span', 'vt-status ' + t.status, t.status));
    c.appendChild(head);
    var qr = qrOf(id, t);
    if (qr) c.appendChild(qr);
    if (!st) { c.appendChild(el('div', 'vt-meta', 'no state yet')); return c; }
    var meta = el('div', 'vt-meta'), gh = st.rules ? W.gameWords(st, null) : '', status = W.status(st, null);
    meta.textContent = (st.rules || 'no game') + (gh ? ' \u00b7 ' + gh : '') + ' \u00b7 ' + W.phase(st);
    c.appendChild(meta);
    if (status) {
      var sb = el('div', 'vt-ref vt-ref-' + status.key, status.text);
      sb.setAttribute('data-status', status.text);
      c.appendChild(sb);
    }
    var bid = el('div', 'vt-bid');
    if (st.bid) {
      bid.setAttribute('data-quantity', String(st.bid.quantity));
      bid.setAttribute('data-face', String(st.bid.face));
      bid.appendChild(el('span', 'q', st.bid.quantity + ' \u00d7'));
      bid.appendChild(D.die(st.bid.face, { star: !!st.star_die }));
      var ch = O.bidChance(st);
      var who = el('span', 'who', st.bid.seat);
      if (ch) who.appendChild(el('span', 'chance', O.percent(ch.chance) + ' true'));
      bid.appendChild(who);
    } else {
      bid.appendChild(el('span', 'none', st.phase === 'bidding' && st.turn ? st.turn + ' opens the bidding' : 'no bid'));
    }
    c.appendChild(bid);
    if (st.call) c.appendChild(el('div', 'vt-call', st.call.caller + (st.call.call === 'spot_on' ? ' calls spot on' : ' calls liar') +
      (st.bid ? ' on ' + st.bid.seat : '')));
    var seats = el('ul', 'vt-seats');
    (st.seats || []).forEach(function (s) {
      var gone = s.out || s.left;
      var li = el('li', 'vt-seat' + (st.turn === s.name ? ' turn' : '') + (gone ? ' out' : ''));
      li.setAttribute('data-seat', s.name);
      li.setAttribute('data-dice', String(s.dice));
      li.appendChild(el('span', 'name', s.name));
      var extra = (s.chips !== undefined && s.chips !== null ? ' \u00b7 ' + s.chips + ' chips' : '') +
        (st.wins && st.wins[s.name] !== undefined ? ' \u00b7 ' + st.wins[s.name] + ' won' : '');
      li.appendChild(el('span', 'count', (gone ? (s.left ? 'left' : 'out') : W.plural(s.dice, 'die', 'dice')) + extra));
      seats.appendChild(li);
    });
    c.appendChild(seats);
    var last = W.lastOf(st);
    if (last) {
      var n = L.notRead(st.last_unconfirmed), box = el('div', 'vt-last');
      box.setAttribute('data-count', String(last.count));
      box.setAttribute('data-not-read', String(n));
      var lost = W.loserWords(last);
      if (lost) box.appendChild(el('div', 'vt-lost', lost));
      box.appendChild(el('div', 'vt-how', W.resultWords(last, !!st.star_die, n ? { n: n, count: null } : null)));
      if (n) box.appendChild(el('div', 'vt-unread', W.notReadWords(n)));
      c.appendChild(box);
    }
    return c;
  }

  function render() {
    var box = document.getElementById('tables');
    box.textContent = '';
    var ids = Object.keys(tables).sort();
    document.getElementById('count').textContent = ids.length + (ids.length === 1 ? ' table' : ' tables');
    box.setAttribute('data-tables', String(ids.length));
    if (!ids.length) { box.appendChild(el('p', 'none', 'no table on this broker yet')); return; }
    ids.forEach(function (id) {
      // One table's card that fails (a bug: states are cleaned on
      // arrival) leaves the other tables drawn.
      try { box.appendChild(card(id, tables[id])); } catch (e) { if (window.console) console.error('venue:', e); }
    });
  }

  function onMessage(topic, text) {
    var parts = topic.split('/');
    if (parts.length !== 3 || parts[0] !== prefix) return;
    var id = parts[1], t = tables[id] || (tables[id] = { state: null, status: '' });
    if (parts[2] === 'status') t.status = text.trim();
    else if (parts[2] === 'state') {
      if (text === '') t.state = null; // retained state cleared
      else {
        // Only a snapshot's fields, of the right types, are kept (live.js).
        var v;
        try { v = JSON.parse(text); } catch (e) { return; }
        t.state = L.cleanState(v);
      }
    }
    // A table whose retained topics were cleared has left the broker.
    if (!t.state && !t.status) delete tables[id];
    render();
  }

  L.loadConfig().then(function (c) {
    cfg = c;
    prefix = new URLSearchParams(location.search).get('prefix') || cfg.prefix;
    render();
    L.connect(L.brokerURL(cfg), [prefix + '/+/state', prefix + '/+/status'], onMessage, function (s) {
      L.showConn(document.getElementById('conn'), s);
    });
  }).catch(function (e) {
    document.getElementById('conn').textContent = String(e);
  });
})();
