package io.kvorum.node.cli.backup;

import java.net.URI;
import picocli.CommandLine.Option;

/**
 * How a command reaches object storage: AWS S3 by default, an S3-compatible server by {@code
 * --endpoint} (with {@code --path-style} for servers without bucket host names). Credentials come
 * the way S3 tools take them (the SDK's default chain): {@code AWS_ACCESS_KEY_ID}/{@code
 * AWS_SECRET_ACCESS_KEY}, {@code AWS_PROFILE} and the profile files, web identity ({@code
 * AWS_WEB_IDENTITY_TOKEN_FILE}, a Kubernetes service account), the container or instance role.
 */
final class StorageOptions {
  @Option(
      names = "--endpoint",
      defaultValue = "${env:KVORUM_S3_ENDPOINT}",
      paramLabel = "URL",
      description =
          "The S3 API's address, for an S3-compatible server (Ceph, SeaweedFS, Google Cloud"
              + " Storage's XML API, …). Default: KVORUM_S3_ENDPOINT if set, else AWS S3.")
  URI endpoint;

  @Option(
      names = "--path-style",
      defaultValue = "${env:KVORUM_S3_PATH_STYLE:-false}",
      description =
          "Name the bucket in the path (http://host/BUCKET/KEY), not in the host name: most"
              + " S3-compatible servers want it. Default: KVORUM_S3_PATH_STYLE if set, else false.")
  boolean pathStyle;

  @Option(
      names = "--region",
      defaultValue = "${env:KVORUM_S3_REGION}",
      paramLabel = "REGION",
      description =
          "The bucket's region. Default: KVORUM_S3_REGION, else the SDK's (AWS_REGION, the"
              + " profile), else us-east-1.")
  String region;
}
