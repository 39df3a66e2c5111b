#!/usr/bin/python3
"""pika interop client for the fake broker tests.

Usage: /usr/bin/python3 interop.py <port> <expected-frame-max> [host]
Connects (accepting the broker's frame_max), declares a queue, publishes messages of 0 B to 1 MiB with
publisher confirms on several channels, consumes them back and checks every body byte-exact.
Prints one "RESULT {json}" line; exits 0 only when every message came back intact.
"""
import hashlib
import json
import os
import sys
import threading
import time

import pika

SIZES = [0, 1, 255, 4087, 4088, 4089, 8176, 65536, 131063, 131064, 131065, 300000, 1048576]
PUBLISH_CHANNELS = 3
TIMEOUT_S = 60


def body(k, length):
    """The same pattern the C# test and the amqplib script use: byte j of message k."""
    return bytes(((j * 7 + k * 13 + (j >> 8)) & 0xFF) for j in range(length))


def result(ok, **fields):
    print("RESULT " + json.dumps(dict(ok=ok, **fields)), flush=True)


def fail(message):
    result(False, error=message)
    os._exit(1)


def main():
    port = int(sys.argv[1])
    expected_frame_max = int(sys.argv[2])
    host = sys.argv[3] if len(sys.argv) > 3 else "127.0.0.1"
    watchdog = threading.Timer(TIMEOUT_S, lambda: fail("timed out after %d s" % TIMEOUT_S))
    watchdog.daemon = True
    watchdog.start()

    # pika proposes its maximum (131072); the broker's lower or equal offer wins.
    params = pika.ConnectionParameters(host=host, port=port, credentials=pika.PlainCredentials("guest", "guest"),
                                       frame_max=131072, heartbeat=0, blocked_connection_timeout=30,
                                       socket_timeout=10)
    conn = pika.BlockingConnection(params)
    negotiated = conn._impl.params.frame_max
    if negotiated != expected_frame_max:
        fail("negotiated frame_max %d, expected %d" % (negotiated, expected_frame_max))

    setup = conn.channel()
    queue = "interop-pika-%d-%d" % (os.getpid(), int(time.time() * 1000))
    setup.queue_declare(queue=queue, durable=False, auto_delete=False)

    channels = []
    for _ in range(PUBLISH_CHANNELS):
        ch = conn.channel()
        ch.confirm_delivery()
        channels.append(ch)

    bodies = [body(k, size) for k, size in enumerate(SIZES)]
    for k, payload in enumerate(bodies):
        # With confirms on, BlockingChannel.basic_publish waits for the ack (raises on nack).
        channels[k % PUBLISH_CHANNELS].basic_publish(
            exchange="", routing_key=queue, body=payload,
            properties=pika.BasicProperties(message_id=str(k), content_type="application/octet-stream"))

    consumer = conn.channel()
    received = {}
    for method, properties, content in consumer.consume(queue, auto_ack=False, inactivity_timeout=30):
        if method is None:
            fail("no delivery for 30 s; got %d of %d" % (len(received), len(SIZES)))
        received[int(properties.message_id)] = content
        consumer.basic_ack(method.delivery_tag)
        if len(received) == len(SIZES):
            break
    consumer.cancel()

    for k, expected in enumerate(bodies):
        got = received.get(k)
        if got is None:
            fail("message %d (%d B) never came back" % (k, len(expected)))
        if got != expected:
            fail("message %d (%d B) came back different: %d B" % (k, len(expected), len(got)))
    setup.queue_delete(queue=queue)
    for ch in channels + [consumer, setup]:
        ch.close()
    conn.close()
    result(True, client="pika", frameMax=negotiated, messages=len(SIZES), bytes=sum(SIZES), sizes=SIZES,
           sha256=[hashlib.sha256(b).hexdigest() for b in bodies])
    os._exit(0)


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # any client error is a failed run, reported on the RESULT line
        fail("%s: %s" % (type(e).__name__, e))
