/**
 * {@code kvorum-node backup} and {@code restore}: a cluster's snapshots copied to object storage
 * (the S3 API) and loaded back into any cluster (SPEC §11).
 */
package io.kvorum.node.cli.backup;
