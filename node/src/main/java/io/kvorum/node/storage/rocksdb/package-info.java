/** The RocksDB (JNI) {@link io.kvorum.node.storage.StorageEngine}: the one used in production. */
package io.kvorum.node.storage.rocksdb;
