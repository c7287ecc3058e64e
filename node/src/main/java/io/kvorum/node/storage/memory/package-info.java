/** A heap-only {@link io.kvorum.node.storage.StorageEngine} for fast, deterministic tests. */
package io.kvorum.node.storage.memory;
