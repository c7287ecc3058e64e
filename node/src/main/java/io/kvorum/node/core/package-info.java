/** Domain values that cross every seam: keys, versions, records, quorums and the error family. */
package io.kvorum.node.core;
