// scoreboard.js: one table, live. The retained state topic draws the
// seats, the turn and the bid; the events topic brings the reveals and
// results; the status topic says when the table is offline. The journal's
// history (api/history) fills in what happened before the page opened.
(function () {
  'use strict';
  var D = window.LiarsDraw, O = window.LiarsOdds, L = window.LiarsLive, W = window.LiarsWords, el = D.el;

  var S = {
    cfg: null, table: '', state: null, status: '', conn: 'connecting',
    items: [], maxSeq: 0, pendingReveal: null, lastResult: null, winner: null, winnerSeq: 0, local: false,
    look: null, histRules: null,
    // handPalifico: whether the hand the events are in is a perudo
    // palifico hand (its hand_started says), null before one is seen.
    handPalifico: null,
    // gameNumber is the game's number in the table's journal (api/history),
    // null while unknown; gameFrom is the seq after which the game on the
    // table began; awaitingHand: a new game seen in the state whose first
    // hand has not started (an opening roll).
    gameNumber: null, gameFrom: 0, awaitingHand: false
  };
  var $ = function (id) { return document.getElementById(id); };

  // star says whether face 1 is the star: from the live state, or before
  // it comes (no broker, a table gone quiet) from the journal's game.
  function star() {
    if (S.state && S.state.rules) return !!S.state.star_die;
    return !!(S.histRules && S.histRules.star_die);
  }

  // render draws every part; a part that fails (a bug, never a payload:
  // those are cleaned on arrival) leaves the others drawn.
  function render() {
    [renderHeader, renderSeats, renderBid, renderResult, renderHistory].forEach(function (f) {
      try { f(); } catch (e) { if (window.console) console.error('scoreboard:', e); }
    });
  }

  function renderHeader() {
    $('table-name').textContent = S.table;
    var st = S.state, meta = $('meta');
    meta.textContent = '';
    if (st && st.rules) {
      meta.appendChild(el('span', 'rules', st.rules));
      var gh = W.gameWords(st, S.gameNumber);
      if (gh) meta.appendChild(el('span', 'gh', gh));
      if (st.palifico) meta.appendChild(el('span', 'palifico', 'palifico hand: ones not wild, the face stays'));
      meta.appendChild(el('span', 'phase', W.phase(st)));
      // The referee's own status: reading the dice, waiting for them (no
      // camera, or it failed), a read that needs a look, an error.
      var status = W.status(st, S.look);
      if (status) {
        var rs = el('span', 'ref-status ref-' + status.key, status.text);
        rs.setAttribute('data-status', st.status);
        meta.appendChild(rs);
      }
      if (st.pot !== undefined && st.pot !== null) meta.appendChild(el('span', 'pot', 'pot ' + st.pot));
      if (st.stake !== undefined && st.stake !== null) meta.appendChild(el('span', 'stake', 'stake ' + st.stake));
      if (st.running_pot) meta.appendChild(el('span', 'pot', 'running pot ' + st.running_pot));
    } else if (st) {
      meta.appendChild(el('span', 'phase', W.phase(null)));
    }
    var look = $('look'), lk = S.look || (st && st.look);
    look.hidden = !(st && st.status === 'needs a look' && lk && lk.message);
    if (!look.hidden) {
      look.textContent = W.cameraFailed(lk) ? 'Waiting for reveal: the camera failed (' + lk.message + ')'
        : 'The camera needs a look: ' + (W.lookWords(lk) || lk.message);
    }
    var off = S.status === 'offline';
    $('offline').hidden = !off;
    document.body.classList.toggle('table-offline', off);
    var w = $('winner');
    w.hidden = !(st && st.phase === 'game_over' && S.winner);
    if (!w.hidden) w.textContent = S.winner + ' wins!';
  }

  function renderSeats() {
    var box = $('seats'), st = S.state;
    box.textContent = '';
    if (!st) return;
    var bidder = st.bid ? st.bid.seat : null, caller = st.call ? st.call.caller : null;
    (st.seats || []).forEach(function (s) {
      var card = el('div', 'seat');
      card.setAttribute('data-seat', s.name);
      card.setAttribute('data-dice', String(s.dice));
      if (st.turn === s.name) { card.classList.add('turn'); card.setAttribute('data-turn', '1'); }
      if (s.out || s.left) card.classList.add('out');
      var head = el('div', 'seat-head');
      head.appendChild(el('span', 'name', s.name));
      if (s.computer) head.appendChild(el('span', 'badge computer', 'computer'));
      if (st.turn === s.name) head.appendChild(el('span', 'badge turn-badge', 'to play'));
      if (bidder === s.name) head.appendChild(el('span', 'badge bidder', 'bid'));
      if (caller === s.name) head.appendChild(el('span', 'badge caller', st.call.call === 'spot_on' ? 'spot on!' : 'liar!'));
      if (s.left) head.appendChild(el('span', 'badge', 'left'));
      else if (s.out) head.appendChild(el('span', 'badge', 'out'));
      card.appendChild(head);
      // A seat out of the game keeps a small card: no dice, no big 0.
      if (!(s.out || s.left)) {
        var row = el('div', 'seat-dice');
        row.appendChild(el('span', 'count', s.dice));
        var dice = el('div', 'dice');
        var shown = s.shown || [];
        shown.forEach(function (f) { dice.appendChild(D.die(f, { star: star(), shown: true })); });
        for (var i = shown.length; i < s.dice; i++) dice.appendChild(D.die(0));
        row.appendChild(dice);
        card.appendChild(row);
      }
      var foot = el('div', 'seat-foot');
      if (s.chips !== undefined && s.chips !== null) foot.appendChild(el('span', 'chips', s.chips + ' chips'));
      if (st.wins && st.wins[s.name] !== undefined) foot.appendChild(el('span', 'wins', st.wins[s.name] + ' won'));
      if (foot.childNodes.length) card.appendChild(foot);
      box.appendChild(card);
    });
  }

  function renderBid() {
    var st = S.state, bid = $('bid'), chance = $('chance'), trackBox = $('track');
    bid.textContent = ''; chance.textContent = ''; trackBox.textContent = '';
    bid.removeAttribute('data-quantity'); bid.removeAttribute('data-face');
    if (!st) return;
    var total = O.inPlay(st).reduce(function (n, s) { return n + s.dice; }, 0);
    trackBox.appendChild(D.track(total, st.bid, star(), st.rules === 'perudo' && !!st.wild));
    if (!st.bid) {
      bid.appendChild(el('span', 'none', st.phase === 'bidding' ? (st.turn ? st.turn + ' opens the bidding' : 'no bid yet') : 'no bid'));
      return;
    }
    bid.setAttribute('data-quantity', String(st.bid.quantity));
    bid.setAttribute('data-face', String(st.bid.face));
    bid.appendChild(el('span', 'q', st.bid.quantity));
    bid.appendChild(el('span', 'x', '\u00d7'));
    bid.appendChild(D.die(st.bid.face, { star: star() }));
    bid.appendChild(el('span', 'who', st.bid.seat + ': ' + D.bidWords(st.bid.quantity, st.bid.face, star())));
    var c = O.bidChance(st);
    if (c) {
      chance.setAttribute('data-chance', c.chance.toFixed(6));
      chance.appendChild(el('span', 'big', O.percent(c.chance)));
      chance.appendChild(el('span', 'small', ' chance the bid is true (exactly: ' + O.percent(c.exactly) + '), with ' +
        c.hidden + ' hidden dice' + (c.known ? ' and ' + c.known + ' shown that count' : '') +
        (st.palifico ? ' (palifico: ones are not wild)' : '')));
    }
  }

  function renderResult() {
    var box = $('result'), r = S.lastResult, last = W.lastOf(S.state);
    box.textContent = '';
    box.removeAttribute('data-count');
    if (last && r && typeof last.seq === 'number' && !(r.resolved.seq >= last.seq)) r = null; // the state knows a later one
    if (!r && last) {
      // Opened after the reveal: the referee's state still says what the
      // last call found, without the dice.
      r = { resolved: S.state.last, dice: null, shown: {}, rules: S.state, unconfirmed: S.state.last_unconfirmed || null };
    }
    if (!r) { box.appendChild(el('p', 'none', 'no reveal yet')); return; }
    var ev = r.resolved, st = r.rules, isStar = !!st.star_die;
    box.setAttribute('data-count', String(ev.count));
    box.setAttribute('data-seq', String(ev.seq));
    if (r.corrected) {
      box.setAttribute('data-corrected', 'true');
      box.appendChild(el('p', 'result-corrected', 'corrected by the operator'));
    } else {
      box.removeAttribute('data-corrected');
    }
    // Dice the camera did not read for sure: the resolution's count took
    // stand-ins for them; the page counts only the dice read.
    var notRead = L.notRead(r.unconfirmed), read = r.dice ? O.readOnly(r.dice, r.unconfirmed) : null;
    var readCount = read ? O.countOf(ev.bid.face, read, st) : null;
    box.setAttribute('data-not-read', String(notRead));
    box.appendChild(el('p', 'result-head', W.resultWords(ev, isStar, notRead ? { n: notRead, count: readCount } : null)));
    var changes = W.changesWords(ev);
    if (changes) box.appendChild(el('p', 'result-changes', changes));
    if (notRead) box.appendChild(el('p', 'result-unread', W.notReadWords(notRead)));
    if (!r.dice) return;
    var grid = el('div', 'reveal');
    Object.keys(r.dice).forEach(function (seat) {
      var row = el('div', 'reveal-seat');
      row.setAttribute('data-seat', seat);
      row.appendChild(el('span', 'name', seat));
      var dice = el('div', 'dice');
      r.dice[seat].forEach(function (f, i) {
        var unread = L.isUnread(r.unconfirmed, seat, i);
        dice.appendChild(D.die(f, { star: isStar, unread: unread, hit: !unread && O.matches(ev.bid.face, f, st) }));
      });
      row.appendChild(dice);
      grid.appendChild(row);
    });
    box.appendChild(grid);
    var count = notRead ? readCount : ev.count;
    var oc = O.outcomeChance(ev.bid, count, read, r.shown, st);
    var how = el('p', 'result-chance');
    how.setAttribute('data-chance', oc.chance.toFixed(6));
    how.textContent = 'How likely: ' + O.percent(oc.chance) + ' for ' + (oc.direction === 'at_least' ? count + ' or more' : count + ' or fewer') +
      (notRead ? ' of the ' + W.plural(oc.total, 'die', 'dice') + ' read' : '') + ' (about ' + oc.expected.toFixed(1) + ' expected)';
    box.appendChild(how);
  }

  function itemText(it) {
    var isStar = star();
    switch (it.type) {
      case 'hand_started': return 'Hand ' + it.hand + (it.game > 1 ? ' (round ' + it.game + ')' : '') + ': ' + it.opener + ' opens' +
        (it.palifico ? ' a palifico hand' : '');
      case 'bid': return it.seat + ' bids ' + D.bidWords(it.quantity, it.face, isStar) + (it.stake ? ' (stake ' + it.stake + ')' : '');
      case 'show': return it.seat + ' shows ' + W.plural((it.shown || []).length, 'die', 'dice');
      case 'challenge': return it.seat + ' calls liar';
      case 'spot_on': return it.seat + ' calls spot on';
      case 'all_in': return it.seat + ' goes all in';
      case 'fold': return it.seat + ' folds';
      case 'leave': case 'left': return it.seat + ' leaves';
      case 'folded': return it.seat + ' folded' + (it.out && it.out.length ? ' and is out' : '');
      case 'revealed': return 'Reveal' + (it.unconfirmed ? ' (' + W.notReadWords(L.notRead(it.unconfirmed)) + ')' : '');
      case 'corrected': return 'Reveal corrected by the operator (hand ' + it.hand + '): the result below replaces the one before';
      case 'resolved':
        if (it.call === 'fold') return 'Hand ends by folds';
        if (!it.bid) return null;
        return (it.notRead ? (it.readCount ? 'At least ' + it.readCount : 'None') + ' among the dice read' : 'There ' + (it.count === 1 ? 'was ' : 'were ') + it.count) +
          ' \u2013 ' + Object.keys(it.dice || {}).map(function (k) {
          return k + ' ' + (it.dice[k] > 0 ? '+' : '\u2212') + Math.abs(it.dice[k]);
        }).join(', ') + (it.out && it.out.length ? '; out: ' + it.out.join(', ') : '');
      case 'game_over': return it.winner + ' wins' + (it.pot ? ' the pot of ' + it.pot : '') + (it.game > 1 ? ' (round ' + it.game + ')' : '');
      case 'match_over': return it.winner + ' wins the match';
      case 'bluff_check': return it.seat + ' tries a bluff on ' + it.target + (it.success ? ': it works' : ': it fails');
      case 'opening_roll': return 'Opening roll';
      case 'rejected': return null;
    }
    return null;
  }

  function renderHistory() {
    var list = $('history');
    list.textContent = '';
    S.items.slice(-60).reverse().forEach(function (it) {
      var t = itemText(it);
      if (!t) return;
      var li = el('li', 'item item-' + it.type, t);
      li.setAttribute('data-type', it.type);
      if (it.type === 'revealed' && it.dice) {
        var dice = el('span', 'dice small');
        Object.keys(it.dice).forEach(function (k) {
          it.dice[k].forEach(function (f, i) { dice.appendChild(D.die(f, { star: star(), unread: L.isUnread(it.unconfirmed, k, i) })); });
        });
        li.appendChild(dice);
      }
      list.appendChild(li);
    });
  }

  function shownOf(st) {
    var out = {};
    ((st && st.seats) || []).forEach(function (s) { if (s.shown && s.shown.length) out[s.name] = s.shown.slice(); });
    return out;
  }

  // takeEvent folds an event into the page; repeats (QoS 1) are dropped.
  function takeEvent(ev, fromHistory) {
    if (!ev || typeof ev.type !== 'string') return;
    // Events come in seq order and are never lost; QoS 1 may repeat one,
    // and seq tells a repeat.
    if (ev.seq) {
      if (ev.seq <= S.maxSeq) return;
      // A gap (events published while the page was not subscribed): the
      // journal has them.
      if (!fromHistory && S.maxSeq > 0 && ev.seq > S.maxSeq + 1) reloadHistory();
      S.maxSeq = ev.seq;
    }
    switch (ev.type) {
      case 'hand_started':
        // A game's first hand: another game, unless the state already
        // said so at its opening roll.
        if (ev.game === 1 && ev.hand === 1 && !fromHistory && !S.awaitingHand) startGame((ev.seq || S.maxSeq) - 1);
        S.awaitingHand = false;
        S.handPalifico = ev.palifico === true;
        break;
      case 'corrected':
        // The hand is resolved again: its result and any winner it made
        // are void; the events that follow are the hand's result now.
        S.correcting = true;
        if (S.winner && S.winnerSeq < (ev.seq || 0)) { S.winner = null; S.winnerSeq = 0; }
        break;
      case 'revealed':
        S.pendingReveal = { dice: ev.dice || {}, shown: ev.shown || shownOf(S.state), unconfirmed: ev.unconfirmed || null };
        break;
      case 'resolved':
        if (ev.call !== 'fold' && S.pendingReveal && ev.bid && typeof ev.count === 'number') {
          var r = S.state || S.histRules || {};
          // The state may already be the next hand's: in perudo, ones are
          // wild in every hand but a palifico one, which its hand_started
          // event says.
          var palifico = S.handPalifico === null ? !!r.palifico : S.handPalifico;
          var wild = r.rules === 'perudo' ? !palifico : !!r.wild;
          var rules = { sides: r.sides || 6, star_die: !!r.star_die, wild: wild };
          S.lastResult = {
            resolved: ev, dice: S.pendingReveal.dice, shown: S.pendingReveal.shown, unconfirmed: S.pendingReveal.unconfirmed,
            rules: rules, corrected: !!S.correcting
          };
          if (S.pendingReveal.unconfirmed) {
            // The history's line counts the dice read, not the stand-ins.
            ev.notRead = L.notRead(S.pendingReveal.unconfirmed);
            ev.readCount = O.countOf(ev.bid.face, O.readOnly(S.pendingReveal.dice, S.pendingReveal.unconfirmed), rules);
          }
        }
        S.pendingReveal = null;
        S.correcting = false;
        break;
      case 'game_over':
      case 'match_over':
        S.winner = ev.winner; S.winnerSeq = ev.seq || 0;
        if (!fromHistory) loadRecords();
        break;
    }
    S.items.push(ev);
  }

  // startGame forgets what belongs to the games before the one that began
  // after seq from: their history, their last result, their winner. It
  // may be told the same start twice (by the events, then the state): what
  // came after from stays. The journal then says the game's number.
  function startGame(from) {
    if (from < S.gameFrom) return;
    var again = from === S.gameFrom;
    S.gameFrom = from;
    S.items = S.items.filter(function (it) { return it.seq && it.seq > from; });
    if (S.lastResult && !(S.lastResult.resolved.seq > from)) S.lastResult = null;
    if (S.winner && !(S.winnerSeq > from)) { S.winner = null; S.winnerSeq = 0; }
    S.pendingReveal = null;
    if (!again) {
      if (S.gameNumber) S.gameNumber++;
      if (S.local) reloadHistory();
    }
  }

  var reloading = null;
  // reloadHistory asks the journal again, once things have settled.
  function reloadHistory() {
    clearTimeout(reloading);
    reloading = setTimeout(loadHistory, 300);
  }

  function sameBid(a, b) {
    return !!a && !!b && a.seat === b.seat && a.quantity === b.quantity && a.face === b.face;
  }

  // takeState draws a new state; a new bid or call becomes a history line.
  function takeState(st) {
    var prev = S.state;
    if (typeof st.seq === 'number' && st.seq < S.maxSeq) {
      // A table started afresh (a new journal): its seq begins again.
      S.maxSeq = st.seq; S.items = []; S.lastResult = null; S.pendingReveal = null; S.winner = null;
      S.gameFrom = 0; S.gameNumber = null;
      prev = null;
      if (S.local) reloadHistory();
    }
    if (W.newGame(prev, st)) {
      startGame(typeof prev.seq === 'number' ? prev.seq : S.maxSeq);
      if (st.phase === 'opening') S.awaitingHand = true;
    }
    // The camera's doubts belong to the reveal that needed a look.
    if (st.status !== 'needs a look') S.look = null;
    // The state is published after its events: one ahead of the events
    // seen means some were missed (the page subscribed after them).
    if (S.local && typeof st.seq === 'number' && st.seq > S.maxSeq) reloadHistory();
    if (prev && st.bid && !sameBid(prev.bid, st.bid)) {
      S.items.push({ type: 'bid', seat: st.bid.seat, quantity: st.bid.quantity, face: st.bid.face, fromState: true });
    }
    if (prev && st.hand === prev.hand) {
      (st.seats || []).forEach(function (seat) {
        var before = (prev.seats || []).filter(function (x) { return x.name === seat.name; })[0];
        var had = before && before.shown ? before.shown.length : 0;
        if (seat.shown && seat.shown.length > had) S.items.push({ type: 'show', seat: seat.name, shown: seat.shown.slice(had), fromState: true });
      });
    }
    if (prev && st.call && !prev.call) S.items.push({ type: st.call.call === 'spot_on' ? 'spot_on' : 'challenge', seat: st.call.caller, fromState: true });
    S.state = st;
    render();
  }

  function onMessage(topic, text) {
    var base = S.cfg.prefix + '/' + S.table + '/';
    if (topic === base + 'status') { S.status = text.trim(); render(); return; }
    if (topic === base + 'vision') {
      // The camera's doubts while a reveal needs a look (no face in it).
      var look = null;
      try { look = L.cleanLook(JSON.parse(text)); } catch (e) { look = null; }
      S.look = look;
      render();
      return;
    }
    if (topic === base + 'state' && text === '') { S.state = null; render(); return; } // retained state cleared
    var v;
    try { v = JSON.parse(text); } catch (e) { return; }
    // Only what MQTT.md and RECORD.md define, of the right types, gets
    // further (live.js): anything else on the topics is left out.
    if (topic === base + 'state') {
      var st = L.cleanState(v);
      if (st) takeState(st);
    } else if (topic === base + 'events') {
      var ev = L.cleanEvent(v);
      if (ev) { takeEvent(ev, false); render(); }
    }
  }

  // loadHistory fills in the current game from the journal; live events
  // that arrived meanwhile are kept when the journal does not have them.
  function loadHistory() {
    if (!S.local) return Promise.resolve();
    return fetch('api/history', { cache: 'no-store' }).then(function (r) { return r.ok ? r.json() : null; }).then(function (h) {
      if (!h || !h.items) return;
      S.histRules = h.dice;
      S.gameNumber = h.game ? h.game.number : null;
      var live = S.items;
      S.items = []; S.maxSeq = 0; S.lastResult = null; S.winner = null; S.winnerSeq = 0;
      if (h.game) S.gameFrom = Math.max(0, h.game.first_seq - 1);
      h.items.forEach(function (raw) {
        var it = L.cleanEvent(raw);
        if (!it) return;
        if (it.seq) takeEvent(it, true);
        else { it.fromHistory = true; S.items.push(it); }
      });
      // What came live since: events by seq; the lines drawn from the
      // state only when the journal has nothing (it holds them all), and
      // never the last history's own lines again.
      live.forEach(function (it) {
        if (it.seq) takeEvent(it, false);
        else if (!it.fromHistory && (!it.fromState || !h.items.length)) S.items.push(it);
      });
      if (h.game && h.game.finished && !S.winner) S.winner = h.game.winner;
      render();
    }).catch(function () {});
  }

  function loadRecords() {
    var box = $('records');
    if (!S.local) { $('records-panel').hidden = true; return; }
    fetch('api/games', { cache: 'no-store' }).then(function (r) { return r.ok ? r.json() : null; }).then(function (g) {
      box.textContent = '';
      var done = ((g && g.games) || []).filter(function (x) { return x.finished; }).reverse();
      if (!done.length) { box.appendChild(el('li', 'none', 'no finished game yet')); return; }
      done.slice(0, 20).forEach(function (x) {
        var li = el('li', 'record');
        var a = el('a', '', 'Game ' + x.number + ': ' + x.rules + ', ' + x.seats.join(', ') + ' \u2013 ' + x.winner + ' won');
        a.href = 'api/games/' + x.number + '/record.jsonl';
        a.setAttribute('download', S.table + '-game-' + x.number + '.jsonl');
        li.appendChild(a);
        box.appendChild(li);
      });
    }).catch(function () {});
  }

  // loadLink shows the QR code that opens this table's page on a phone.
  // There is none when no phone can reach the server (it listens on
  // loopback only and has no web.public_url: link.json says why).
  function loadLink() {
    var q = 'table=' + encodeURIComponent(S.table);
    fetch('link.json?' + q, { cache: 'no-store' }).then(function (r) { return r.json(); }).then(function (l) {
      if (!l || typeof l.url !== 'string') return;
      var img = $('qr'), text = $('qr-url');
      img.src = 'qr.svg?' + q;
      img.hidden = false;
      text.textContent = l.url;
      text.setAttribute('data-url', l.url);
      $('qr-panel').hidden = false;
    }).catch(function () {});
  }

  L.loadConfig().then(function (cfg) {
    S.cfg = cfg;
    var q = new URLSearchParams(location.search);
    S.table = q.get('table') || cfg.table;
    if (!L.validTable(S.table)) {
      // Not a table id: in a topic it would be a filter over other tables.
      L.showConn($('conn'), 'unavailable');
      $('conn').textContent = 'no such table: ' + S.table;
      return;
    }
    S.local = !!cfg.journal && S.table === cfg.table;
    document.title = S.table + ' \u00b7 Liar\u2019s Dice';
    if (S.table !== cfg.table) $('overlay-link').href = 'overlay?table=' + encodeURIComponent(S.table);
    render();
    loadRecords();
    loadHistory();
    loadLink();
    var base = cfg.prefix + '/' + S.table + '/';
    L.connect(L.brokerURL(cfg), [base + 'state', base + 'status', base + 'events', base + 'vision'], onMessage, function (c) {
      // Subscribed (again): the journal fills in what was published
      // before, or while the connection was lost.
      if (c === 'live' && S.conn !== 'live') reloadHistory();
      S.conn = c;
      L.showConn($('conn'), c);
    });
  }).catch(function (e) {
    L.showConn($('conn'), 'unavailable');
    $('conn').textContent = String(e);
  });
})();
