package io.kvorum.node.cli.backup;

import io.kvorum.node.cli.client.ExitCodes;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.reactivestreams.Subscriber;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.AwsProfileRegionProvider;
import software.amazon.awssdk.regions.providers.AwsRegionProviderChain;
import software.amazon.awssdk.regions.providers.SystemSettingsRegionProvider;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.paginators.ListObjectsV2Publisher;
import software.amazon.awssdk.transfer.s3.S3TransferManager;

/**
 * One bucket of object storage through the AWS SDK for Java v2 and its transfer manager (large
 * files in parallel parts), every failure turned into a {@link BackupFailure} that says what is
 * wrong in the operator's terms: the bucket missing (exit 5), the credentials refused (exit 6), the
 * storage unreachable or the transfer cut off (exit 1).
 */
final class ObjectStore implements AutoCloseable {
  private static final int DELETE_BATCH = 1000;

  /** How long {@link #close} lets the HTTP client's loops finish what the client left them. */
  private static final long CLOSE_SECONDS = 5;

  private final StorageLocation location;
  private final S3AsyncClient s3;
  private final EventLoopGroup loops;
  private final S3TransferManager transfers;
  private final ExecutorService streams =
      Executors.newCachedThreadPool(Thread.ofPlatform().daemon().name("kvorum-s3-", 1).factory());

  private ObjectStore(StorageLocation location, S3AsyncClient s3, EventLoopGroup loops) {
    this.location = location;
    this.s3 = s3;
    this.loops = loops;
    this.transfers = S3TransferManager.builder().s3Client(s3).build();
  }

  /**
   * A store of {@code location}'s bucket, reached as {@code options} say. The HTTP client runs on
   * event loops of its own, which {@link #close} shuts down at once: the SDK's own loops wait out
   * Netty's quiet period as it closes, two seconds at the end of every command.
   */
  // The SDK tells the channels its loops need by the group's class: NioEventLoopGroup, which Netty
  // 4.2 deprecates in favour of MultiThreadIoEventLoopGroup, a class the SDK does not know yet.
  @SuppressWarnings("deprecation")
  static ObjectStore open(StorageOptions options, StorageLocation location) {
    EventLoopGroup loops =
        new NioEventLoopGroup(0, Thread.ofPlatform().daemon().name("kvorum-s3-io-", 1).factory());
    S3AsyncClientBuilder builder =
        S3AsyncClient.builder()
            .multipartEnabled(true)
            .forcePathStyle(options.pathStyle)
            .httpClientBuilder(
                NettyNioAsyncHttpClient.builder().eventLoopGroup(SdkEventLoopGroup.create(loops)));
    builder.region(region(options));
    if (options.endpoint != null) {
      builder.endpointOverride(options.endpoint);
    }
    try {
      return new ObjectStore(location, builder.build(), loops);
    } catch (SdkException e) {
      loops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      throw new BackupFailure(ExitCodes.CONFIG, "cannot reach object storage: " + e.getMessage());
    }
  }

  private static Region region(StorageOptions options) {
    if (options.region != null && !options.region.isBlank()) {
      return Region.of(options.region.strip());
    }
    try {
      // The SDK's chain without the instance metadata, which off EC2 costs seconds to time out.
      return new AwsRegionProviderChain(
              new SystemSettingsRegionProvider(), new AwsProfileRegionProvider())
          .getRegion();
    } catch (SdkClientException e) {
      return Region.US_EAST_1;
    }
  }

  StorageLocation location() {
    return location;
  }

  /** Checks that the bucket exists and the credentials may use it, before anything is done. */
  void checkBucket() {
    call("open", () -> s3.headBucket(b -> b.bucket(location.bucket())));
  }

  /** An object as a listing shows it. */
  record Stored(long size, Instant lastModified) {}

  /** Every object under {@code prefix} (a key prefix), by key. */
  Map<String, Stored> list(String prefix) {
    Map<String, Stored> objects = new LinkedHashMap<>();
    ListObjectsV2Publisher pages =
        s3.listObjectsV2Paginator(b -> b.bucket(location.bucket()).prefix(prefix));
    call(
        "list " + prefix,
        () ->
            pages
                .contents()
                .subscribe(
                    (S3Object o) -> objects.put(o.key(), new Stored(o.size(), o.lastModified()))));
    return objects;
  }

  /**
   * Uploads {@code length} bytes as {@code key}, in parts when large, read from a stream that
   * {@code open} gives anew for each attempt: the SDK retries an attempt that failed (a read
   * timeout, a {@code 500} or {@code 503} from the storage) by reading the body again, which a
   * stream read once cannot give. {@code open} is called on a thread of this store's own.
   */
  void upload(String key, Supplier<InputStream> open, long length) {
    AsyncRequestBody body =
        new AsyncRequestBody() {
          @Override
          public Optional<Long> contentLength() {
            return Optional.of(length);
          }

          @Override
          public void subscribe(Subscriber<? super ByteBuffer> subscriber) {
            AsyncRequestBody.fromInputStream(new OpenedOnRead(open), length, streams)
                .subscribe(subscriber);
          }
        };
    call(
        "upload " + key,
        () ->
            transfers
                .upload(
                    u ->
                        u.putObjectRequest(p -> p.bucket(location.bucket()).key(key))
                            .requestBody(body))
                .completionFuture());
  }

