package io.kvorum.api;

import java.time.Duration;

/** Paths, parameters, media types and limits of kvorum's HTTP API (v0), shared by both sides. */
public final class KvorumApi {
  private KvorumApi() {}

  /** Where the OpenAPI 3.1 document of this API is on the class path. */
  public static final String OPENAPI_RESOURCE = "/io/kvorum/api/openapi.yaml";

  public static final String PATH_ENTITY = "/v0/entity";
  public static final String PATH_ENTITIES = "/v0/entities";

  /** Change feeds of a key or a range (SPEC §12). */
  public static final String PATH_CHANGES = "/v0/changes";

  public static final String PATH_STATUS = "/v0/status";
  public static final String PATH_CLUSTER = "/v0/cluster";
  public static final String PATH_REPAIR = "/v0/repair";
  public static final String PATH_SNAPSHOTS = "/v0/snapshots";

  /** Many gets, puts and deletes in one request (SPEC §2). */
  public static final String PATH_BATCH = "/v0/batch";

  /** The most items a batch may hold (413 beyond). */
  public static final int BATCH_MAX_ITEMS = 100;

  /** The largest body a batch may have (413 beyond). */
  public static final int BATCH_MAX_BYTES = 16 << 20;

  /** Where {@code kvorum-node load} posts batches of records that keep their versions. */
  public static final String PATH_LOAD = "/v0/load";

  public static final String PATH_DECOMMISSION = "/v0/cluster/decommission";
  public static final String PATH_REMOVE = "/v0/cluster/remove";
  public static final String PATH_LIVE = "/health/live";
  public static final String PATH_READY = "/health/ready";
  public static final String PATH_METRICS = "/metrics";

  public static final String PARAM_ID = "id";
  public static final String PARAM_ACK = "ack";
  public static final String PARAM_FROM = "from";
  public static final String PARAM_REPLICAS = "replicas";
  public static final String PARAM_TTL = "ttl";
  public static final String PARAM_START = "start";
  public static final String PARAM_END = "end";

  /** At most this many entries of a range (the first ones from {@code start}). */
  public static final String PARAM_LIMIT = "limit";

  /** The cursor a change feed resumes after. */
  public static final String PARAM_SINCE = "since";

  public static final String PARAM_NODE = "node";

  /**
   * A GET's consistency: {@link #CONSISTENCY_LINEARIZABLE} reads through the key's Paxos acceptors
   * (SPEC §10); absent, a quorum read.
   */
  public static final String PARAM_CONSISTENCY = "consistency";

  public static final String CONSISTENCY_LINEARIZABLE = "linearizable";

  /** The request header that carries a bearer token ({@code Bearer TOKEN}) when tokens are on. */
  public static final String AUTHORIZATION = "Authorization";

  /** The response header that names a value's version, and the request headers that test it. */
  public static final String ETAG = "ETag";

  public static final String IF_MATCH = "If-Match";
  public static final String IF_NONE_MATCH = "If-None-Match";

  public static final String OCTET_STREAM = "application/octet-stream";
  public static final String PROBLEM_JSON = "application/problem+json";
  public static final String JSON = "application/json";

  /** The media type of a batch of versioned records posted to {@link #PATH_LOAD}. */
  public static final String RECORDS = "application/vnd.kvorum.records";

  /** The media type of a range as newline-delimited JSON (SPEC §2), asked for with Accept. */
  public static final String NDJSON = "application/x-ndjson";

  /** Server-Sent Events: a change feed asked for with {@code Accept: text/event-stream}. */
  public static final String EVENT_STREAM = "text/event-stream";

  /** The SSE header with which a reconnecting client resumes after the last event's id. */
  public static final String LAST_EVENT_ID = "Last-Event-ID";

  /** The header of a range read naming the cursor a change feed follows it from. */
  public static final String CURSOR = "Kvorum-Cursor";

  /** The reason phrase of a 504 that means the quorum was not reached. */
  public static final String NOT_ENOUGH_REPLICAS = "Not Enough Replicas";

  /** The longest {@code ttl} a write may ask for (as in Cassandra: 20 years). */
  public static final Duration MAX_TTL = Duration.ofDays(7300);

  public static final int DEFAULT_HTTP_PORT = 8080;
  public static final int DEFAULT_GRPC_PORT = 9090;
}
