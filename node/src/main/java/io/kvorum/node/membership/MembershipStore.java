package io.kvorum.node.membership;

import io.kvorum.node.core.DurableFiles;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.ClusterStateCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Small files of cluster state in the data directory, each replaced atomically: written to a
 * temporary file, fsynced, renamed over the old one, and the directory fsynced, so that a crash
 * leaves either the old or the new content, never a torn one.
 */
public final class MembershipStore {
  /** The membership this node last adopted. */
  public static final String STATE_FILE = "cluster-state.json";

  /** Written by a node that left the cluster by decommission; it must not start again. */
  public static final String DECOMMISSIONED_FILE = "decommissioned";

  private final Path dir;

  public MembershipStore(Path dir) {
    this.dir = dir;
  }

  /** The stored membership, if this node has one. */
  public Optional<ClusterState> load() {
    return read(STATE_FILE).map(ClusterStateCodec::decode);
  }

  public void save(ClusterState state) {
    write(STATE_FILE, ClusterStateCodec.encode(state));
  }

  public boolean decommissioned() {
    return Files.exists(dir.resolve(DECOMMISSIONED_FILE));
  }

  public void markDecommissioned() {
    write(
        DECOMMISSIONED_FILE, "decommissioned\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** The content of {@code name}, if it exists. */
  public Optional<byte[]> read(String name) {
    Path file = dir.resolve(name);
    try {
      return Files.exists(file) ? Optional.of(Files.readAllBytes(file)) : Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** Replaces {@code name} with {@code content}, durably and atomically. */
  public void write(String name, byte[] content) {
    Path file = dir.resolve(name);
    try {
      DurableFiles.DISK.replace(file, content);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** Deletes every file whose name starts with {@code prefix}, durably. */
  public void deleteStartingWith(String prefix) {
    try (java.util.stream.Stream<Path> files = Files.list(dir)) {
      for (Path file : files.filter(f -> f.getFileName().toString().startsWith(prefix)).toList()) {
        DurableFiles.DISK.delete(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + prefix + "* in " + dir, e);
    }
  }

  /** Deletes {@code name} if it exists, durably. */
  public void delete(String name) {
    try {
      DurableFiles.DISK.delete(dir.resolve(name));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir.resolve(name), e);
    }
  }
}
