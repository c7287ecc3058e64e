/** kvorum's public contract: HTTP API constants, the OpenAPI document and a small Java client. */
package io.kvorum.api;
