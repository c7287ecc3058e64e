package io.kvorum.node.server;

import io.kvorum.node.auth.TokensFile;
import io.kvorum.node.tls.TlsMaterial;
import java.util.Optional;

/**
 * What secures a node ({@link SecurityBootstrap}).
 *
 * @param tls the certificate, key and CA of {@code --tls-*}, reloaded as they change; empty without
 *     TLS
 * @param clientTokens the bearer tokens of {@code --auth-tokens}, reloaded as the file changes;
 *     empty without the flag
 */
public record NodeSecurity(Optional<TlsMaterial> tls, Optional<TokensFile> clientTokens) {}
