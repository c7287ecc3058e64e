package io.kvorum.node.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A node's {@code GET /v0/cluster} answer as an operator reads it, in the manner of Cassandra's
 * {@code nodetool status}: a heading (who answered, the membership epoch, a change in progress),
 * one row per member, then what the table cannot say (why a node is down, hints, refused writes).
 * Fields a node of another version does not send are shown as {@code -} or left out.
 */
final class ClusterTable {
  private static final String[] HEADERS = {
    "", "NODE", "STATE", "ADDRESS", "HTTP", "RECORDS", "DISK", "HINTS", "ZONE", "STREAMING"
  };
  private static final String UNKNOWN = "-";

  private ClusterTable() {}

  /** The lines to print for {@code cluster}, without line separators. */
  static List<String> render(JsonNode cluster) {
    List<String> lines = new ArrayList<>();
    lines.add(heading(cluster));
    JsonNode change = cluster.path("change");
    if (change.isObject()) {
      // A node of 0.2.0 says no phase: its change is as one just started.
      String moved = "reads-moved".equals(change.path("phase").asText()) ? ", reads moved" : "";
      lines.add(
          "Change in progress: "
              + change.path("kind").asText("?")
              + " of "
              + change.path("node").asText("?")
              + (change.has("zone") ? " to zone " + zone(change.path("zone").asText()) : "")
              + (change.has("epoch")
                  ? " (epoch " + change.path("epoch").asLong() + moved + ")"
                  : "")
              + (change.has("started") ? ", started " + change.path("started").asText() : ""));
    }
    lines.add("");
    List<String[]> rows = new ArrayList<>();
    rows.add(HEADERS);
    List<String> notes = new ArrayList<>();
    for (JsonNode member : cluster.path("nodes")) {
      rows.add(row(member));
      String state = member.path("state").asText();
      if ("down".equals(state) && member.hasNonNull("detail")) {
        notes.add(
            member.path("id").asText()
                + " is down as seen from here: "
                + member.path("detail").asText());
      }
    }
    lines.addAll(table(rows));
    lines.add("");
    lines.add(
        "* the node that answered. ADDRESS: its inter-node address; HTTP: the one it advertises"
            + " to clients (--advertise-http-address). RECORDS (approximate, tombstones included) and DISK as each"
            + " node last reported them; HINTS: writes the answering node holds for that node;"
            + " ZONE: its failure domain (--zone).");
    lines.addAll(notes);
    if (cluster.hasNonNull("writesRefused")) {
      lines.add(
          "Writes refused by "
              + cluster.path("node").asText()
              + ": "
              + cluster.path("writesRefused").asText());
    }
    return lines;
  }

  private static String heading(JsonNode cluster) {
    StringBuilder heading =
        new StringBuilder("Cluster as ")
            .append(cluster.path("node").asText("?"))
            .append(" sees it");
    List<String> facts = new ArrayList<>();
    if (cluster.has("epoch")) {
      facts.add("epoch " + cluster.path("epoch").asLong());
    }
    facts.add(
        cluster.path("nodes").size()
            + (cluster.path("nodes").size() == 1 ? " member" : " members"));
    facts.add(cluster.path("ready").asBoolean() ? "ready" : "not ready");
    return heading.append(" (").append(String.join(", ", facts)).append(')').toString();
  }

  private static String[] row(JsonNode member) {
    return new String[] {
      member.path("self").asBoolean() ? "*" : "",
      member.path("id").asText(),
      member.path("state").asText(UNKNOWN),
      member.path("address").asText(UNKNOWN),
      member.path("httpAddress").asText(UNKNOWN),
      member.has("records") ? grouped(member.path("records").asLong()) : UNKNOWN,
      member.has("diskUsedBytes") ? bytes(member.path("diskUsedBytes").asLong()) : UNKNOWN,
      member.has("hintsPending") ? grouped(member.path("hintsPending").asLong()) : UNKNOWN,
      member.path("zone").asText(""),
      streaming(member.path("streaming"))
    };
  }

  /** A zone's name, or {@code (none)} for the unnamed one. */
  private static String zone(String name) {
    return name.isEmpty() ? "(none)" : name;
  }

  /** Sent and received records and bytes, whichever moved; "done" once finished. */
  static String streaming(JsonNode streaming) {
    if (!streaming.isObject()) {
      return "";
    }
    List<String> parts = new ArrayList<>();
    long sent = streaming.path("recordsSent").asLong();
    long received = streaming.path("recordsReceived").asLong();
    if (sent > 0 || streaming.path("bytesSent").asLong() > 0) {
      parts.add(
          "sent " + grouped(sent) + " records, " + bytes(streaming.path("bytesSent").asLong()));
    }
    if (received > 0 || streaming.path("bytesReceived").asLong() > 0) {
      parts.add(
          "received "
              + grouped(received)
              + " records, "
              + bytes(streaming.path("bytesReceived").asLong()));
    }
    if (parts.isEmpty()) {
      parts.add("started");
    }
    boolean done = streaming.path("done").asBoolean();
    return String.join("; ", parts) + (done ? " (done)" : "");
  }

  /** {@code 1234567} as {@code 1,234,567}. */
  static String grouped(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** Bytes in binary units, three significant digits: {@code 512 B}, {@code 1.21 MiB}. */
  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = n;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    String format = value >= 100 ? "%.0f %s" : value >= 10 ? "%.1f %s" : "%.2f %s";
    return String.format(Locale.ROOT, format, value, units[unit]);
  }

  /** Columns left-aligned to their widest cell, two spaces apart, no trailing blanks. */
  private static List<String> table(List<String[]> rows) {
    int[] widths = new int[HEADERS.length];
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        widths[c] = Math.max(widths[c], row[c].length());
      }
    }
    List<String> lines = new ArrayList<>();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < row.length; c++) {
        if (c > 0) {
          line.append("  ");
        }
        line.append(row[c]).append(" ".repeat(widths[c] - row[c].length()));
      }
      lines.add(line.toString().stripTrailing());
    }
    return lines;
  }
}
