package io.kvorum.node.topology;

/**
 * What this node streamed to and from one member during the change in progress (SPEC §8).
 *
 * @param done whether the stream is over (for a source: every record of it passed)
 */
public record StreamFigures(
    long recordsSent, long bytesSent, long recordsReceived, long bytesReceived, boolean done) {}
