/** Who is in the cluster and which nodes hold which keys (placement). */
package io.kvorum.node.cluster;
