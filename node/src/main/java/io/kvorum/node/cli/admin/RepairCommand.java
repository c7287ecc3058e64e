package io.kvorum.node.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvorum.api.KvorumAdmin;
import io.kvorum.api.KvorumApi;
import io.kvorum.api.KvorumClientException;
import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.cli.client.NodeAddress;
import io.kvorum.node.cli.client.NodeConnection;
import io.kvorum.node.cli.client.Unreachable;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvorum-node repair}: asks a node to start a full anti-entropy round now ({@code POST
 * /v0/repair}, SPEC §7), as {@code nodetool repair} does for one node. With {@code --wait} it then
 * follows the round in {@code GET /v0/cluster}: a peer is repaired once an exchange with it
 * finished after the request (its {@code repair.lastRoundFinished} moved on); it prints the peers
 * done and the records moved, then one line per peer. A peer that is down is not waited for: it is
 * named, and the exit code is 4.
 */
@Command(
    name = "repair",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Starts a full anti-entropy round on a node now, and with --wait follows it.",
    description = {
      "",
      "Asks the node at --host and --port to compare its hash trees with every peer now and"
          + " exchange the records that differ (anti-entropy runs every --repair-interval anyway;"
          + " this starts a round at once, or right after the one running). With --wait the"
          + " command follows the round in the node's cluster view: the peers done, the records"
          + " repaired, then one line per peer. Run it on each node to repair all pairs.",
      ""
    },
    footer = {
      "",
      "Exit codes: 0 the round started (with --wait: every peer was repaired), 1 the node"
          + " refused or could not be reached, 2 bad options, 4 (--wait) a peer is down and was"
          + " not repaired, or the node stopped answering."
    })
