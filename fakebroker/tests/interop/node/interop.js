// amqplib interop client for the fake broker tests.
// Usage: node interop.js <port> <expected-frame-max> [host]
// Connects (accepting the broker's frame_max), declares a queue, publishes messages of 0 B to 1 MiB with
// publisher confirms on several channels, consumes them back and checks every body byte-exact.
// Prints one "RESULT {json}" line; exits 0 only when every message came back intact.
'use strict';
const amqp = require('amqplib');
const crypto = require('node:crypto');

const port = Number(process.argv[2]);
const expectedFrameMax = Number(process.argv[3]);
const host = process.argv[4] || '127.0.0.1';
const SIZES = [0, 1, 255, 4087, 4088, 4089, 8176, 65536, 131063, 131064, 131065, 300000, 1048576];
const PUBLISH_CHANNELS = 3;
const TIMEOUT_MS = 60000;

// The same pattern the C# test and the pika script use: byte j of message k.
function body(k, length) {
  const b = Buffer.alloc(length);
  for (let j = 0; j < length; j++) b[j] = (j * 7 + k * 13 + (j >> 8)) & 0xff;
  return b;
}

function fail(message) {
  console.log('RESULT ' + JSON.stringify({ ok: false, error: message }));
  process.exit(1);
}

setTimeout(() => fail(`timed out after ${TIMEOUT_MS} ms`), TIMEOUT_MS).unref();

async function main() {
  // frameMax=0 asks for "whatever the server offers", so the broker's tune decides.
  const conn = await amqp.connect(`amqp://guest:guest@${host}:${port}/?frameMax=0&heartbeat=0`);
  const negotiated = conn.connection.frameMax;
  if (negotiated !== expectedFrameMax) fail(`negotiated frame_max ${negotiated}, expected ${expectedFrameMax}`);

  const setup = await conn.createChannel();
  const queue = `interop-amqplib-${process.pid}-${Date.now()}`;
  await setup.assertQueue(queue, { durable: false, autoDelete: false });

  const channels = [];
  for (let i = 0; i < PUBLISH_CHANNELS; i++) channels.push(await conn.createConfirmChannel());

  // Publish each message on channel k % n, then wait for every channel's confirms.
  const sent = SIZES.map((size, k) => ({ k, size, sha: crypto.createHash('sha256').update(body(k, size)).digest('hex') }));
  for (const m of sent) {
    const ch = channels[m.k % PUBLISH_CHANNELS];
    ch.publish('', queue, body(m.k, m.size), { messageId: String(m.k), contentType: 'application/octet-stream' });
  }
  await Promise.all(channels.map((ch) => ch.waitForConfirms()));

  // Consume them back; ack each; compare with the pattern.
  const consumer = await conn.createChannel();
  const received = new Map();
  await new Promise((resolve, reject) => {
    consumer.consume(queue, (msg) => {
      if (msg === null) { reject(new Error('consumer cancelled by the broker')); return; }
      const k = Number(msg.properties.messageId);
      received.set(k, msg.content);
      consumer.ack(msg);
      if (received.size === sent.length) resolve();
    }, { noAck: false }).catch(reject);
  });

  let bytes = 0;
  for (const m of sent) {
    const got = received.get(m.k);
    if (!got) fail(`message ${m.k} (${m.size} B) never came back`);
    if (!got.equals(body(m.k, m.size))) fail(`message ${m.k} (${m.size} B) came back different: ${got.length} B`);
    bytes += m.size;
  }
  await consumer.close();
  for (const ch of channels) await ch.close();
  await setup.deleteQueue(queue);
  await setup.close();
  await conn.close();
  console.log('RESULT ' + JSON.stringify({
    ok: true, client: 'amqplib', frameMax: negotiated, messages: sent.length, bytes,
    sizes: sent.map((m) => m.size), sha256: sent.map((m) => m.sha),
  }));
  process.exit(0);
}

main().catch((e) => fail(String(e && e.stack || e)));
