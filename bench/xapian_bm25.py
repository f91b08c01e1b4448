"""Xapian's BM25 top k for bench/peers.bench.ts, on the analysed terms querylens hands it.

argv: docs.jsonl ({"id", "terms"} per line), queries.jsonl (a JSON list of terms per line), k,
repetitions. Builds an in-memory database (term frequencies, no positions: BM25 needs none),
runs every query `repetitions` times in rounds, and prints one JSON line: the p50 and p95 over
queries of each query's median time in ms, and the mean number of hits.
"""
import json
import sys
import time
from collections import Counter

import xapian


def main() -> None:
    docs_path, queries_path, k, repetitions = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    db = xapian.WritableDatabase("", xapian.DB_BACKEND_INMEMORY)
    with open(docs_path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            record = json.loads(line)
            doc = xapian.Document()
            for term, tf in Counter(record["terms"]).items():
                doc.add_term(term, tf)
            doc.set_data(record["id"])
            db.add_document(doc)
    with open(queries_path, encoding="utf-8") as f:
        queries = [json.loads(line) for line in f if line.strip()]

    enquire = xapian.Enquire(db)
    # Robertson's BM25 with k1 1.2, b 0.75 and no query-frequency or length-of-query terms.
    enquire.set_weighting_scheme(xapian.BM25Weight(1.2, 0, 1, 0.75, 0))

    def run(terms):
        enquire.set_query(xapian.Query(xapian.Query.OP_OR, terms))
        return enquire.get_mset(0, k).size()

    for terms in queries[:20]:
        run(terms)
    samples = [[] for _ in queries]
    hits = 0
    for r in range(repetitions):
        for i, terms in enumerate(queries):
            t0 = time.perf_counter()
            n = run(terms)
            samples[i].append((time.perf_counter() - t0) * 1000)
            if r == 0:
                hits += n
    medians = sorted(sorted(s)[len(s) // 2] for s in samples)
    p50 = medians[len(medians) // 2]
    p95 = medians[min(len(medians) - 1, int(len(medians) * 0.95))]
    print(json.dumps({"p50": p50, "p95": p95, "hits": hits / len(queries)}))


if __name__ == "__main__":
    main()
