package io.kvorum.api;

import java.util.Map;

/**
 * Whether a node serves requests ({@code GET /v0/status}: {@code 200} ready, {@code 503} not yet or
 * no longer).
 *
 * @param ready whether it is ready: caught up, not shutting down, able to coordinate writes
 * @param node the node's id, or null if it did not say
 * @param detail why it is not ready (starting, shutting down, its clock too far from its peers'),
 *     or null when it is
 */
public record Readiness(boolean ready, String node, String detail) {
  static Readiness of(boolean ready, Map<String, Object> json) {
    return new Readiness(
        ready, Json.string(json, "node"), ready ? null : Json.string(json, "detail"));
  }
}
