// operator.js: the operator's page (docs/operator.md). It follows the table
// as the scoreboard does (state, events, status and vision over MQTT) and,
// once a call is made, shows the camera's read of the table: the frame
// taken at the call with every die outlined, its face, its seat and, for a
// die in doubt, both witnesses' opinions. The operator fixes the read and
// sends it as the table's reveal command (or, after acceptance and until
// the next hand's first bid, as a correction). No face reaches this page
// before the call: the referee serves a read only once one was taken.
// A reveal the referee took without a look (its doubt could not change
// the verdict) lists its unconfirmed dice, never their stand-in faces,
// for the operator to set with a correction.
(function (root) {
  'use strict';
  var L = root.LiarsLive, D = root.LiarsDraw, W = root.LiarsWords, el = D.el;
  var S = {
    cfg: null, table: '', base: '', client: null, login: null, state: null, status: '', conn: 'connecting',
    look: null, read: null, latest: null, frame: '', readID: null, dice: [], dirty: false, picking: null, pending: {},
    fetching: false, again: false, answer: '', answerKind: '', readable: true
  };
  // For tests and the bench: when each read was first drawn, and what the
  // page holds now.
  root.liarsdOperator = {
    shown: [],
    view: function () {
      var st = S.state;
      var unread = {};
      S.dice.forEach(function (d) { if (live(d) && d.unread && !d.confirmed) unread[d.seat] = (unread[d.seat] || 0) + 1; });
      return {
        phase: st ? st.phase : null, game: st ? st.game : null, hand: st ? st.hand : null,
        game_number: st ? st.game_number || null : null,
        read: S.read ? {
          id: S.read.id, kind: S.read.kind, game: S.read.game, hand: S.read.hand, ok: !!S.read.ok, accepted: !!S.read.accepted,
          source: S.read.source || '', unconfirmed: S.read.unconfirmed || null
        } : null,
        dice: diceMap(), unread: unread, expected: expected(), problems: problems()
      };
    }
  };

  function $(id) { return document.getElementById(id); }

  function authHeaders() {
    if (!S.login) return {};
    var raw = S.login.username + ':' + S.login.password;
    return { Authorization: 'Basic ' + btoa(unescape(encodeURIComponent(raw))) };
  }

  // fetchRead asks the referee for its last read; calls made while one is
  // on its way run once more when it returns.
  function fetchRead() {
    if (!S.readable) return Promise.resolve(true);
    if (S.fetching) { S.again = true; return Promise.resolve(true); }
    S.fetching = true;
    return fetch('api/operator/read', { cache: 'no-store', headers: authHeaders() }).then(function (r) {
      if (r.status === 401 || r.status === 403) {
        return r.json().catch(function () { return {}; }).then(function (b) { showLogin(b.message || 'log in'); return false; });
      }
      if (!r.ok) throw new Error('api/operator/read: HTTP ' + r.status);
      return r.json().then(function (b) { takeRead(b); return true; });
    }).catch(function (e) {
      if (root.console) console.warn('operator:', e.message);
      return true;
    }).then(function (ok) {
      S.fetching = false;
      if (S.again) { S.again = false; fetchRead(); }
      return ok;
    });
  }

  function takeRead(b) {
    var rd = b && b.read && typeof b.read === 'object' ? b.read : null;
    if (!rd) {
      if (S.read) { S.read = null; S.readID = null; S.frame = ''; S.dice = []; S.answer = ''; S.dirty = false; S.latest = null; S.crop = null; S.whole = false; }
      render();
      return;
    }
    if (rd.id === S.readID) return;
    var frame = typeof b.frame === 'string' && b.frame.indexOf('data:image/jpeg;base64,') === 0 ? b.frame : '';
    S.latest = { read: rd, frame: frame };
    var cur = S.read;
    if (S.dirty && !rd.accepted && cur && !cur.accepted && cur.game === rd.game && cur.hand === rd.hand && cur.kind === rd.kind) {
      // The camera read the same reveal again while the operator was
      // fixing the last read: the operator's work stays.
      S.readID = rd.id;
      render();
      return;
    }
    useRead(rd, frame);
    if (!rd.accepted) {
      root.liarsdOperator.shown.push({
        id: rd.id, kind: rd.kind, game: rd.game, hand: rd.hand, attempt: rd.attempt, ok: rd.ok, read_at: rd.read_at,
        shown_at: performance.timeOrigin + performance.now()
      });
    }
  }

  function useRead(rd, frame) {
    S.read = rd; S.readID = rd.id; S.frame = frame; S.dirty = false;
    S.dice = diceOf(rd);
    S.crop = cropOf(rd, S.dice);
    render();
  }

  // cropOf is the part of the frame the page shows at first: the dice
  // that need a look (those in doubt or not read, and the dice of a seat
  // whose count is off, where a missed die hides), else every die read,
  // with room around them, so that a phone shows them big enough to tap;
  // the whole frame when there are none, or when they fill most of it.
  function cropOf(rd, dice) {
    var whole = { x: 0, y: 0, w: rd.width, h: rd.height };
    var placed = dice.filter(function (d) { return typeof d.x === 'number' && typeof d.y === 'number'; });
    var off = (Array.isArray(rd.seats) ? rd.seats : []).filter(function (c) { return !rd.accepted && c.seen !== c.expected; })
      .map(function (c) { return c.seat; });
    var focus = placed.filter(function (d) { return (d.doubt && !d.confirmed) || d.unread || off.indexOf(d.seat) >= 0; });
    var ds = focus.length ? focus : placed;
    if (!ds.length || !rd.width || !rd.height) return whole;
    var size = Math.max.apply(null, ds.map(function (d) { return d.size > 0 ? d.size : 40; }));
    var m = 2.5 * size;
    var x0 = Math.max(0, Math.min.apply(null, ds.map(function (d) { return d.x; })) - m);
    var x1 = Math.min(rd.width, Math.max.apply(null, ds.map(function (d) { return d.x; })) + m);
    var y0 = Math.max(0, Math.min.apply(null, ds.map(function (d) { return d.y; })) - m);
    var y1 = Math.min(rd.height, Math.max.apply(null, ds.map(function (d) { return d.y; })) + m);
    // Never taller than 4:5 (a phone's screen keeps room for the rest):
    // widen around the dice where it would be.
    var w = Math.max(x1 - x0, (y1 - y0) * 1.25), cx = (x0 + x1) / 2;
    x0 = Math.max(0, Math.min(cx - w / 2, rd.width - w));
    x1 = Math.min(rd.width, x0 + w);
    if ((x1 - x0) * (y1 - y0) > 0.7 * rd.width * rd.height) return whole;
    return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
  }

  // diceOf builds the editable dice from a read: the camera's dice, or,
  // once the table took the reveal, the dice it took (placed on the
  // camera's dice of the same seat and face where there are some).
  function diceOf(rd) {
    var cam = (Array.isArray(rd.dice) ? rd.dice : []).map(function (d) {
      return {
        seat: typeof d.seat === 'string' ? d.seat : '', face: typeof d.face === 'number' ? d.face : 0,
        x: d.x, y: d.y, size: d.size, doubt: d.doubt || '', net: d.net || null, pips: d.pips || null,
        likely: Array.isArray(d.likely) ? d.likely : [], matters: d.matters === true,
        confidence: d.confidence, confirmed: false, added: false, removed: false, unread: false
      };
    });
    if (!rd.accepted) return cam;
    // Each accepted face goes on a camera die of its seat that read it
    // (for sure, if one did), else on one that read another face (the
    // operator set it), else it is a die the operator added. An
    // unconfirmed die (the referee took a stand-in for it) goes on a die
    // the camera was in doubt of, else on one it did not see: it is
    // drawn as not read, its face unset until the operator sets it.
    var out = [];
    Object.keys(rd.accepted).forEach(function (seat) {
      var left = cam.filter(function (d) { return d.seat === seat; });
      var faces = rd.accepted[seat] || [], un = (rd.unconfirmed && rd.unconfirmed[seat]) || [];
      var rest = [];
      faces.forEach(function (face, j) {
        if (un.indexOf(j) >= 0) return;
        var i = left.findIndex(function (d) { return d.face === face && !d.doubt; });
        if (i < 0) i = left.findIndex(function (d) { return d.face === face; });
        if (i < 0) { rest.push(face); return; }
        out.push(settled(left.splice(i, 1)[0], face));
      });
      un.forEach(function (j) {
        if (j >= faces.length) return;
        var i = left.findIndex(function (d) { return d.doubt; });
        var d = i >= 0 ? left.splice(i, 1)[0] : { seat: seat, added: true, unseen: true, likely: [] };
        d.face = 0; d.unread = true; d.confirmed = false; d.removed = false; d.doubt = d.doubt || 'unseen';
        out.push(d);
      });
      rest.forEach(function (face) {
        out.push(settled(left.length ? left.shift() : { seat: seat, added: true }, face));
      });
    });
    return out;
  }

  function settled(d, face) {
    d.face = face; d.confirmed = true; d.doubt = d.doubt || ''; d.removed = false; d.unread = false;
    return d;
  }

  function sides() { return (S.read && S.read.sides) || (S.state && S.state.sides) || 6; }
  function star() { return S.read ? !!S.read.star : !!(S.state && S.state.star_die); }

  // expected lists the seats of the reveal and their numbers of dice.
  function expected() {
    if (S.read && Array.isArray(S.read.seats) && S.read.seats.length) {
      return S.read.seats.map(function (c) { return { seat: c.seat, dice: c.expected }; });
    }
    var st = S.state;
    if (!st) return [];
    return st.seats.filter(function (s) { return !s.out && !s.computer && s.in_hand !== false && s.dice > 0; })
      .map(function (s) { return { seat: s.name, dice: s.dice }; });
  }

  function awaiting() {
    var st = S.state;
    return !!st && (st.phase === 'reveal' || st.phase === 'opening');
  }

  function live(d) { return !d.removed; }

  // problems lists what stops the dice from being sent.
  function problems() {
    var out = [];
    var exp = expected();
    var unread = S.dice.filter(function (d) { return live(d) && d.unread && !d.confirmed; }).length;
    if (unread) out.push(W.plural(unread, 'die', 'dice') + ' not read');
    var doubt = S.dice.filter(function (d) { return live(d) && d.doubt && !d.confirmed && !d.unread; }).length;
    if (doubt) out.push(doubt === 1 ? '1 die in doubt' : doubt + ' dice in doubt');
    var noFace = S.dice.filter(function (d) { return live(d) && !d.unread && !(d.face >= 1 && d.face <= sides()); }).length;
    if (noFace) out.push(noFace === 1 ? '1 die without a face' : noFace + ' dice without a face');
    exp.forEach(function (e) {
      var n = S.dice.filter(function (d) { return live(d) && d.seat === e.seat; }).length;
      if (n !== e.dice) out.push(e.seat + ' has ' + e.dice + (e.dice === 1 ? ' die, ' : ' dice, ') + n + ' here');
    });
    var stray = S.dice.filter(function (d) {
      return live(d) && !exp.some(function (e) { return e.seat === d.seat; });
    }).length;
    if (stray) out.push(stray === 1 ? '1 die in no seat of the hand' : stray + ' dice in no seat of the hand');
    return out;
  }

  function diceMap() {
    var m = {};
    expected().forEach(function (e) { m[e.seat] = []; });
    S.dice.forEach(function (d) { if (live(d) && m[d.seat]) m[d.seat].push(d.face); });
    return m;
  }

  // sameAsAccepted says whether the page's dice are those the table
  // took: a correction would change nothing. A reveal with unconfirmed
  // dice is never the same: a correction confirms them.
  function sameAsAccepted() {
    var acc = S.read && S.read.accepted;
    if (!acc) return true;
    if (S.read.unconfirmed && Object.keys(S.read.unconfirmed).length) return false;
    var m = diceMap();
    return Object.keys(m).every(function (seat) {
      var a = (acc[seat] || []).slice().sort(), b = m[seat].slice().sort();
      return a.length === b.length && a.every(function (f, i) { return f === b[i]; });
    });
  }

  function send(line, what) {
    if (!S.client || S.conn !== 'live') { setAnswer('not connected to the broker: ' + what + ' not sent', 'bad'); return; }
    var id = 'operator-' + Date.now().toString(36) + '-' + Math.random().toString(16).slice(2, 8);
    line.id = id;
    S.pending[id] = what;
    S.reason = '';
    setAnswer('sending the ' + what + '\u2026', '');
    S.client.publish(S.base + 'cmd', JSON.stringify(line), { qos: 1 });
    setTimeout(function () {
      if (S.pending[id]) { delete S.pending[id]; setAnswer('no answer from the referee to the ' + what, 'bad'); }
    }, 8000);
  }

  function onReply(text) {
    var r;
    try { r = JSON.parse(text); } catch (e) { return; }
    if (!r || typeof r.id !== 'string' || !S.pending[r.id]) return;
    var what = S.pending[r.id];
    delete S.pending[r.id];
    S.reason = r.ok === true ? '' : String(r.reason || '');
    if (r.ok === true) setAnswer('the ' + what + ' was accepted', 'ok');
    else setAnswer('the ' + what + ' was refused: ' + String(r.message || r.reason || 'no reason given'), 'bad');
    fetchRead();
  }

  function setAnswer(text, kind) { S.answer = text; S.answerKind = kind; renderAnswer(); }

  function renderAnswer() {
    var a = $('answer');
    a.textContent = S.answer;
    a.className = 'op-answer' + (S.answerKind ? ' ' + S.answerKind : '');
    a.setAttribute('data-answer', S.answerKind);
    a.setAttribute('data-reason', S.reason || '');
  }

  // --- drawing ---

  function render() {
    renderHeader();
    renderLive();
    renderReveal();
  }

  // renderHeader: the table, then short pills that never break inside
  // (the rules, "game 3 · hand 2", the phase, the referee's status when
  // it is not simply ready), in the scoreboard's words.
  function renderHeader() {
    $('table-name').textContent = S.table + ' \u00b7 operator';
    var meta = $('meta');
    meta.textContent = '';
    var st = S.state;
    if (st) {
      if (st.rules) meta.appendChild(el('span', 'rules', st.rules));
      var gh = st.rules ? W.gameWords(st, null) : '';
      if (gh) meta.appendChild(el('span', 'gh', gh));
      if (st.palifico) meta.appendChild(el('span', 'palifico', 'palifico hand'));
      if (st.phase) meta.appendChild(el('span', 'phase', W.phase(st)));
      var status = W.status(st, null);
      if (status) {
        var s = el('span', 'ref-status ref-' + status.key, status.key === 'look' ? 'needs a look' : status.text);
        s.setAttribute('data-status', st.status);
        meta.appendChild(s);
      }
    }
    $('offline').hidden = S.status !== 'offline';
  }

  // renderLive: the bid and, during a reveal, who called; the seats; the
  // last result, who lost first.
  function renderLive() {
    var st = S.state;
    var bid = $('bid');
    bid.textContent = '';
    if (st && st.bid) {
      bid.appendChild(el('span', 'bidder', st.bid.seat + ' bids ' + D.bidWords(st.bid.quantity, st.bid.face, st.star_die)));
      if (st.call) {
        bid.appendChild(el('span', 'caller', st.call.caller + (st.call.call === 'spot_on' ? ' calls spot on' : ' calls liar')));
      }
    } else if (st) {
      bid.appendChild(el('span', 'none', st.phase === 'idle' ? 'no game' : 'no bid yet'));
    }
    var ul = $('seats');
    ul.textContent = '';
    (st ? st.seats : []).forEach(function (s) {
      var gone = s.out || s.left;
      var li = el('li', (gone ? 'out' : '') + (st.turn === s.name ? ' turn' : ''));
      li.setAttribute('data-seat', s.name);
      li.appendChild(el('span', 'name', s.name));
      li.appendChild(el('span', 'count', gone ? (s.left ? 'left' : 'out') : W.plural(s.dice, 'die', 'dice') + (s.computer ? ' (computer)' : '')));
      if (s.chips !== undefined) li.appendChild(el('span', 'chips', s.chips + ' chips'));
      if (s.shown.length) {
        var shown = el('span', 'dice small');
        s.shown.forEach(function (f) { shown.appendChild(D.die(f, { star: st.star_die, shown: true })); });
        li.appendChild(shown);
      }
      if (st.turn === s.name) li.appendChild(el('span', 'to-play', 'to play'));
      ul.appendChild(li);
    });
    var res = $('result');
    res.textContent = '';
    var last = W.lastOf(st);
    if (last) {
      var n = L.notRead(st.last_unconfirmed);
      res.appendChild(el('span', 'label', 'last: '));
      var lost = W.loserWords(last);
      if (lost) res.appendChild(el('strong', 'lost', lost + ' \u2013 '));
      res.appendChild(el('span', 'how', W.resultWords(last, st.star_die, n ? { n: n, count: null } : null)));
      if (n) res.appendChild(el('span', 'unread', ' ' + W.notReadWords(n) + '.'));
    }
  }

  // doubtsWords says which doubts of a weighed read could change the
  // verdict and which could not.
  function doubtsWords(rd) {
    if (!rd || !rd.weighed || rd.accepted) return '';
    var yes = [], no = [];
    S.dice.forEach(function (d) {
      if (!live(d) || !d.doubt || d.added) return;
      (d.matters ? yes : no).push(d);
    });
    var parts = [];
    if (yes.length) parts.push(W.plural(yes.length, 'doubt', 'doubts') + ' could change the result (' + seatsOf(yes) + ')');
    (rd.unseen_matters || []).forEach(function (seat) {
      var c = (rd.seats || []).filter(function (x) { return x.seat === seat; })[0];
      var missing = c ? c.expected - c.seen : 1;
      parts.push(seat + '\u2019s missing ' + (missing > 1 ? 'dice' : 'die') + ' could change the result');
    });
    if (no.length) parts.push(W.plural(no.length, 'doubt', 'doubts') + ' could not (' + seatsOf(no) + ')');
    return parts.join('; ');
  }

  function seatsOf(ds) {
    var seen = [];
    ds.forEach(function (d) { var w = d.seat || 'outside every seat'; if (seen.indexOf(w) < 0) seen.push(w); });
    return seen.join(', ');
  }

  function renderReveal() {
    var show = !!S.read || awaiting();
    $('reveal').hidden = !show;
    $('idle').hidden = show;
    if (!show) return;
    var rd = S.read;
    var kind = rd ? rd.kind : (S.state && S.state.phase === 'opening' ? 'opening_roll' : 'reveal');
    $('reveal-title').textContent = (kind === 'opening_roll' ? 'Opening roll' : 'Reveal') +
      (rd ? ' \u2013 ' + W.gameWords({ game_number: S.state && S.state.game_number, hand: rd.hand, phase: kind === 'opening_roll' ? 'opening' : 'reveal' }, null) : '');
    var status = $('reveal-status');
    var probs = problems();
    var unread = S.dice.filter(function (d) { return live(d) && d.unread && !d.confirmed; }).length;
    var text;
    if (rd && rd.accepted) {
      text = sourceWords(rd.source) + '.';
      var n = L.notRead(rd.unconfirmed);
      if (n) text += ' ' + W.notReadWords(n) + '; tap ' + (n === 1 ? 'it' : 'each') + ' to set ' + (n === 1 ? 'it' : 'them') + ' until the next hand\'s first bid.';
      else text += ' Until the next hand\'s first bid you can still correct it.';
    } else if (rd && rd.ok) {
      text = 'The camera read the dice.';
    } else if (rd) {
      text = 'Needs a look: ' + (rd.message || probs.join('; '));
    } else if (S.state && S.state.status === 'reading') {
      text = 'Reading the dice\u2026';
    } else {
      text = 'No camera read: enter the dice by hand.';
    }
    status.textContent = text;
    status.className = 'op-status' + (rd && !rd.ok && !rd.accepted ? ' doubt' : '') + (unread ? ' unread' : '');
    var why = $('reveal-why');
    why.textContent = doubtsWords(rd);
    why.hidden = !why.textContent;
    renderFrame();
    renderCloseups();
    renderSeats();
    var acc = $('accept'), cor = $('correct');
    var accepted = !!(rd && rd.accepted);
    acc.hidden = accepted;
    // Dice in doubt left unset, all else in order: the button says so,
    // and a tap opens the first of them (the operator who only added a
    // missed die sees what is left).
    var only = onlyDoubts(probs);
    acc.disabled = accepted || !awaiting() || (probs.length > 0 && !only);
    acc.setAttribute('data-guide', only ? 'true' : 'false');
    acc.textContent = only ? 'Set ' + (only === 1 ? 'the die' : 'the ' + only + ' dice') + ' in doubt, then accept'
      : probs.length ? 'Accept (' + probs.join('; ') + ')' : 'Accept';
    cor.hidden = !accepted;
    cor.disabled = !accepted || probs.length > 0 || sameAsAccepted();
    cor.textContent = accepted && probs.length ? 'Correct the result (' + probs.join('; ') + ')' : 'Correct the result';
    renderAnswer();
  }

  // onlyDoubts returns how many dice in doubt are left unset when they
  // are all that stops the dice from being sent (0 otherwise).
  function onlyDoubts(probs) {
    if (!probs.length) return 0;
    var doubt = S.dice.filter(function (d) { return live(d) && d.doubt && !d.confirmed && !d.unread; }).length;
    return probs.length === 1 && doubt > 0 ? doubt : 0;
  }

  // sourceWords says who the table took an accepted reveal from.
  var SOURCES = {
    camera: 'The referee took the camera\'s read', mqtt: 'Accepted: sent as a command by another app',
    operator: 'Accepted by the operator', buttons: 'Accepted from the table\'s buttons'
  };
  function sourceWords(src) { return SOURCES[String(src || '').split(':')[0]] || 'Accepted: entered by hand'; }

  function markLabel(d) {
    if (d.unread && !d.confirmed) return '?';
    return d.face >= 1 ? (star() && d.face === 1 ? '\u2605' : String(d.face)) : '?';
  }

  function renderFrame() {
    var fr = $('frame');
    var rd = S.read;
    if (!S.frame || !rd || !rd.width || !rd.height) { fr.hidden = true; fr.textContent = ''; S.img = null; $('zoom').hidden = true; return; }
    fr.hidden = false;
    var c = S.whole || !S.crop ? { x: 0, y: 0, w: rd.width, h: rd.height } : S.crop;
    var zoom = $('zoom');
    zoom.hidden = !S.crop || (S.crop.w === rd.width && S.crop.h === rd.height);
    zoom.textContent = S.whole ? 'Show the dice up close' : 'Show the whole picture';
    // The picture is kept between draws: only the marks are drawn again.
    if (!S.img || S.img.getAttribute('src') !== S.frame) {
      fr.textContent = '';
      var img = el('img');
      img.src = S.frame;
      img.alt = 'the table as the camera saw it at the call';
      img.addEventListener('click', function (ev) {
        var r = S.read, box = img.getBoundingClientRect();
        if (!r) return;
        var x = (ev.clientX - box.left) / box.width * r.width, y = (ev.clientY - box.top) / box.height * r.height;
        openPicker(-1, { seat: nearestSeat(x, y), face: 0, x: x, y: y, size: 0, added: true, confirmed: false, removed: false, doubt: '', likely: [] });
      });
      fr.appendChild(img);
      S.img = img;
    }
    // The frame shows the crop c: the picture is scaled and shifted
    // behind it (margins in % are of the frame's width).
    fr.style.aspectRatio = c.w + ' / ' + c.h;
    S.img.style.width = (rd.width / c.w * 100) + '%';
    S.img.style.marginLeft = (-c.x / c.w * 100) + '%';
    S.img.style.marginTop = (-c.y / c.w * 100) + '%';
    Array.prototype.slice.call(fr.querySelectorAll('.op-mark')).forEach(function (m) { fr.removeChild(m); });
    // On screen: a mark is at least 44 CSS px (a thumb's target), its tag
    // goes above it, or below it where the picture's top edge would cut it.
    var scale = (fr.clientWidth || 360) / c.w, minMark = 44, tagRoom = 24;
    S.dice.forEach(function (d, i) {
      if (typeof d.x !== 'number' || typeof d.y !== 'number') return;
      var open = !d.confirmed && (d.doubt || d.unread);
      var b = el('button', 'op-mark' + (open ? ' doubt' : '') + (open && d.matters ? ' matters' : '') + (d.unread && !d.confirmed ? ' unread' : '') +
        (d.doubt === 'no_seat' ? ' no-seat' : '') + (d.confirmed ? ' confirmed' : '') + (d.added ? ' added' : '') + (d.removed ? ' removed' : ''));
      b.type = 'button';
      var half = Math.max(minMark, (d.size || 0) * scale) / 2;
      var tag = el('span', 'tag' + ((d.y - c.y) * scale < half + tagRoom ? ' below' : ''), markLabel(d));
      b.appendChild(tag);
      b.style.left = ((d.x - c.x) / c.w * 100) + '%';
      b.style.top = ((d.y - c.y) / c.h * 100) + '%';
      if (d.size > 0) b.style.width = (d.size / c.w * 100) + '%';
      if (d.size > 0) b.style.height = (d.size / c.h * 100) + '%';
      b.setAttribute('data-seat', d.seat);
      b.setAttribute('data-face', d.face >= 1 && !(d.unread && !d.confirmed) ? String(d.face) : '');
      b.setAttribute('data-doubt', open ? d.doubt : '');
      b.setAttribute('data-unread', d.unread && !d.confirmed ? 'true' : 'false');
      b.setAttribute('aria-label', (d.seat || 'no seat') + ': ' + (d.unread && !d.confirmed ? 'not read' : d.face >= 1 ? d.face : 'unknown') +
        (open ? ' (in doubt' + (d.matters ? ', could change the result)' : ')') : ''));
      b.addEventListener('click', function (ev) { ev.stopPropagation(); openPicker(i); });
      fr.appendChild(b);
    });
  }

  // closeup draws the frame around die d, magnified into a px by px
  // square with the die in its middle about half as wide: the die as a
  // phone shows it big enough to read, whatever the picture's zoom.
  function closeup(d, px) {
    var rd = S.read, box = el('span', 'closeup');
    var size = d.size > 0 ? d.size : 40, scale = px / (2.2 * size);
    box.style.width = px + 'px';
    box.style.height = px + 'px';
    box.style.backgroundImage = 'url("' + S.frame + '")';
    box.style.backgroundSize = (rd.width * scale) + 'px ' + (rd.height * scale) + 'px';
    box.style.backgroundPosition = (px / 2 - d.x * scale) + 'px ' + (px / 2 - d.y * scale) + 'px';
    return box;
  }

  function hasSpot(d) { return typeof d.x === 'number' && typeof d.y === 'number' && !d.added; }

  // renderCloseups shows each die that needs the operator (in doubt, or
  // not read) up close, in a row of large targets under the picture.
  function renderCloseups() {
    var box = $('closeups');
    box.textContent = '';
    if (!S.frame || !S.read || !S.read.width) { box.hidden = true; return; }
    S.dice.forEach(function (d, i) {
      if (!live(d) || d.confirmed || !(d.doubt || d.unread) || !hasSpot(d)) return;
      var b = el('button', 'op-closeup' + (d.matters ? ' matters' : '') + (d.unread ? ' unread' : ''));
      b.type = 'button';
      b.setAttribute('data-seat', d.seat);
      b.setAttribute('aria-label', (d.seat || 'no seat') + '\u2019s die up close');
      b.appendChild(closeup(d, 96));
      b.appendChild(el('span', 'who', (d.seat || 'no seat') + ' ' + markLabel(d)));
      b.addEventListener('click', function () { openPicker(i); });
      box.appendChild(b);
    });
    box.hidden = !box.childNodes.length;
  }

  function nearestSeat(x, y) {
    var best = '', dist = Infinity;
    S.dice.forEach(function (d) {
      if (!d.seat || typeof d.x !== 'number') return;
      var dd = Math.hypot(d.x - x, d.y - y);
      if (dd < dist) { dist = dd; best = d.seat; }
    });
    if (!best) { var e = expected(); best = e.length ? e[0].seat : ''; }
    return best;
  }

  // renderSeats lists each seat of the reveal: its name and count, then
  // its dice as buttons a thumb can hit (a die in doubt framed, a die not
  // read drawn as an outline with "?") and a button to add a die.
  function renderSeats() {
    var ul = $('reveal-seats');
    ul.textContent = '';
    var unseen = (S.read && !S.read.accepted && S.read.unseen_matters) || [];
    expected().forEach(function (e) {
      var li = el('li');
      li.setAttribute('data-seat', e.seat);
      var head = el('div', 'seat-line');
      head.appendChild(el('span', 'name', e.seat));
      var n = S.dice.filter(function (d) { return live(d) && d.seat === e.seat; }).length;
      head.appendChild(el('span', 'count' + (n !== e.dice ? ' bad' : ''), n + ' of ' + e.dice +
        (n < e.dice && unseen.indexOf(e.seat) >= 0 ? ': the missing die could change the result' : '')));
      li.appendChild(head);
      var row = el('div', 'seat-dice');
      S.dice.forEach(function (d, i) {
        if (!live(d) || d.seat !== e.seat) return;
        var open = !d.confirmed && (d.doubt || d.unread);
        var b = el('button', 'die-button' + (open ? ' doubt' : '') + (open && d.matters ? ' matters' : ''));
        b.type = 'button';
        var unread = d.unread && !d.confirmed;
        b.setAttribute('data-face', d.face >= 1 && !unread ? String(d.face) : '');
        b.setAttribute('data-unread', unread ? 'true' : 'false');
        b.setAttribute('aria-label', e.seat + '\u2019s die: ' + (unread ? 'not read' : d.face >= 1 ? faceWord(d.face) : 'no face yet'));
        b.appendChild(D.die(d.face >= 1 ? d.face : 0, { star: star(), unread: unread }));
        b.addEventListener('click', function () { openPicker(i); });
        row.appendChild(b);
      });
      var add = el('button', 'add', '+');
      add.type = 'button';
      add.setAttribute('aria-label', 'add a die to ' + e.seat);
      add.addEventListener('click', function () {
        openPicker(-1, { seat: e.seat, face: 0, added: true, confirmed: false, removed: false, doubt: '', likely: [] });
      });
      row.appendChild(add);
      li.appendChild(row);
      ul.appendChild(li);
    });
  }

  function witness(d) {
    var parts = [];
    if (d.unread && !d.confirmed) parts.push(d.unseen ? 'the camera did not see this die' : 'the camera did not read this die for sure');
    else if (d.doubt === 'uncertain') parts.push('the camera is unsure of this die');
    if (d.doubt === 'no_seat') parts.push('this die lies in no seat\'s zone');
    if (S.read && S.read.weighed && !S.read.accepted && d.doubt && !d.added) {
      parts.push(d.matters ? 'it could change the result' : 'it cannot change the result');
    }
    if (d.net) parts.push('face network: ' + faceWord(d.net.face, d.net.star) + (typeof d.net.probability === 'number' ? ' (' + Math.round(d.net.probability * 100) + ' %)' : ''));
    if (d.net || d.pips || (d.doubt && !d.unseen)) parts.push('pip count: ' + (d.pips ? faceWord(d.pips.face, d.pips.star) : 'could not tell'));
    if (d.added && !d.unseen) parts.push('added by hand');
    return parts.join(' \u00b7 ');
  }

  function faceWord(f, isStar) { return isStar || (star() && f === 1) ? 'star' : String(f); }

  // likeliest lists the faces a die in doubt most likely shows, likeliest
  // first: the face network's top three of those the reader gives
  // (vision.Die.Likely), and the pip counter's; none for a die read for
  // sure, or one the camera did not see.
  function likeliest(d) {
    var out = [];
    function add(f, p) {
      if (f >= 1 && f <= sides() && !out.some(function (o) { return o.face === f; })) out.push({ face: f, probability: p });
    }
    if (!(d.doubt || d.unread) || d.unseen) return out;
    var likely = (d.likely || []).filter(function (o) { return o && typeof o.face === 'number'; });
    likely.slice(0, 3).forEach(function (o) { add(o.face, typeof o.probability === 'number' ? o.probability : null); });
    if (!likely.length && d.net) add(d.net.face, typeof d.net.probability === 'number' ? d.net.probability : null);
    if (d.pips) add(d.pips.face, null);
    return out;
  }

  // --- the picker ---

  function faceButton(f, cls, current, p) {
    var b = el('button', cls + (current ? ' current' : ''), star() && f === 1 ? '\u2605' : String(f));
    b.type = 'button';
    b.setAttribute('data-face', String(f));
    if (p !== null && p !== undefined) b.appendChild(el('small', '', Math.round(p * 100) + ' %'));
    b.addEventListener('click', function () { pick(f); });
    return b;
  }

  function openPicker(i, fresh) {
    var d = i >= 0 ? S.dice[i] : fresh;
    S.picking = { i: i, die: d };
    $('picker-title').textContent = i >= 0 ? (d.seat || 'no seat') + '\'s die' : 'Add a die';
    $('picker-witness').textContent = witness(d);
    var near = $('picker-closeup');
    near.textContent = '';
    near.hidden = !(S.frame && S.read && S.read.width && hasSpot(d));
    if (!near.hidden) near.appendChild(closeup(d, 150));
    // One tap: the faces the die most likely shows first, large; the
    // others after them.
    var top = likeliest(d), likely = $('picker-likely'), faces = $('picker-faces');
    likely.textContent = '';
    faces.textContent = '';
    likely.hidden = !top.length;
    top.forEach(function (o) { likely.appendChild(faceButton(o.face, 'likely', d.face === o.face && !d.unread, o.probability)); });
    $('picker-others').hidden = !top.length;
    for (var f = 1; f <= sides(); f++) {
      if (top.some(function (o) { return o.face === f; })) continue;
      faces.appendChild(faceButton(f, '', d.face === f && !(d.unread && !d.confirmed), null));
    }
    var seats = $('picker-seats');
    seats.textContent = '';
    expected().forEach(function (e) {
      var b = el('button', d.seat === e.seat ? 'current' : '', e.seat);
      b.type = 'button';
      b.setAttribute('data-seat', e.seat);
      b.addEventListener('click', function () {
        S.picking.die.seat = e.seat;
        if (S.picking.i >= 0) S.dirty = true;
        Array.prototype.forEach.call(seats.children, function (c) { c.className = c === b ? 'current' : ''; });
        if (S.picking.i >= 0) render();
      });
      seats.appendChild(b);
    });
    var rm = $('picker-remove');
    rm.hidden = i < 0;
    rm.textContent = d.removed ? 'Put this die back' : 'Remove this die';
    $('picker').hidden = false;
  }

  function pick(f) {
    var p = S.picking;
    if (!p) return;
    p.die.face = f;
    p.die.confirmed = true;
    p.die.removed = false;
    p.die.unread = false;
    if (p.i < 0) S.dice.push(p.die);
    S.dirty = true;
    closePicker();
  }

  function closePicker() { S.picking = null; $('picker').hidden = true; render(); }

  $('picker-cancel').addEventListener('click', closePicker);
  $('zoom').addEventListener('click', function () { S.whole = !S.whole; render(); });
  $('picker-remove').addEventListener('click', function () {
    var p = S.picking;
    if (p && p.i >= 0) {
      if (p.die.added) S.dice.splice(p.i, 1);
      else p.die.removed = !p.die.removed;
      S.dirty = true;
    }
    closePicker();
  });
  $('accept').addEventListener('click', function () {
    if ($('accept').getAttribute('data-guide') === 'true') {
      // The dice in doubt are all that is left: open the first of them.
      var i = S.dice.findIndex(function (d) { return live(d) && d.doubt && !d.confirmed && !d.unread; });
      if (i >= 0) openPicker(i);
      return;
    }
    var kind = S.read ? S.read.kind : (S.state && S.state.phase === 'opening' ? 'opening_roll' : 'reveal');
    send({ type: kind, dice: diceMap() }, kind.replace('_', ' '));
  });
  $('correct').addEventListener('click', function () {
    send({ type: 'correct', dice: diceMap() }, 'correction');
  });
  $('undo').addEventListener('click', function () {
    if (S.latest) useRead(S.latest.read, S.latest.frame);
    else { S.dice = []; S.dirty = false; render(); }
  });

  // --- the broker ---

  function onMessage(topic, text) {
    if (topic === S.base + 'status') { S.status = text.trim(); render(); return; }
    if (topic === S.base + 'reply') { onReply(text); return; }
    if (topic === S.base + 'vision') {
      var v;
      try { v = JSON.parse(text); } catch (e) { return; }
      if (v && v.type === 'needs_a_look') fetchRead();
      return;
    }
    if (topic === S.base + 'state') {
      var raw;
      try { raw = JSON.parse(text); } catch (e) { return; }
      var st = L.cleanState(raw);
      if (!st) return;
      var prev = S.state;
      S.state = st;
      if (!prev || prev.phase !== st.phase || prev.status !== st.status || prev.hand !== st.hand || prev.game !== st.game ||
          !!prev.bid !== !!st.bid) fetchRead();
      render();
      return;
    }
    if (topic === S.base + 'events') {
      var e;
      try { e = L.cleanEvent(JSON.parse(text)); } catch (x) { return; }
      if (e && (e.type === 'revealed' || e.type === 'resolved' || e.type === 'corrected')) fetchRead();
    }
  }

  function start() {
    S.base = S.cfg.prefix + '/' + S.table + '/';
    S.client = L.connect(L.brokerURL(S.cfg), [S.base + 'state', S.base + 'status', S.base + 'events', S.base + 'vision', S.base + 'reply'],
      onMessage, function (c) { S.conn = c; L.showConn($('conn'), c); renderReveal(); }, S.login);
  }

  function showLogin(message) {
    $('login').hidden = false;
    $('op').hidden = true;
    $('login-error').textContent = S.login ? message : '';
  }

  $('login').addEventListener('submit', function (ev) {
    ev.preventDefault();
    S.login = { username: $('login-user').value, password: $('login-password').value };
    fetchRead().then(function (ok) {
      if (!ok) return;
      try { sessionStorage.setItem('liarsd-operator', JSON.stringify(S.login)); } catch (e) { /* private mode */ }
      $('login').hidden = true;
      $('op').hidden = false;
      if (!S.client) start();
    });
  });

  L.loadConfig().then(function (cfg) {
    S.cfg = cfg;
    var q = new URLSearchParams(location.search);
    S.table = q.get('table') || cfg.table;
    if (!L.validTable(S.table)) { $('table-name').textContent = 'not a table id'; L.showConn($('conn'), 'unavailable'); return; }
    // Reads are this daemon's table's only.
    S.readable = S.table === cfg.table;
    try { S.login = JSON.parse(sessionStorage.getItem('liarsd-operator') || 'null'); } catch (e) { S.login = null; }
    render();
    fetchRead().then(function (ok) { if (ok) start(); });
  }).catch(function (e) {
    $('table-name').textContent = 'the operator page could not load its settings';
    if (root.console) console.error('operator:', e);
  });
})(window);
