package io.kvorum.node.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvorum.api.KvorumClientException;
import io.kvorum.api.MembershipChange;
import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.cli.client.NodeAddress;
import io.kvorum.node.cli.client.NodeConnection;
import io.kvorum.node.cli.client.Unreachable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Follows a membership change that a node just started ({@code decommission --wait}, {@code remove
 * --wait}) until it ends, by polling {@code GET /v0/cluster} (SPEC §8): the progress of its
 * streaming (copies of records and bytes the node that drives the change moved, against the records
 * the leaving node holds) on a {@link ProgressLine}, then a summary. The node asked is polled; when
 * it does not answer (a decommissioned node exits once it left), the other members are asked, at
 * the addresses {@link MemberAddresses} gives.
 */
final class ChangeWatch {
  private final String command;
  private final NodeAddress node;
  private final MemberAddresses addresses;
  private final ProgressLine progress;
  private final LongSupplier nanos;
  private final Duration poll;
  private final Duration giveUp;
  private final Map<String, NodeConnection> connections = new HashMap<>();

  /** What the change is: its kind, the node it changes, its epoch (the 202's {@code change}). */
  private final String kind;

  private final String changed;
  private final long epoch;
  private final long started;
  private List<JsonNode> members = List.of();
  private long records;
  private long bytes;
  private long estimated;

  /** How the wait ended: the exit code and the last line to print. */
  record Outcome(int exitCode, String message) {}

  ChangeWatch(
      String command,
      MembershipChange change,
      NodeAddress node,
      MemberAddresses addresses,
      ProgressLine progress,
      LongSupplier nanos,
      Duration poll,
      Duration giveUp) {
    this.command = command;
    this.kind = text(change.kind());
    this.changed = text(change.node());
    this.epoch = change.epoch();
    this.node = node;
    this.addresses = addresses;
    this.progress = progress;
    this.nanos = nanos;
    this.poll = poll;
    this.giveUp = giveUp;
    this.started = nanos.getAsLong();
  }

  /** Polls until the change ends, the node asked and the others stop answering, or interrupted. */
  Outcome await() throws InterruptedException {
    try {
      return watch();
    } finally {
      connections.values().forEach(NodeConnection::close);
    }
  }

  private Outcome watch() throws InterruptedException {
    long silentSince = -1;
    String lastSeenBy = null;
    while (true) {
      JsonNode view = ask(node.baseUrl());
      String seenBy = node.baseUrl();
      if (view == null) {
        long now = nanos.getAsLong();
        silentSince = silentSince < 0 ? now : silentSince;
        seenBy = null;
        for (JsonNode member : members) {
          String url = addresses.baseUrl(member, node);
          if (!member.path("id").asText().equals(changed) && !url.equals(node.baseUrl())) {
            view = ask(url);
            if (view != null) {
              seenBy = member.path("id").asText();
              break;
            }
          }
        }
      } else {
        silentSince = -1;
      }
      if (view != null) {
        lastSeenBy = seenBy;
        Outcome ended = ended(view, seenBy);
        if (ended != null) {
          progress.finish();
          return ended;
        }
        if (silentSince < 0) {
          // Only the node asked says where the others are: "self" in another's view is that one.
          members = listOf(view.path("nodes"));
        }
        figures(view);
        progress.maybePrint(this::line);
      }
      if (silentSince >= 0 && nanos.getAsLong() - silentSince >= giveUp.toNanos()) {
        progress.finish();
        return silent(view != null, lastSeenBy);
      }
      Thread.sleep(poll.toMillis());
    }
  }

  /** The outcome if {@code view} shows the change over; null while it is in progress. */
  private Outcome ended(JsonNode view, String seenBy) {
    JsonNode change = view.path("change");
    if (change.isObject() && change.path("epoch").asLong() == epoch) {
      return null;
    }
    boolean member = false;
    for (JsonNode each : view.path("nodes")) {
      member |= each.path("id").asText().equals(changed);
    }
    String by = seenBy.equals(node.baseUrl()) ? "" : " (as " + seenBy + " sees it)";
    if (member) {
      return new Outcome(
          ExitCodes.UNFINISHED,
          "kvorum-node "
              + command
              + ": the "
              + kind
              + " of "
              + changed
              + " (epoch "
              + epoch
              + ") ended without "
              + changed
              + " leaving the cluster"
              + by
              + ": it was aborted or replaced; 'kvorum-node status' shows the cluster now.");
    }
    double seconds = seconds();
    String streamed =
        records == 0
            ? "its streaming began and ended between two looks"
            : String.format(
                Locale.ROOT,
                "%,d copies of records streamed (%.1f MB, %.1f MB/s)",
                records,
                bytes / 1e6,
                bytes / 1e6 / seconds);
    return new Outcome(
        ExitCodes.OK,
        String.format(
            Locale.ROOT,
            "kvorum-node %s: %s left the cluster%s in %s: %s; membership epoch %d.",
            command,
            changed,
            by,
            ProgressLine.clock(Math.round(seconds)),
            streamed,
            view.path("epoch").asLong()));
  }

