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
  // message and onConn(state) with 'connecting', 'live', 'reconnecting' or
  // 'unavailable'.
  function connect(url, topics, onMessage, onConn) {
    if (!url) { onConn('unavailable'); return null; }
    var id = 'liarsd-page-' + Math.random().toString(16).slice(2, 10);
    var client = root.mqtt.connect(url, {
      clientId: id, clean: true, reconnectPeriod: 1000, connectTimeout: 5000,
      protocolVersion: 4, keepalive: 20
    });
    onConn('connecting');
    client.on('connect', function () {
      onConn('live');
      client.subscribe(topics, { qos: 1 });
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
    unavailable: 'no broker configured for browsers'
  };

  function showConn(node, state) {
    document.body.classList.toggle('disconnected', state !== 'live');
    node.className = 'conn conn-' + state;
    node.textContent = CONN_TEXT[state] || state;
    node.setAttribute('data-conn', state);
  }

  root.LiarsLive = { loadConfig: loadConfig, brokerURL: brokerURL, connect: connect, showConn: showConn };
})(window);
