"""Schemathesis hooks for kvorum's OpenAPI document (SchemathesisIT runs them).

The document's schemas say everything about a request that JSON Schema can say about one
parameter; the rules that relate a parameter to another or to the cluster are written in its
description and in its 400 answer: ack at most from, from at most the cluster size, keys at most
--max-key-size bytes after decoding, ttl at most 7300 days, a node never removes itself
(POST /v0/cluster/remove?node= its own id), If-Match names a version this store could issue and
comes without If-None-Match, a batch holds at most 100 items (413 beyond) and each key at most
once, its keys and ttls as the parameters'. A schema-valid request that breaks one
of those is refused with 400, as documented, so such requests are not generated as positive
cases. Nothing else is filtered.
"""

import os
import re

import schemathesis

CLUSTER_SIZE = int(os.environ.get("KVORUM_CLUSTER_SIZE", "1"))
NODE_ID = os.environ.get("KVORUM_NODE_ID", "n1")
MAX_KEY_BYTES = int(os.environ.get("KVORUM_MAX_KEY_BYTES", "1024"))
MAX_TTL_SECONDS = 7300 * 86400
BATCH_MAX_ITEMS = 100
SECONDS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}


def _breaks_documented_rule(query):
    if "node" in query and str(query["node"]) == NODE_ID:
        return True
    if "replicas" in query:
        ack, frm = (int(part) for part in str(query["replicas"]).split("/"))
    else:
        frm = int(query.get("from", CLUSTER_SIZE))
        ack = int(query.get("ack", frm // 2 + 1))
    if frm > CLUSTER_SIZE or ack > frm:
        return True
    for key in ("id", "start", "end"):
        if key in query and len(str(query[key]).encode("utf-8")) > MAX_KEY_BYTES:
            return True
    return "ttl" in query and _ttl_too_long(query["ttl"])


def _ttl_too_long(ttl):
    if isinstance(ttl, (int, float)) and not isinstance(ttl, bool):
        return ttl > MAX_TTL_SECONDS  # a JSON number of seconds (a batch item's)
    duration = re.fullmatch(r"\s*([0-9]+)(ms|s|m|h|d)?\s*", str(ttl))
    if duration is None:
        return False  # not a duration: the schema's to judge
    amount, unit = duration.groups()
    return int(amount) * SECONDS[unit or "s"] > MAX_TTL_SECONDS


def _breaks_a_batch_rule(body):
    """POST /v0/batch: at most 100 items, each key once (as Java encodes it: a lone surrogate is
    '?'), keys and ttls as the parameters of /v0/entity."""
    items = body.get("items") if isinstance(body, dict) else None
    if not isinstance(items, list):
        return False
    if len(items) > BATCH_MAX_ITEMS:
        return True
    keys = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        key = str(item.get("id", "")).encode("utf-8", "replace")
        if key in keys or len(key) > MAX_KEY_BYTES:
            return True
        keys.add(key)
        if "ttl" in item and _ttl_too_long(item["ttl"]):
            return True
    return False


STRONG_TAG = re.compile(r'"[0-9]+\.[0-9]+"')


MAX_PHYSICAL = (1 << 47) - 1
MAX_LOGICAL = (1 << 16) - 1


def _breaks_a_header_rule(headers):
    """If-Match names a version this store could have issued (documented: else 400), and is never
    combined with If-None-Match (documented: 400). The coverage phase also sends header values that
    ignore the schema's pattern (If-Match: 0): not schema-valid, refused with 400 as documented."""
    headers = headers or {}
    tag = headers.get("If-Match")
    if tag is None:
        return False
    if "If-None-Match" in headers:
        return True
    if not STRONG_TAG.fullmatch(str(tag)):
        return True
    physical, logical = (int(part) for part in str(tag).strip('"').split("."))
    return physical > MAX_PHYSICAL or logical > MAX_LOGICAL


@schemathesis.hook
def filter_case(ctx, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return True
    if _breaks_a_header_rule(case.headers):
        return False
    if _breaks_a_batch_rule(case.body):
        return False
    return not _breaks_documented_rule(case.query or {})
