package io.kvorum.node.core;

import java.util.Objects;

/** A key with one of its records, as range scans yield them. */
public record Entry(Key key, Record record) {
  public Entry {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(record, "record");
  }
}
