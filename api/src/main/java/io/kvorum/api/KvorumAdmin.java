package io.kvorum.api;

import io.kvorum.api.RetryingSender.Repeat;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The operator's endpoints of one node, typed: its cluster view and readiness, its decommission or
 * the removal of a dead member (SPEC §8), a repair round (§7), its snapshots and the load of
 * versioned records (§11). Obtained from {@link KvorumClient#admin()}; thread-safe.
 *
 * <p>Every request goes to the client's first seed and to no other node: each of these is a
 * question to, or an order for, that one node (a decommission must not land on another), so there
 * is no failover. A client of {@link KvorumClient#connect} is the natural one. Requests carry the
 * client's token (all but {@link #cluster} and {@link #status} need an admin token when the node
 * runs with {@code --auth-tokens}), speak its TLS and keep its deadline and attempts: a request
 * that reads, deletes a snapshot or loads records (loading twice changes nothing) is sent again
 * after a failure or a {@code 503}; one that starts something only when it never reached the node.
 *
 * <p>Errors are the client's: {@link KvorumClientException} with the status and the problem the
 * node answered (an answer that is not the one the endpoint promises is one too, with the status it
 * came with), {@link java.io.UncheckedIOException} when the node did not answer in time.
 */
public final class KvorumAdmin {
  private final RetryingSender sender;
  private final Duration deadline;
  private final Streams streams;

  /** Opens a streamed answer of the node (a snapshot file): its status and its body unread. */
  interface Streams {
    HttpResponse<InputStream> get(String target);
  }

  /**
   * @param sender sends to the client's first seed alone
   * @param deadline each call's
   * @param streams sends a GET to the first seed once, its body left to read
   */
  KvorumAdmin(RetryingSender sender, Duration deadline, Streams streams) {
    this.sender = sender;
    this.deadline = deadline;
    this.streams = streams;
  }

  /** The cluster as the node sees it: {@code GET /v0/cluster}. */
  public ClusterView cluster() {
    HttpResponse<byte[]> response = expect(send("GET", KvorumApi.PATH_CLUSTER, Repeat.SAFE), 200);
    try {
      return new ClusterView(document(response));
    } catch (IllegalArgumentException e) {
      throw unexpected(response);
    }
  }

  /**
   * Whether the node serves requests: {@code GET /v0/status}. Not ready ({@code 503}) is an answer,
   * not an error, and is not asked again.
   */
  public Readiness status() {
    HttpResponse<byte[]> response = send("GET", KvorumApi.PATH_STATUS, Repeat.NEVER_AFTER_SENDING);
    int status = response.statusCode();
    if (status != 200 && status != 503) {
      throw unexpected(response);
    }
    return Readiness.of(status == 200, lenient(response));
  }

  /**
   * Starts the node's decommission: {@code POST /v0/cluster/decommission}. It streams its records
   * to their new owners, leaves the membership and its process exits 0; follow the change in {@link
   * #cluster()} (of another node once this one is gone).
   *
   * @throws KvorumClientException 409 when another membership change is in progress (its {@code
   *     detail()} names it)
   */
  public MembershipChangeResult decommission() {
    return membershipChange(KvorumApi.PATH_DECOMMISSION);
  }

  /**
   * Removes the dead member {@code node}: {@code POST /v0/cluster/remove?node=ID} to a live node.
   * Its keys are copied from their surviving replicas to their new owners. A member that died while
   * it was joining has its join aborted instead ({@link MembershipChangeResult#aborted()}).
   *
   * @throws KvorumClientException 409 when another membership change is in progress; 400 or 404
   *     when {@code node} is the node asked or no member
   */
  public MembershipChangeResult remove(String node) {
    return membershipChange(
        KvorumApi.PATH_REMOVE + "?" + KvorumApi.PARAM_NODE + "=" + encode(required(node, "node")));
  }

  /**
   * Starts a full anti-entropy round with every peer now: {@code POST /v0/repair}. The answer does
   * not wait for it: follow each peer's {@code repair.lastRoundFinished} in {@link #cluster()}.
   *
   * @return the id of the node that started it, or null if it did not say
   */
  public String repair() {
    return Json.string(
        lenient(expect(send("POST", KvorumApi.PATH_REPAIR, Repeat.NEVER_AFTER_SENDING), 202)),
        "node");
  }

  /**
   * Takes snapshot {@code name} of the node's data while it serves: {@code POST
   * /v0/snapshots?name=NAME}. It takes seconds whatever the size; the answer comes once it is whole
   * on the node's disk, so give the client a deadline that a slow disk fits.
   *
   * @param name 1-64 letters, digits, {@code .}, {@code _} or {@code -}, unique on the node
   * @throws KvorumClientException 409 when the node has a snapshot of that name, 400 for a bad name
   */
  public Snapshot takeSnapshot(String name) {
    String target = KvorumApi.PATH_SNAPSHOTS + "?name=" + encode(required(name, "name"));
    HttpResponse<byte[]> response = expect(send("POST", target, Repeat.NEVER_AFTER_SENDING), 201);
    Snapshot snapshot = Snapshot.of(document(response));
    if (snapshot.path() == null) {
      throw unexpected(response);
    }
    return snapshot;
  }

  /** The node's snapshots, and apart the damaged ones: {@code GET /v0/snapshots}. */
  public SnapshotList snapshots() {
    HttpResponse<byte[]> response = expect(send("GET", KvorumApi.PATH_SNAPSHOTS, Repeat.SAFE), 200);
    SnapshotList list = SnapshotList.of(document(response));
    if (list == null) {
      throw unexpected(response);
    }
    return list;
  }

  /**
   * The files of snapshot {@code name} with their sizes and SHA-256: {@code GET
   * /v0/snapshots/NAME/files}. The node hashes each file once (a second call after a new snapshot
   * hashes only its new files).
   *
   * @throws KvorumClientException 404 when the node has no snapshot of that name
   */
  public List<SnapshotFile> snapshotFiles(String name) {
    String target = KvorumApi.PATH_SNAPSHOTS + "/" + encode(required(name, "name")) + "/files";
    HttpResponse<byte[]> response = expect(send("GET", target, Repeat.SAFE), 200);
    List<Map<String, Object>> files = Json.objects(document(response), "files");
    if (files == null) {
      throw unexpected(response);
    }
    return files.stream().map(SnapshotFile::of).toList();
  }

  /**
   * The bytes of file {@code file} of snapshot {@code name}, streamed: {@code GET
   * /v0/snapshots/NAME/files/FILE}. Close the stream; one cut off midway throws {@link
   * java.io.IOException} on reading, so check the bytes read against {@link #snapshotFiles}.
   *
   * @throws KvorumClientException 404 without that snapshot, 400 without that file in it
   */
  public InputStream openSnapshotFile(String name, String file) {
    String target =
        KvorumApi.PATH_SNAPSHOTS
            + "/"
            + encode(required(name, "name"))
            + "/files/"
            + encode(required(file, "file"));
    HttpResponse<InputStream> response = streams.get(target);
    if (response.statusCode() == 200) {
      return response.body();
    }
    try (InputStream body = response.body()) {
      throw KvorumClientException.of(response.statusCode(), body.readAllBytes());
    } catch (java.io.IOException e) {
      throw KvorumClientException.of(response.statusCode(), new byte[0]);
    }
  }

  /**
   * Deletes snapshot {@code name} (a damaged one too) and the files only it held: {@code DELETE
   * /v0/snapshots/NAME}.
   *
   * @return true once deleted, false if the node has no snapshot of that name (any more)
   */
  public boolean deleteSnapshot(String name) {
    String target = KvorumApi.PATH_SNAPSHOTS + "/" + encode(required(name, "name"));
    HttpResponse<byte[]> response = send("DELETE", target, Repeat.SAFE);
    if (response.statusCode() == 404) {
      return false;
    }
    expect(response, 204);
    return true;
  }

  /**
   * Writes a batch of records as they were, versions, tombstones and expiries included: {@code POST
   * /v0/load} with {@code Content-Type: application/vnd.kvorum.records}, the body as given. The
   * node writes each record to a majority of its replicas; every replica keeps the newest, so a
   * batch sent twice changes nothing. {@code kvorum-node load} sends its batches so.
   *
   * @param batch records in kvorum's binary form ({@code KVR1} and the records, as the node's
   *     {@code core.RecordBatch} encodes them), at most the nodes' {@code --max-value-size}
   * @return how many records the node wrote (0 from a node that does not say)
   * @throws KvorumClientException with the first failure's answer (e.g. 504): the batch may be sent
   *     again whole; 400 for a batch that is not one, 413 for one over the limit
   */
  public long load(byte[] batch) {
    HttpResponse<byte[]> response =
        expect(
            send(
                "POST", KvorumApi.PATH_LOAD, batch, Repeat.SAFE, "Content-Type", KvorumApi.RECORDS),
            200);
    return Json.number(lenient(response), "records");
  }

  private MembershipChangeResult membershipChange(String target) {
    HttpResponse<byte[]> response = send("POST", target, Repeat.NEVER_AFTER_SENDING);
    if (response.statusCode() != 200 && response.statusCode() != 202) {
      throw unexpected(response);
    }
    return MembershipChangeResult.of(lenient(response));
  }

  private HttpResponse<byte[]> send(String method, String target, Repeat repeat) {
    return send(method, target, null, repeat);
  }

  private HttpResponse<byte[]> send(
      String method, String target, byte[] body, Repeat repeat, String... headers) {
    return KvorumClient.join(
        sender.send(new RetryingSender.Call(method, target, body, headers, repeat, deadline)));
  }

  private static HttpResponse<byte[]> expect(HttpResponse<byte[]> response, int status) {
    if (response.statusCode() != status) {
      throw unexpected(response);
    }
    return response;
  }

  /** The answer's JSON object; an answer that is none is the error it came as. */
  private static Map<String, Object> document(HttpResponse<byte[]> response) {
    try {
      return Json.object(response.body());
    } catch (IOException e) {
      throw unexpected(response);
    }
  }

  /** The answer's JSON object, or an empty one: for answers whose body only adds detail. */
  private static Map<String, Object> lenient(HttpResponse<byte[]> response) {
    try {
      return Json.object(response.body());
    } catch (IOException e) {
      return Map.of();
    }
  }

  private static KvorumClientException unexpected(HttpResponse<byte[]> response) {
    return KvorumClientException.of(response.statusCode(), response.body());
  }

  /** {@code value}, not null; one the node does not take (blank, too long) it refuses (400). */
  private static String required(String value, String what) {
    if (value == null) {
      throw new IllegalArgumentException("a " + what + " is required");
    }
    return value;
  }

  private static String encode(String text) {
    return Urls.encode(text.getBytes(StandardCharsets.UTF_8));
  }
}
