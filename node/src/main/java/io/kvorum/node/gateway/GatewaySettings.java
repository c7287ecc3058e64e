package io.kvorum.node.gateway;

import java.time.Duration;

/**
 * How the HTTP edge listens and what it accepts.
 *
 * @param host address to bind
 * @param port port to bind; 0 picks a free one
 * @param maxValueBytes the largest request body accepted (larger get 413)
 * @param maxKeyBytes the longest key accepted (longer get 400)
 * @param idleTimeout connections idle this long are closed
 * @param inlineReplies answer a request on the thread its result completes on when that is the
 *     connection's event loop (else the answer is always queued to the loop as a task)
 */
public record GatewaySettings(
    String host,
    int port,
    int maxValueBytes,
    int maxKeyBytes,
    Duration idleTimeout,
    boolean inlineReplies) {}
