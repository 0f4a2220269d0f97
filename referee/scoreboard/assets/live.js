// live.js: the connection to the broker, shared by the table page and the
// venue dashboard. MQTT over WebSocket with MQTT.js; it reconnects by
// itself and reports its state to onConn.
(function (root) {
  'use strict';

  // loadConfig fetches the daemon's settings for the page.
  function loadConfig() {
    return fetch('config.json', { cache: 'no-store' }).then(function (r) {
      if (!r.ok) throw new Error('config.json: HTTP ' + r.status);
      return r.json();
    });
  }

  // brokerURL picks the broker's WebSocket address: ?broker= wins; a
  // broker on this machine (loopback or any address) is reached at the
  // host the page came from, so a phone on the venue's network finds it.
  function brokerURL(cfg) {
    var q = new URLSearchParams(location.search);
    if (q.get('broker')) return q.get('broker');
    if (!cfg.websocket) return null;
    var u = new URL(cfg.websocket);
    if (cfg.websocket_page_host && location.hostname) u.hostname = location.hostname;
    return u.toString();
  }

  // connect subscribes to topics and calls onMessage(topic, text) for each
  // message and onConn(state) with 'connecting', 'live', 'reconnecting',
  // 'refused' (the broker denied the topics) or 'unavailable'. login,
  // when given ({username, password}), is the broker account (the
  // operator page's, to send commands).
  function connect(url, topics, onMessage, onConn, login) {
    if (!url) { onConn('unavailable'); return null; }
    var id = 'liarsd-page-' + Math.random().toString(16).slice(2, 10);
    var opts = {
      clientId: id, clean: true, reconnectPeriod: 1000, connectTimeout: 5000,
      protocolVersion: 4, keepalive: 20
    };
    if (login && login.username) { opts.username = login.username; opts.password = login.password; }
    var client = root.mqtt.connect(url, opts);
    onConn('connecting');
    // 'live' once the broker has granted the subscription, not at the
    // connection: until then an event published is not the page's.
    client.on('connect', function () {
      client.subscribe(topics, { qos: 1 }, function (err, granted) {
        var refused = err || (granted || []).some(function (g) { return g.qos === 128; });
        onConn(refused ? 'refused' : 'live');
      });
    });
    client.on('reconnect', function () { onConn('reconnecting'); });
    client.on('offline', function () { onConn('reconnecting'); });
    client.on('close', function () { onConn('reconnecting'); });
    client.on('error', function () { onConn('reconnecting'); });
    client.on('message', function (topic, payload) {
      var text;
      try { text = new TextDecoder().decode(payload); } catch (e) { return; }
      try { onMessage(topic, text); } catch (e) { if (root.console) console.error('scoreboard:', e); }
    });
    return client;
  }

  var CONN_TEXT = {
    connecting: 'connecting\u2026', live: 'live', reconnecting: 'connection lost \u2013 reconnecting\u2026',
    unavailable: 'no broker configured for browsers',
    refused: 'the broker refused the subscription'
  };

  function showConn(node, state) {
    document.body.classList.toggle('disconnected', state !== 'live');
    node.className = 'conn conn-' + state;
    node.textContent = CONN_TEXT[state] || state;
    node.setAttribute('data-conn', state);
  }

  // What a page accepts from the broker. Anything may be published on a
  // broker (another program, an older referee, a typo at mosquitto_pub):
  // cleanState and cleanEvent keep the fields MQTT.md and RECORD.md
  // define, of the types they define, within bounds a page can draw, and
  // drop the rest; not an object at all gives null. Names stay strings
  // and are only ever drawn as text.
  var MAX_SEATS = 64, MAX_DICE = 100, MAX_FACE = 100, MAX_QUANTITY = MAX_SEATS * MAX_DICE;

  function isObj(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }
  function str(v) { return typeof v === 'string' ? v : null; }
  function num(v) { return typeof v === 'number' && isFinite(v) ? v : null; }
  function int(v, lo, hi) { return typeof v === 'number' && Math.floor(v) === v && v >= lo && v <= hi ? v : null; }
  function faces(v) {
    if (!Array.isArray(v)) return null;
    return v.filter(function (f) { return int(f, 1, MAX_FACE) !== null; }).slice(0, MAX_DICE);
  }
  // numbers keeps an object's numeric values: {seat: number}.
  function numbers(v) {
    var out = {};
    if (!isObj(v)) return out;
    Object.keys(v).slice(0, MAX_SEATS).forEach(function (k) { if (num(v[k]) !== null) out[k] = v[k]; });
    return out;
  }
  function names(v) { return Array.isArray(v) ? v.filter(function (x) { return typeof x === 'string'; }).slice(0, MAX_SEATS) : []; }
  // positions keeps a reveal's unconfirmed dice ({seat: [positions]}, in
  // increasing order), each below its seat's number of dice (dice, when
  // given: {seat: [faces]}); null when none is left.
  function positions(v, dice) {
    if (!isObj(v)) return null;
    var out = {}, any = false;
    Object.keys(v).slice(0, MAX_SEATS).forEach(function (k) {
      if (!Array.isArray(v[k]) || (dice && !dice[k])) return;
      var n = dice ? dice[k].length : MAX_DICE, last = -1;
      var at = v[k].filter(function (p) {
        var ok = int(p, 0, n - 1) !== null && p > last;
        if (ok) last = p;
        return ok;
      }).slice(0, MAX_DICE);
      if (at.length) { out[k] = at; any = true; }
    });
    return any ? out : null;
  }
  function cleanBid(v) {
    if (!isObj(v)) return null;
    var q = int(v.quantity, 1, MAX_QUANTITY), f = int(v.face, 1, MAX_FACE);
    if (q === null || f === null) return null;
    return { seat: str(v.seat), quantity: q, face: f };
  }
  // cleanResolved keeps a resolution (the events' resolved, the state's
  // last): null when it has no call.
  function cleanResolved(v) {
    if (!isObj(v) || typeof v.call !== 'string') return null;
    var out = {
      call: v.call, bidder: str(v.bidder), caller: str(v.caller), bid: cleanBid(v.bid),
      count: int(v.count, 0, MAX_QUANTITY), dice: numbers(v.dice), out: names(v.out)
    };
    if (isObj(v.payout)) out.payout = numbers(v.payout);
    if (num(v.running_pot) !== null) out.running_pot = v.running_pot;
    if (num(v.seq) !== null) out.seq = v.seq;
    if (v.call !== 'fold' && (!out.bid || out.count === null || out.caller === null || out.bidder === null)) {
      out.bid = null; // not a call a page can tell
    }
    return out;
  }

  function cleanState(v) {
    if (!isObj(v)) return null;
    var st = {
      seq: num(v.seq), rules: str(v.rules), game: int(v.game, 0, 1e9), hand: int(v.hand, 0, 1e9),
      phase: str(v.phase), turn: str(v.turn), status: str(v.status),
      sides: int(v.sides, 2, MAX_FACE) || 6, star_die: v.star_die === true, wild: v.wild === true,
      palifico: v.palifico === true,
      bid: cleanBid(v.bid), seats: [], last: cleanResolved(v.last), call: null
    };
    if (st.bid && st.bid.seat === null) st.bid = null;
    if (typeof v.calza === 'boolean') st.calza = v.calza;
    // The game's number in the table's journal (every page shows it).
    if (int(v.game_number, 1, 1e9) !== null) st.game_number = v.game_number;
    // The dice of the last reveal the camera did not read for sure.
    var lu = st.last ? positions(v.last_unconfirmed, null) : null;
    if (lu) st.last_unconfirmed = lu;
    ['pot', 'stake', 'running_pot'].forEach(function (k) { if (num(v[k]) !== null) st[k] = v[k]; });
    if (isObj(v.wins)) st.wins = numbers(v.wins);
    if (isObj(v.call) && typeof v.call.caller === 'string') st.call = { caller: v.call.caller, call: str(v.call.call) };
    // What the camera doubts while the status is needs a look (no face).
    if (isObj(v.look)) st.look = cleanLook(v.look);
    var seen = {};
    (Array.isArray(v.seats) ? v.seats : []).forEach(function (s) {
      if (!isObj(s) || typeof s.name !== 'string' || seen[s.name] || st.seats.length >= MAX_SEATS) return;
      seen[s.name] = true;
      var dice = int(s.dice, 0, MAX_DICE) || 0;
      var seat = {
        name: s.name, dice: dice, out: s.out === true, left: s.left === true, computer: s.computer === true,
        shown: (faces(s.shown) || []).slice(0, dice)
      };
      if (typeof s.in_hand === 'boolean') seat.in_hand = s.in_hand;
      if (num(s.chips) !== null) seat.chips = s.chips;
      st.seats.push(seat);
    });
    return st;
  }

  // cleanEvent keeps an event of RECORD.md with its fields' types right;
  // null when it has no type.
  function cleanEvent(v) {
    if (!isObj(v) || typeof v.type !== 'string') return null;
    var ev = { type: v.type };
    if (int(v.seq, 1, Number.MAX_SAFE_INTEGER) !== null) ev.seq = v.seq;
    ['seat', 'opener', 'winner', 'target'].forEach(function (k) { if (typeof v[k] === 'string') ev[k] = v[k]; });
    ['game', 'hand', 'quantity', 'face', 'stake', 'pot'].forEach(function (k) { if (num(v[k]) !== null) ev[k] = v[k]; });
    if (typeof v.success === 'boolean') ev.success = v.success;
    switch (v.type) {
      case 'revealed':
        ev.dice = {};
        if (isObj(v.dice)) Object.keys(v.dice).slice(0, MAX_SEATS).forEach(function (k) { var f = faces(v.dice[k]); if (f) ev.dice[k] = f; });
        if (isObj(v.shown)) {
          ev.shown = {};
          Object.keys(v.shown).slice(0, MAX_SEATS).forEach(function (k) { var f = faces(v.shown[k]); if (f) ev.shown[k] = f; });
        }
        // Dice the camera did not read for sure: their faces in dice are
        // stand-ins, never to be shown as read.
        var u = positions(v.unconfirmed, ev.dice);
        if (u) ev.unconfirmed = u;
        break;
      case 'resolved':
        var r = cleanResolved(v);
        if (!r) return null;
        Object.keys(r).forEach(function (k) { ev[k] = r[k]; });
        break;
      case 'folded':
        ev.dice = numbers(v.dice); ev.out = names(v.out);
        break;
      case 'hand_started':
        ev.dice = numbers(v.dice);
        if (typeof v.palifico === 'boolean') ev.palifico = v.palifico;
        break;
      case 'show':
        ev.shown = faces(v.shown) || [];
        break;
    }
    return ev;
  }

  // cleanLook keeps a vision message (docs/mqtt.md: needs_a_look): the
  // message, the seats' counts, and each doubtful die's seat and reason;
  // nothing else (where the die lies is of no use to a page). A die's
  // face is never in it. null when it is not one.
  function cleanLook(v) {
    if (!isObj(v) || typeof v.message !== 'string') return null;
    var look = { message: v.message.slice(0, 500), game: int(v.game, 0, 1e9), hand: int(v.hand, 0, 1e9), seats: [], dice: [] };
    (Array.isArray(v.seats) ? v.seats : []).slice(0, MAX_SEATS).forEach(function (c) {
      if (!isObj(c) || typeof c.seat !== 'string') return;
      var e = int(c.expected, 0, MAX_DICE), s = int(c.seen, 0, MAX_QUANTITY);
      if (e !== null && s !== null) look.seats.push({ seat: c.seat, expected: e, seen: s });
    });
    (Array.isArray(v.dice) ? v.dice : []).slice(0, MAX_QUANTITY).forEach(function (d) {
      if (isObj(d)) look.dice.push({ seat: str(d.seat) || '', reason: str(d.reason) || '' });
    });
    return look;
  }

  // validTable says whether id is a table id of MQTT.md (letters, digits,
  // - and _): anything else would be a topic filter, not a table.
  function validTable(id) { return typeof id === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(id); }

  // notRead counts the dice of an unconfirmed list ({seat: [positions]}).
  function notRead(u) {
    var n = 0;
    Object.keys(u || {}).forEach(function (k) { n += u[k].length; });
    return n;
  }

  // isUnread says whether the die at position i of seat's dice is one of
  // the unconfirmed list u.
  function isUnread(u, seat, i) { return !!(u && u[seat] && u[seat].indexOf(i) >= 0); }

  root.LiarsLive = {
    validTable: validTable, loadConfig: loadConfig, brokerURL: brokerURL, connect: connect, showConn: showConn,
    cleanState: cleanState, cleanEvent: cleanEvent, cleanLook: cleanLook, notRead: notRead, isUnread: isUnread
  };
})(window);
