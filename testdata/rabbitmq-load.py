#!/usr/bin/python3
"""AMQP load for testdata/capture-rabbitmq.sh (Debian's python3-pika, loopback):
  rabbitmq-load.py PORT OUTDIR
100 connections, 3 channels each (300), 50 classic queues: hx.backlog gets
50,000 transient messages (in the queue process's state), hx.stalled 3,000 with
a consumer (prefetch 2,000, manual acks) that never reads or acks: 2,000
unacked in its channel; the other 48 queues 100 messages each. Publishing is
spread over every connection. Once the broker has routed everything, writes
OUTDIR/loaded and keeps the connections open (no heartbeats) until killed."""
import os, sys, time
import pika

CONNS, CHANS, BACKLOG, STALLED, PREFETCH, SMALL = 100, 3, 50000, 3000, 2000, 100

def main():
    port, out = int(sys.argv[1]), sys.argv[2]
    params = pika.ConnectionParameters(host="127.0.0.1", port=port, heartbeat=0,
                                       blocked_connection_timeout=None,
                                       client_properties={"connection_name": "bc-load"})
    conns = [pika.BlockingConnection(params) for _ in range(CONNS)]
    chans = [c.channel() for c in conns for _ in range(CHANS)]
    small = [f"hx.q{i:02}" for i in range(48)]
    for q in ["hx.backlog", "hx.stalled"] + small:
        chans[0].queue_declare(q)
    # messages of 600-1,000 bytes, a few distinct bodies
    bodies = [bytes([65 + i % 26]) * (600 + 8 * i) for i in range(50)]
    for i in range(BACKLOG):
        chans[i % len(chans)].basic_publish("", "hx.backlog", bodies[i % len(bodies)],
                                            pika.BasicProperties(delivery_mode=1))
    for i in range(STALLED):
        chans[i % len(chans)].basic_publish("", "hx.stalled", bodies[i % len(bodies)])
    for j, q in enumerate(small):
        for i in range(SMALL):
            chans[(j * SMALL + i) % len(chans)].basic_publish("", q, bodies[i % len(bodies)])
    for c in conns:
        c.process_data_events(0)   # flush
    # the stalled consumer: its own connection's last channel
    stalled = chans[-1]
    stalled.basic_qos(prefetch_count=PREFETCH)
    stalled.basic_consume("hx.stalled", lambda *a: None, auto_ack=False)
    want = {"hx.backlog": BACKLOG, "hx.stalled": STALLED - PREFETCH, **{q: SMALL for q in small}}
    deadline = time.time() + 120
    while True:
        got = {q: chans[0].queue_declare(q, passive=True).method.message_count for q in want}
        if got == want:
            break
        if time.time() > deadline:
            sys.exit(f"rabbitmq-load.py: queues not settled: "
                     f"{ {q: (got[q], want[q]) for q in want if got[q] != want[q]} }")
        time.sleep(0.2)
    with open(os.path.join(out, "loaded"), "w") as f:
        f.write(f"{CONNS} connections, {len(chans)} channels, {len(want)} queues\n")
    while True:
        time.sleep(3600)

if __name__ == "__main__":
    main()