public final class RepairCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin NodeAddress node = new NodeAddress();

  @Option(
      names = "--wait",
      description =
          "Wait until an exchange with every peer that is up finished, showing the peers done and"
              + " the records repaired, then a line per peer.")
  boolean await;

  /** How often {@code --wait} asks, and how long it lets the node be silent; tests shorten them. */
  Duration poll = Duration.ofSeconds(1);

  Duration giveUp = Duration.ofSeconds(30);

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (NodeConnection connection = node.connect(NodeAddress.TIMEOUT)) {
      Map<String, JsonNode> before = await ? peers(view(connection)) : Map.of();
      String who;
      try {
        who = connection.ask(KvorumAdmin::repair);
      } catch (KvorumClientException e) {
        err.println(
            "kvorum-node repair: " + node.baseUrl() + " answered " + NodeConnection.describe(e));
        return ExitCodes.FAILURE;
      }
      out.println(
          "kvorum-node repair: "
              + (who == null ? node.baseUrl() : who + " (" + node.baseUrl() + ")")
              + " started a full anti-entropy round with its "
              + (await ? before.size() + " peers" : "peers")
              + (await ? "" : "; 'kvorum-node status' shows when each finished"));
      out.flush();
      return await ? follow(connection, before, out, err) : ExitCodes.OK;
    } catch (Unreachable e) {
      err.println("kvorum-node repair: " + e.getMessage());
      return ExitCodes.FAILURE;
    }
  }

  private int follow(
      NodeConnection connection, Map<String, JsonNode> before, PrintWriter out, PrintWriter err)
      throws InterruptedException {
    ProgressLine progress = new ProgressLine(err, ProgressLine.terminal(), System::nanoTime);
    long started = System.nanoTime();
    long silentSince = -1;
    while (true) {
      Map<String, JsonNode> now;
      try {
        now = peers(view(connection));
        silentSince = -1;
      } catch (Unreachable e) {
        silentSince = silentSince < 0 ? System.nanoTime() : silentSince;
        if (System.nanoTime() - silentSince >= giveUp.toNanos()) {
          progress.finish();
          err.println(
              "kvorum-node repair: "
                  + node.baseUrl()
                  + " has not answered for "
                  + giveUp.toSeconds()
                  + " s ("
                  + e.getMessage()
                  + "): whether the round completed is unknown.");
          return ExitCodes.UNFINISHED;
        }
        Thread.sleep(poll.toMillis());
        continue;
      }
      Round round = new Round(before, now);
      double seconds = (System.nanoTime() - started) / 1e9;
      if (round.waiting().isEmpty()) {
        progress.finish();
        return summary(round, seconds, out, err);
      }
      progress.maybePrint(() -> round.line(seconds));
      Thread.sleep(poll.toMillis());
    }
  }

  private int summary(Round round, double seconds, PrintWriter out, PrintWriter err) {
    for (String line : round.peerLines()) {
      out.println(line);
    }
    String took = ProgressLine.clock(Math.round(seconds));
    if (round.now().isEmpty()) {
      out.println("kvorum-node repair: the node has no peers: nothing to repair");
      out.flush();
      return ExitCodes.OK;
    }
    if (round.down().isEmpty()) {
      out.println(
          String.format(
              Locale.ROOT,
              "kvorum-node repair: every peer (%d) repaired in %s, %,d records moved",
              round.done().size(),
              took,
              round.records()));
      out.flush();
      return ExitCodes.OK;
    }
    out.flush();
    err.println(
        String.format(
            Locale.ROOT,
            "kvorum-node repair: %d of %d peers repaired in %s (%,d records moved); not repaired,"
                + " down: %s. Anti-entropy repairs them once they are back.",
            round.done().size(),
            round.done().size() + round.down().size(),
            took,
            round.records(),
            String.join(", ", round.down())));
    err.flush();
    return ExitCodes.UNFINISHED;
  }

  /** The node's cluster view; an answer that is none is {@link Unreachable} too. */
  private JsonNode view(NodeConnection connection) {
    try {
      return connection.cluster();
    } catch (KvorumClientException e) {
      throw new Unreachable(
          node.baseUrl() + KvorumApi.PATH_CLUSTER + " answered " + NodeConnection.describe(e));
    }
  }

  /** The peers of the node asked (the members its view gives a {@code repair} for), by id. */
  private static Map<String, JsonNode> peers(JsonNode view) {
    Map<String, JsonNode> peers = new LinkedHashMap<>();
    for (JsonNode member : view.path("nodes")) {
      if (member.path("repair").isObject()) {
        peers.put(member.path("id").asText(), member);
      }
    }
    return peers;
  }

  /** The round as far as one view shows it, against the view before the request. */
  private record Round(Map<String, JsonNode> before, Map<String, JsonNode> now) {
    private String finished(Map<String, JsonNode> view, String peer) {
      JsonNode member = view.get(peer);
      return member == null ? "" : member.path("repair").path("lastRoundFinished").asText("");
    }

    List<String> done() {
      List<String> done = new ArrayList<>();
      for (String peer : now.keySet()) {
        String finished = finished(now, peer);
        if (!finished.isEmpty() && !finished.equals(finished(before, peer))) {
          done.add(peer);
        }
      }
      return done;
    }

    List<String> down() {
      List<String> down = new ArrayList<>();
      for (Map.Entry<String, JsonNode> peer : now.entrySet()) {
        if (!done().contains(peer.getKey())
            && "down".equals(peer.getValue().path("state").asText())) {
          down.add(peer.getKey());
        }
      }
      return down;
    }

    List<String> waiting() {
      List<String> waiting = new ArrayList<>(now.keySet());
      waiting.removeAll(done());
      waiting.removeAll(down());
      return waiting;
    }

    long records() {
      long records = 0;
      for (String peer : done()) {
        records += now.get(peer).path("repair").path("recordsRepaired").asLong();
      }
      return records;
    }

    String line(double seconds) {
      return String.format(
          Locale.ROOT,
          "repair: %d of %d peers done, %,d records moved, %s so far",
          done().size(),
          now.size(),
          records(),
          ProgressLine.clock(Math.round(seconds)));
    }

    List<String> peerLines() {
      List<String> lines = new ArrayList<>();
      for (Map.Entry<String, JsonNode> peer : now.entrySet()) {
        JsonNode repair = peer.getValue().path("repair");
        if (done().contains(peer.getKey())) {
          lines.add(
              String.format(
                  Locale.ROOT,
                  "%s  repaired: %,d records moved, finished %s",
                  peer.getKey(),
                  repair.path("recordsRepaired").asLong(),
                  repair.path("lastRoundFinished").asText()));
        } else {
          lines.add(
              peer.getKey()
                  + "  not repaired: down"
                  + (peer.getValue().hasNonNull("detail")
                      ? " (" + peer.getValue().path("detail").asText() + ")"
                      : "")
                  + (repair.hasNonNull("lastError")
                      ? "; last exchange: " + repair.path("lastError").asText()
                      : ""));
        }
      }
      return lines;
    }
  }
}
