// words.js: what the pages say about a table in words, shared by the
// table page, the venue dashboard and the stream overlay: the phase, the
// game and hand, the referee's status (with the camera's doubts), a
// resolution. Plain functions of cleaned payloads (live.js); no markup.
(function (root) {
  'use strict';
  var D = root.LiarsDraw;

  var PHASES = {
    idle: 'waiting for a game', opening: 'opening roll', bidding: 'bidding',
    reveal: 'reveal', game_over: 'game over'
  };

  // plural says a count with its noun: "1 die", "2 dice".
  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }

  // phase names the state's phase.
  function phase(st) { return (st && PHASES[st.phase]) || (st && st.phase) || PHASES.idle; }

  // gameWords says which game and hand: "game 4 · hand 2". The game's
  // number is the table's journal's: the state's game_number (a referee
  // before it had none: then number, the journal's count as the page
  // found it, or none); an endurance match counts its rounds; there is
  // no hand during an opening roll (hand 0). A perudo palifico hand says
  // so: "hand 5 (palifico)".
  function gameWords(st, number) {
    var parts = [];
    number = st.game_number || number;
    if (number) parts.push('game ' + number);
    if (st.wins && st.game) parts.push('round ' + st.game);
    if (st.hand > 0 && st.phase !== 'opening') parts.push('hand ' + st.hand + (st.palifico ? ' (palifico)' : ''));
    return parts.join(' \u00b7 ');
  }

  // cameraFailed says whether a vision message is a failed capture: the
  // referee publishes one with no seat and no die when the camera (or
  // reading its image) failed, and the dice are then awaited by hand.
  function cameraFailed(look) { return !!look && !look.seats.length && !look.dice.length; }

  // lookWords sums up a vision message: how many dice are in doubt and
  // at which seats, which seats' dice were not all seen, dice outside
  // every seat. "" for a failed capture.
  function lookWords(look) {
    if (!look) return '';
    var parts = [], seats = [], outside = 0;
    look.dice.forEach(function (d) {
      if (!d.seat) outside++;
      else if (seats.indexOf(d.seat) < 0) seats.push(d.seat);
    });
    var inSeats = look.dice.length - outside;
    if (inSeats) parts.push(plural(inSeats, 'die', 'dice') + ' in doubt (' + seats.join(', ') + ')');
    if (outside) parts.push(plural(outside, 'die', 'dice') + ' outside every seat');
    look.seats.forEach(function (c) {
      if (c.seen !== c.expected) parts.push(c.seat + ': ' + c.seen + ' of ' + plural(c.expected, 'die', 'dice') + ' seen');
    });
    return parts.join('; ');
  }

  // status says the referee's status when it is not simply ready:
  // {key, text}, or null. look is the vision message of this reveal, if
  // the page has it (the venue does not subscribe to it); else the
  // state's own summary of it.
  function status(st, look) {
    if (!st || !st.status || st.status === 'ready') return null;
    switch (st.status) {
      case 'reading':
        return { key: 'reading', text: st.phase === 'opening' ? 'reading the opening roll' : 'reading the dice' };
      case 'waiting for reveal':
        return { key: 'waiting', text: 'waiting for reveal' };
      case 'needs a look':
        look = look || st.look;
        if (cameraFailed(look)) return { key: 'waiting', text: 'waiting for reveal (the camera failed)' };
        var w = lookWords(look);
        return { key: 'look', text: 'needs a look' + (w ? ': ' + w : '') };
      case 'error':
        return { key: 'error', text: 'error' };
    }
    return { key: 'other', text: st.status };
  }

  // resultWords says a resolution (the events' resolved, the state's
  // last): "bob challenged ann's three stars: there were 2." star names
  // face 1 as the preset does. unread, when the reveal had dice the
  // camera did not read for sure, is {n: how many, count: the dice read
  // that count for the bid, or null when the page has no dice}: the
  // resolution's count took stand-ins for them, so it says "at least"
  // the dice read, or no count at all.
  function resultWords(ev, star, unread) {
    if (!ev || !ev.bid) return '';
    var call = ev.call === 'spot_on' ? 'called spot on' : 'challenged';
    var head = ev.caller + ' ' + call + ' ' + ev.bidder + '\u2019s ' + D.bidWords(ev.bid.quantity, ev.bid.face, star);
    if (unread && unread.n > 0) {
      if (typeof unread.count !== 'number') return head + '.';
      return head + (unread.count > 0 ? ': there were at least ' + unread.count + '.' : ': none among the dice read.');
    }
    return head + ': there ' + (ev.count === 1 ? 'was ' : 'were ') + ev.count + '.';
  }

  // notReadWords says that n dice of a reveal were not read for sure, and
  // why the referee went on: "1 die not read: it could not change the
  // result". "" for none.
  function notReadWords(n) {
    if (!(n > 0)) return '';
    return plural(n, 'die', 'dice') + ' not read: ' + (n === 1 ? 'it' : 'they') + ' could not change the result';
  }

  // loserWords names who lost (or gained) by a resolution, for a line that
  // must say it first: "ann loses a die", "bob loses 2 dice, cy gains 1".
  function loserWords(ev) {
    var parts = Object.keys(ev.dice || {}).map(function (k) {
      var d = ev.dice[k];
      if (d > 0) return k + ' gains ' + plural(d, 'die', 'dice');
      return k + ' loses ' + (d === -1 ? 'a die' : plural(-d, 'die', 'dice'));
    });
    if (ev.out && ev.out.length) parts.push(ev.out.join(', ') + (ev.out.length === 1 ? ' is' : ' are') + ' out');
    return parts.join(', ');
  }

  // changesWords says what a resolution changed: dice lost and won, seats
  // out, chips taken.
  function changesWords(ev) {
    var changes = Object.keys(ev.dice || {}).map(function (k) {
      var d = ev.dice[k];
      return k + ' ' + (d > 0 ? '+' : '\u2212') + plural(Math.abs(d), 'die', 'dice');
    });
    if (ev.out && ev.out.length) changes.push(ev.out.join(', ') + ' out');
    if (ev.payout) Object.keys(ev.payout).forEach(function (k) { changes.push(k + ' takes ' + ev.payout[k] + ' chips'); });
    return changes.join(' \u00b7 ');
  }

  // lastOf is the state's last resolution when it belongs to the game on
  // the table: none during a new game's opening roll (the referee keeps
  // the last game's until the first hand starts), none for folds.
  function lastOf(st) {
    if (!st || !st.last || st.last.call === 'fold' || !st.last.bid) return null;
    if (st.phase === 'opening' || !(st.hand > 0)) return null;
    return st.last;
  }

  // sameSeats says whether two states seat the same players.
  function sameSeats(a, b) {
    var x = (a.seats || []).map(function (s) { return s.name; }).join('\u0000');
    var y = (b.seats || []).map(function (s) { return s.name; }).join('\u0000');
    return x === y;
  }

  // newGame says whether st, coming after prev, is another game: the
  // table went from idle or game over into play, its game or hand count
  // went back, an opening roll began, or other players sat down.
  function newGame(prev, st) {
    if (!prev || !st || !st.rules) return false;
    if (!prev.rules || prev.phase === 'idle') return st.phase !== 'idle';
    if (prev.phase === 'game_over' && st.phase !== 'game_over') return true;
    if (prev.rules !== st.rules || !sameSeats(prev, st)) return true;
    if (st.game < prev.game) return true;
    if (st.game === prev.game && st.hand < prev.hand) return true;
    return st.phase === 'opening' && prev.phase !== 'opening';
  }

  root.LiarsWords = {
    plural: plural, phase: phase, gameWords: gameWords, status: status, lookWords: lookWords,
    cameraFailed: cameraFailed, resultWords: resultWords, changesWords: changesWords, lastOf: lastOf, newGame: newGame,
    notReadWords: notReadWords, loserWords: loserWords
  };
})(window);
