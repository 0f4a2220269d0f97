// odds.js: the chances a spectator sees, with every hidden die unknown.
//
// A bid of q dice showing face f is true when the dice in play show at
// least q of them (wild dice included). To a spectator each hidden die
// matches with probability p = 1/sides, or 2/sides for a face that is not
// the wild one when ones (or stars) are wild; a star bid counts stars
// only (1/6). Dice set out face up (star-board) are known and count as
// they show. So the count is known + Binomial(hidden, p).
//
// Tested against exact enumeration in referee/scoreboard (browser_test.go).
(function (root) {
  'use strict';

  // pmf returns P(X = k) for k = 0..n, X ~ Binomial(n, p).
  function pmf(n, p) {
    var out = new Array(n + 1);
    if (p <= 0) { for (var i = 0; i <= n; i++) out[i] = i === 0 ? 1 : 0; return out; }
    if (p >= 1) { for (var j = 0; j <= n; j++) out[j] = j === n ? 1 : 0; return out; }
    // Log space keeps large tables (100 dice and more) from underflowing.
    var lp = Math.log(p), lq = Math.log(1 - p), lc = 0;
    for (var k = 0; k <= n; k++) {
      if (k > 0) lc += Math.log(n - k + 1) - Math.log(k);
      out[k] = Math.exp(lc + k * lp + (n - k) * lq);
    }
    return out;
  }

  // atLeast is P(X >= k) for X ~ Binomial(n, p).
  function atLeast(n, k, p) {
    if (k <= 0) return 1;
    if (k > n) return 0;
    var m = pmf(n, p), s = 0;
    for (var i = k; i <= n; i++) s += m[i];
    return Math.min(1, s);
  }

  // atMost is P(X <= k) for X ~ Binomial(n, p).
  function atMost(n, k, p) {
    if (k < 0) return 0;
    if (k >= n) return 1;
    var m = pmf(n, p), s = 0;
    for (var i = 0; i <= k; i++) s += m[i];
    return Math.min(1, s);
  }

  // exactly is P(X = k) for X ~ Binomial(n, p).
  function exactly(n, k, p) {
    if (k < 0 || k > n) return 0;
    return pmf(n, p)[k];
  }

  function sidesOf(rules) { return rules.star_die ? 6 : (rules.sides || 6); }
  function wildOn(rules) { return !!(rules.star_die || rules.wild); }

  // matchProbability is the chance that one hidden die counts for face.
  function matchProbability(face, rules) {
    var sides = sidesOf(rules);
    if (wildOn(rules) && face !== 1) return 2 / sides;
    return 1 / sides;
  }

  // matches says whether a die showing die counts for a bid on face.
  function matches(face, die, rules) {
    return die === face || (wildOn(rules) && face !== 1 && die === 1);
  }

  // inPlay returns the seats whose dice are in the hand.
  function inPlay(state) {
    var seats = state.seats || [];
    var any = seats.some(function (s) { return s.in_hand; });
    return seats.filter(function (s) { return any ? s.in_hand : (!s.out && !s.left && s.dice > 0); });
  }

  // bidChance is what a spectator knows of the standing bid: null without
  // one, else {chance (P(count >= q)), exactly (P(count == q)), hidden,
  // known (shown dice that count), total}.
  function bidChance(state) {
    if (!state || !state.bid) return null;
    var rules = state, face = state.bid.face, q = state.bid.quantity;
    var total = 0, shown = 0, known = 0;
    inPlay(state).forEach(function (s) {
      total += s.dice;
      (s.shown || []).forEach(function (d) { shown++; if (matches(face, d, rules)) known++; });
    });
    var hidden = Math.max(0, total - shown), p = matchProbability(face, rules);
    return {
      chance: atLeast(hidden, q - known, p), exactly: exactly(hidden, q - known, p),
      hidden: hidden, known: known, total: total, p: p
    };
  }

  // outcomeChance is how likely the revealed count was beforehand: the
  // chance of that count or one further from the expected count, on the
  // side it fell. dice are the revealed dice by seat, shown the dice shown
  // face up before the call by seat. It gives {chance, direction
  // ('at_least' or 'at_most'), expected, total (the dice counted)}.
  function outcomeChance(bid, count, dice, shown, rules) {
    var total = 0, nShown = 0, known = 0;
    Object.keys(dice || {}).forEach(function (k) { total += dice[k].length; });
    Object.keys(shown || {}).forEach(function (k) {
      (shown[k] || []).forEach(function (d) { nShown++; if (matches(bid.face, d, rules)) known++; });
    });
    var hidden = Math.max(0, total - nShown), p = matchProbability(bid.face, rules);
    var expected = known + hidden * p;
    if (count >= expected) {
      return { chance: atLeast(hidden, count - known, p), direction: 'at_least', expected: expected, total: total };
    }
    return { chance: atMost(hidden, count - known, p), direction: 'at_most', expected: expected, total: total };
  }

  // countOf counts the dice that count for a bid on face.
  function countOf(face, dice, rules) {
    var c = 0;
    Object.keys(dice || {}).forEach(function (k) {
      dice[k].forEach(function (d) { if (matches(face, d, rules)) c++; });
    });
    return c;
  }

  // readOnly returns the revealed dice without those the camera did not
  // read for sure (unconfirmed: {seat: [positions]}), whose faces are
  // stand-ins: what a page may count as read.
  function readOnly(dice, unconfirmed) {
    var out = {};
    Object.keys(dice || {}).forEach(function (k) {
      var u = (unconfirmed && unconfirmed[k]) || [];
      out[k] = dice[k].filter(function (f, i) { return u.indexOf(i) < 0; });
    });
    return out;
  }

  // percent formats a probability for people: "42%", "<1%", ">99%".
  function percent(x) {
    if (x > 0 && x < 0.005) return '<1%';
    if (x < 1 && x > 0.995) return '>99%';
    return Math.round(x * 100) + '%';
  }

  root.LiarsOdds = {
    pmf: pmf, atLeast: atLeast, atMost: atMost, exactly: exactly,
    matchProbability: matchProbability, matches: matches, bidChance: bidChance,
    outcomeChance: outcomeChance, countOf: countOf, percent: percent, inPlay: inPlay, readOnly: readOnly
  };
})(typeof window !== 'undefined' ? window : this);
