package io.kvorum.bench.load;

/**
 * One request of a load phase, as the bytes that go on the wire.
 *
 * @param op the operation it counts under in the results ({@code put}, {@code get}, …)
 * @param bytes the whole HTTP/1.1 request, head and body
 * @param expectedStatus the status that counts as a success; any other is an error
 */
public record Request(String op, byte[] bytes, int expectedStatus) {}
