/** The {@link io.kvorum.node.storage.StorageEngine} seam: one node's replicas on local disk. */
package io.kvorum.node.storage;
