// dice.js: drawing dice, bids and the bidding track, shared by the table
// page and the venue dashboard. Everything is built with DOM calls and
// textContent: names from the broker never become markup.
(function (root) {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function svgEl(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    return e;
  }

  var PIPS = {
    1: [[50, 50]],
    2: [[28, 28], [72, 72]],
    3: [[28, 28], [50, 50], [72, 72]],
    4: [[28, 28], [72, 28], [28, 72], [72, 72]],
    5: [[28, 28], [72, 28], [50, 50], [28, 72], [72, 72]],
    6: [[28, 26], [72, 26], [28, 50], [72, 50], [28, 74], [72, 74]]
  };

  function starPoints(cx, cy, r1, r2) {
    var pts = [];
    for (var i = 0; i < 10; i++) {
      var r = i % 2 === 0 ? r1 : r2, a = Math.PI / 2 + i * Math.PI / 5;
      pts.push((cx + r * Math.cos(a)).toFixed(1) + ',' + (cy - r * Math.sin(a)).toFixed(1));
    }
    return pts.join(' ');
  }

  // die draws one die: face 0 (or null) is a hidden die; star says face 1
  // is the star; hit marks a die that counts for the bid; unread draws a
  // revealed die the camera did not read for sure as a dashed outline
  // with "?", whatever face is given: its face is a stand-in, never shown.
  function die(face, opts) {
    opts = opts || {};
    if (opts.unread) face = 0;
    var s = svgEl('svg', { viewBox: '0 0 100 100', 'class': 'die' + (opts.unread ? ' unread' : face ? '' : ' hidden') + (opts.hit ? ' hit' : '') + (opts.shown ? ' shown' : ''), role: 'img' });
    s.setAttribute('data-face', face ? String(face) : '');
    if (opts.unread) s.setAttribute('data-unread', 'true');
    s.appendChild(svgEl('rect', { x: 4, y: 4, width: 92, height: 92, rx: 18, 'class': 'body' }));
    var label;
    if (opts.unread) {
      var u = svgEl('text', { x: 50, y: 66, 'text-anchor': 'middle', 'class': 'mark' });
      u.textContent = '?';
      s.appendChild(u);
      label = 'not read';
    } else if (!face) {
      var q = svgEl('text', { x: 50, y: 66, 'text-anchor': 'middle', 'class': 'mark' });
      q.textContent = '?';
      s.appendChild(q);
      label = 'hidden die';
    } else if (opts.star && face === 1) {
      s.appendChild(svgEl('polygon', { points: starPoints(50, 52, 38, 16), 'class': 'star' }));
      label = 'star';
    } else if (PIPS[face]) {
      PIPS[face].forEach(function (p) { s.appendChild(svgEl('circle', { cx: p[0], cy: p[1], r: 9, 'class': 'pip' })); });
      label = String(face);
    } else {
      var t = svgEl('text', { x: 50, y: 66, 'text-anchor': 'middle', 'class': 'mark' });
      t.textContent = String(face);
      s.appendChild(t);
      label = String(face);
    }
    var title = svgEl('title', {});
    title.textContent = label;
    s.appendChild(title);
    return s;
  }

  var WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

  // faceName names a face in a bid: "5s", "stars", "ones".
  function faceName(face, star, n) {
    if (face === 1 && star) return n === 1 ? 'star' : 'stars';
    if (face === 1) return n === 1 ? 'one' : 'ones';
    if (face === 6) return n === 1 ? 'six' : 'sixes';
    return n === 1 ? String(face) : face + 's';
  }

  // bidWords says a bid: "four 5s", "two stars".
  function bidWords(q, face, star) {
    return (WORDS[q] || String(q)) + ' ' + faceName(face, star, q);
  }

  // trackSpaces lists the spaces of the bidding track up to total dice:
  // star-board interleaves a star space after every second number space,
  // and perudo, while ones are wild, a ones space (q ones rank right after
  // 2q of any face).
  function trackSpaces(total, star, ones) {
    var out = [];
    for (var n = 1; n <= total; n++) {
      out.push({ kind: 'number', n: n });
      if ((star || ones) && n % 2 === 0) out.push({ kind: star ? 'star' : 'ones', n: n / 2 });
    }
    return out;
  }

  // track draws the bidding track with the standing bid's space lit. ones
  // says a bid on ones stands on its own space (perudo, ones wild).
  function track(total, bid, star, ones) {
    var wrap = el('div', 'track');
    var own = bid && bid.face === 1 && (star || ones); // a star or ones bid on its own space
    var max = total;
    if (bid) max = Math.max(max, own ? bid.quantity * 2 : bid.quantity);
    trackSpaces(max, star, ones).forEach(function (sp) {
      var cell = el('div', 'space ' + sp.kind);
      var lit = bid && (sp.kind === 'number' ? (!own && bid.quantity === sp.n) : (own && bid.quantity === sp.n));
      if (sp.kind === 'star') {
        cell.appendChild(el('span', 'star-mark', '\u2605'));
        cell.appendChild(el('span', 'n', sp.n));
      } else if (sp.kind === 'ones') {
        cell.appendChild(el('span', 'n', sp.n));
        cell.appendChild(die(1, {}));
      } else {
        cell.appendChild(el('span', 'n', sp.n));
      }
      if (lit) {
        cell.classList.add('lit');
        cell.setAttribute('data-lit', '1');
        if (sp.kind === 'number') cell.appendChild(die(bid.face, { star: star }));
      }
      wrap.appendChild(cell);
    });
    return wrap;
  }

  root.LiarsDraw = { el: el, die: die, bidWords: bidWords, faceName: faceName, track: track, trackSpaces: trackSpaces };
})(window);
