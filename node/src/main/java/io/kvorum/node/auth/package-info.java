/**
 * Client authentication: the bearer tokens of {@code --auth-tokens}, their roles, and the file they
 * are read (and re-read) from. No Netty: the HTTP edge asks it who a token belongs to.
 */
package io.kvorum.node.auth;
