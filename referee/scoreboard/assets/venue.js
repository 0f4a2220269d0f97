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

  function card(id, t) {
    var st = t.state, c = el('a', 'venue-table');
    c.href = './?table=' + encodeURIComponent(id);
    c.setAttribute('data-table', id);
    if (t.status === 'offline') c.classList.add('offline');
    var head = el('div', 'vt-head');
    head.appendChild(el('span', 'vt-name', id));
    var known = t.status === 'online' || t.status === 'offline';
    head.appendChild(el('span', 'vt-status ' + (known ? t.status : 'unknown'), t.status || '?'));
    c.appendChild(head);
    var qr = qrOf(id, t);
    if (qr) c.appendChild(qr);
    if (!st) { c.appendChild(el('div', 'vt-meta', 'no state yet')); return c; }
    var meta = el('div', 'vt-meta'), gh = st.rules ? W.gameWords(st, null) : '', status = W.status(st, null);
    meta.textContent = (st.rules || 'no game') + (gh ? ' \u00b7 ' + gh : '') + ' \u00b7 ' + W.phase(st) +
      (status ? ' \u00b7 ' + status.text : '');
    if (status) meta.setAttribute('data-status', status.text);
    c.appendChild(meta);
    var bid = el('div', 'vt-bid');
    if (st.bid) {
      bid.setAttribute('data-quantity', String(st.bid.quantity));
      bid.setAttribute('data-face', String(st.bid.face));
      bid.appendChild(el('span', 'q', st.bid.quantity + ' \u00d7'));
      bid.appendChild(D.die(st.bid.face, { star: !!st.star_die }));
      var ch = O.bidChance(st);
      bid.appendChild(el('span', 'who', st.bid.seat + (ch ? ' \u00b7 ' + O.percent(ch.chance) + ' true' : '')));
    } else {
      bid.appendChild(el('span', 'none', 'no bid'));
    }
    c.appendChild(bid);
    var seats = el('ul', 'vt-seats');
    (st.seats || []).forEach(function (s) {
      var li = el('li', 'vt-seat' + (st.turn === s.name ? ' turn' : '') + (s.out || s.left ? ' out' : ''));
      li.setAttribute('data-seat', s.name);
      li.setAttribute('data-dice', String(s.dice));
      li.appendChild(el('span', 'name', s.name));
      li.appendChild(el('span', 'count', s.dice + (s.dice === 1 ? ' die' : ' dice') +
        (s.chips !== undefined && s.chips !== null ? ' \u00b7 ' + s.chips + ' chips' : '') +
        (st.wins && st.wins[s.name] !== undefined ? ' \u00b7 ' + st.wins[s.name] + ' won' : '')));
      seats.appendChild(li);
    });
    c.appendChild(seats);
    var last = W.lastOf(st);
    if (last) {
      c.appendChild(el('div', 'vt-last', 'last: ' + last.caller + ' called ' + last.bidder + '\u2019s ' +
        D.bidWords(last.bid.quantity, last.bid.face, !!st.star_die) + ' \u2013 ' + last.count));
    }
    return c;
  }

  function render() {
    var box = document.getElementById('tables');
    box.textContent = '';
    var ids = Object.keys(tables).sort();
    document.getElementById('count').textContent = ids.length + (ids.length === 1 ? ' table' : ' tables');
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
