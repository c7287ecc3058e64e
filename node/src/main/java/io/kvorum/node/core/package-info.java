/**
 * Domain values that cross every seam: keys, versions, records, quorums, the error family and what
 * each failure means.
 */
package io.kvorum.node.core;