  private Outcome silent(boolean othersAnswered, String seenBy) {
    String silent =
        "kvorum-node "
            + command
            + ": "
            + node.baseUrl()
            + " has not answered for "
            + giveUp.toSeconds()
            + " s";
    if (othersAnswered) {
      return new Outcome(
          ExitCodes.UNFINISHED,
          silent
              + "; as "
              + seenBy
              + " sees it the "
              + kind
              + " of "
              + changed
              + " is still in progress: it resumes where it stopped once the node is back"
              + " (follow it with 'kvorum-node status').");
    }
    return new Outcome(
        ExitCodes.UNFINISHED,
        silent
            + " and no other member could be asked (--node gives their HTTP addresses): whether"
            + " the "
            + kind
            + " of "
            + changed
            + " completed is unknown; ask 'kvorum-node status' on another node.");
  }

  /**
   * The change's figures: the streaming of the node that drives it, as it reports them (the node
   * asked, or for a removal the first member by id that stays and is up), and the records the
   * changed node held.
   */
  private void figures(JsonNode view) {
    for (JsonNode member : view.path("nodes")) {
      if (member.path("id").asText().equals(changed) && member.has("records")) {
        estimated = member.path("records").asLong();
      }
    }
    JsonNode streaming = view;
    if (!streams(view) && kind.equals("remove")) {
      JsonNode driver =
          listOf(view.path("nodes")).stream()
              .filter(m -> !m.path("id").asText().equals(changed))
              .filter(m -> !m.path("state").asText().equals("down"))
              .min(Comparator.comparing(m -> m.path("id").asText()))
              .orElse(null);
      if (driver != null && !driver.path("self").asBoolean()) {
        JsonNode driverView = ask(addresses.baseUrl(driver, node));
        streaming = driverView == null ? view : driverView;
      }
    }
    long sent = 0;
    long moved = 0;
    for (JsonNode member : streaming.path("nodes")) {
      JsonNode figures = member.path("streaming");
      sent += figures.path("recordsSent").asLong() + figures.path("recordsReceived").asLong();
      moved += figures.path("bytesSent").asLong() + figures.path("bytesReceived").asLong();
    }
    // A driver that restarted counts again from zero: keep the most seen.
    records = Math.max(records, sent);
    bytes = Math.max(bytes, moved);
  }

  private static boolean streams(JsonNode view) {
    for (JsonNode member : view.path("nodes")) {
      if (member.has("streaming")) {
        return true;
      }
    }
    return false;
  }

  /** e.g. {@code decommission of n3: 12,000 of ~50,000 records, 1.2 MB/s, …, 0:12 left}. */
  String line() {
    return kind
        + " of "
        + changed
        + ": "
        + ProgressLine.figures(records, estimated, bytes, seconds())
        + ", "
        + ProgressLine.clock(Math.round(seconds()))
        + " so far";
  }

  private double seconds() {
    return Math.max(1e-3, (nanos.getAsLong() - started) / 1e9);
  }

  /** The cluster view at {@code baseUrl}, or null when it does not answer one. */
  private JsonNode ask(String baseUrl) {
    try {
      NodeConnection connection = connections.get(baseUrl);
      if (connection == null) {
        connection = node.connect(baseUrl, NodeAddress.TIMEOUT);
        connections.put(baseUrl, connection);
      }
      return connection.cluster();
    } catch (Unreachable | KvorumClientException e) {
      return null;
    }
  }

  /** {@code text}, or empty for none: as a field the node did not send reads. */
  static String text(String text) {
    return text == null ? "" : text;
  }

  private static List<JsonNode> listOf(JsonNode array) {
    List<JsonNode> list = new ArrayList<>();
    array.forEach(list::add);
    return list;
  }
}
