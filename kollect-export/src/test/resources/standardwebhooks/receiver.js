// A webhook receiver on loopback that verifies every request with the Standard Webhooks
// reference library (npm standardwebhooks), as a receiver of Kollect's http sink would.
//
//   WEBHOOK_SECRET=whsec_... node receiver.js     prints "listening <port>" when ready
//
// POST /        verify(body, headers); a bad signature or a timestamp outside the library's
//               tolerance: 401. A webhook-id seen before: 200 {"duplicate":true}, ignored.
//               Otherwise the events are recorded (binary mode: the ce-* headers; batched mode:
//               each element of the array; records format: each record) and answered 200, after
//               a stall if one was armed.
// POST /stall   {"count": n, "ms": m}: the next n new deliveries are recorded, then answered
//               only after m ms (the sender times out meanwhile).
// POST /secret  {"secret": "whsec_..."}: verify with this key from now on (a key rotation).
// GET  /log     every request as JSON: id, timestamp, status, duplicate, error, events.
'use strict';
const http = require('http');
const { Webhook } = require('standardwebhooks');

let webhook = new Webhook(process.env.WEBHOOK_SECRET);
const seen = new Set();
const log = [];
let stall = { count: 0, ms: 0 };

function eventsOf(req, body) {
  const type = req.headers['content-type'] || '';
  if (req.headers['ce-id']) {
    const attrs = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (k.startsWith('ce-')) attrs[k.substring(3)] = v;
    }
    attrs.datacontenttype = type;
    return [{ attributes: attrs, data: body.toString('utf8') }];
  }
  const parsed = JSON.parse(body.toString('utf8'));
  if (type.startsWith('application/cloudevents-batch+json')) {
    return parsed.map((e) => ({ attributes: e, data: JSON.stringify(e.data) }));
  }
  return parsed.map((r) => ({ record: r }));
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const answer = (status, json, entry) => {
      log.push(Object.assign({ id: req.headers['webhook-id'] || null,
        timestamp: req.headers['webhook-timestamp'] || null, status }, entry));
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (req.method === 'GET' && req.url === '/log') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(log));
      return;
    }
    if (req.method === 'POST' && req.url === '/secret') {
      webhook = new Webhook(JSON.parse(body.toString('utf8')).secret);
      res.writeHead(204);
      res.end();
      return;
    }
    if (req.method === 'POST' && req.url === '/stall') {
      stall = JSON.parse(body.toString('utf8'));
      res.writeHead(204);
      res.end();
      return;
    }
    try {
      webhook.verify(body, req.headers);
    } catch (e) {
      answer(401, { error: e.message }, { error: e.message });
      return;
    }
    const id = req.headers['webhook-id'];
    if (seen.has(id)) {
      answer(200, { duplicate: true }, { duplicate: true });
      return;
    }
    seen.add(id);
    const contentTypes = req.rawHeaders.filter((h, i) => i % 2 === 0
      && h.toLowerCase() === 'content-type').length;
    const entry = { duplicate: false, contentTypes, events: eventsOf(req, body) };
    if (stall.count > 0) {
      stall.count--;
      const ms = stall.ms;
      log.push(Object.assign({ id, timestamp: req.headers['webhook-timestamp'], status: 0,
        stalled: ms }, entry));
      setTimeout(() => { try { res.writeHead(200); res.end(); } catch (e) { /* sender gone */ } }, ms);
      return;
    }
    answer(200, { accepted: entry.events.length }, entry);
  });
});

server.listen(0, '127.0.0.1', () => {
  console.log('listening ' + server.address().port);
});