  /** A stream opened at its first read, on the thread that reads it (not the SDK's). */
  private static final class OpenedOnRead extends InputStream {
    private final Supplier<InputStream> open;
    private InputStream in;

    OpenedOnRead(Supplier<InputStream> open) {
      this.open = open;
    }

    private InputStream in() throws IOException {
      if (in == null) {
        try {
          in = open.get();
        } catch (RuntimeException e) {
          // The SDK fails the attempt on an IOException (and names its cause); not on others.
          throw new IOException(e.getMessage(), e);
        }
      }
      return in;
    }

    @Override
    public int read() throws IOException {
      return in().read();
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      return in().read(buffer, offset, length);
    }

    @Override
    public void close() throws IOException {
      if (in != null) {
        in.close();
      }
    }
  }

  /** Writes a small object whole. */
  void put(String key, byte[] bytes) {
    call(
        "write " + key,
        () ->
            s3.putObject(
                p -> p.bucket(location.bucket()).key(key), AsyncRequestBody.fromBytes(bytes)));
  }

  /** A small object's bytes; empty if there is no such object. */
  Optional<byte[]> get(String key) {
    try {
      return Optional.of(
          call(
                  "read " + key,
                  () ->
                      s3.getObject(
                          g -> g.bucket(location.bucket()).key(key),
                          AsyncResponseTransformer.toBytes()))
              .asByteArray());
    } catch (BackupFailure e) {
      if (e.getCause() instanceof NoSuchKeyException) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** Downloads {@code key} into the file {@code to} (replaced). */
  void download(String key, Path to) {
    call(
        "download " + key,
        () ->
            transfers
                .downloadFile(
                    d ->
                        d.getObjectRequest(g -> g.bucket(location.bucket()).key(key))
                            .destination(to))
                .completionFuture());
  }

  /** Deletes {@code keys}; absent ones are no error. */
  void delete(Collection<String> keys) {
    List<String> all = new ArrayList<>(keys);
    for (int from = 0; from < all.size(); from += DELETE_BATCH) {
      List<ObjectIdentifier> batch =
          all.subList(from, Math.min(all.size(), from + DELETE_BATCH)).stream()
              .map(k -> ObjectIdentifier.builder().key(k).build())
              .toList();
      call(
          "delete " + batch.size() + " objects",
          () ->
              s3.deleteObjects(
                  d ->
                      d.bucket(location.bucket())
                          .delete(Delete.builder().objects(batch).quiet(true).build())));
    }
  }

  private <T> T call(String action, java.util.function.Supplier<? extends Future<T>> request) {
    try {
      return request.get().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BackupFailure(ExitCodes.FAILURE, action + ": interrupted");
    } catch (ExecutionException | CompletionException | SdkException e) {
      throw failure(action, e);
    }
  }

  /** {@code error} in the operator's terms, with the exit code of its kind. */
  private BackupFailure failure(String action, Throwable error) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    for (Throwable c = cause; c != null; c = c.getCause()) {
      if (c instanceof BackupFailure said) {
        return said; // a member that could not be read, in its own words
      }
    }
    String where = location.bucket();
    if (cause instanceof S3Exception s3e) {
      String code = s3e.awsErrorDetails() == null ? "" : s3e.awsErrorDetails().errorCode();
      if ("NoSuchBucket".equals(code) || (s3e.statusCode() == 404 && action.equals("open"))) {
        return new BackupFailure(
            ExitCodes.BUCKET_MISSING,
            "bucket '" + where + "' does not exist (create it, or check --to and --endpoint)",
            cause);
      }
      if (s3e.statusCode() == 403 || code.contains("AccessKey") || code.contains("Signature")) {
        return new BackupFailure(
            ExitCodes.CREDENTIALS,
            "object storage refused the credentials for bucket '"
                + where
                + "' ("
                + (code.isEmpty() ? "HTTP " + s3e.statusCode() : code)
                + "): check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE or the role",
            cause);
      }
      return new BackupFailure(
          ExitCodes.FAILURE, action + ": object storage answered " + s3e.getMessage(), cause);
    }
    if (cause instanceof SdkClientException client
        && String.valueOf(client.getMessage()).contains("credentials")) {
      return new BackupFailure(
          ExitCodes.CREDENTIALS,
          "no credentials for object storage: " + client.getMessage(),
          cause);
    }
    return new BackupFailure(
        ExitCodes.FAILURE,
        action
            + " failed: "
            + cause.getMessage()
            + firstAttempt(cause)
            + " (run the same command again to go on)",
        cause);
  }

  /** What failed first, when the SDK retried (its later attempts' failures hide the first). */
  private static String firstAttempt(Throwable error) {
    Throwable[] earlier = error.getSuppressed();
    return earlier.length == 0 ? "" : "; first: " + earlier[0];
  }

  @Override
  public void close() {
    transfers.close();
    s3.close();
    streams.shutdownNow();
    loops.shutdownGracefully(0, CLOSE_SECONDS, TimeUnit.SECONDS).awaitUninterruptibly();
  }
}
