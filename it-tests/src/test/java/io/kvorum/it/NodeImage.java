package io.kvorum.it;

import java.nio.file.Files;
import java.nio.file.Path;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.utility.MountableFile;

/**
 * The node image under test, built once per test run from the project's Dockerfile and the fat jar
 * the build just made, on the base image named by {@code -Dkvorum.baseImage}, else the offline base
 * {@code kvorum/jre-base:local} when present ({@code docker/build-base-image.sh}), else the
 * Dockerfile's own default.
 */
final class NodeImage {
  static final String LOCAL_BASE = "kvorum/jre-base:local";

  /**
   * The tag the image is built under; {@code -Dkvorum.image} gives another, so that test runs of
   * different builds on one Docker engine do not replace each other's image.
   */
  private static final String NAME = System.getProperty("kvorum.image", "kvorum/node:it-tests");

  private static String built;

  private NodeImage() {}

  static synchronized String name() {
    if (built == null) {
      Path jar = existing("kvorum.node.jar");
      Path dockerfile = existing("kvorum.dockerfile");
      ImageFromDockerfile image =
          new ImageFromDockerfile(NAME, false)
              .withFileFromPath("docker/Dockerfile", dockerfile)
              .withFileFromPath("node/target/kvorum-node.jar", jar)
              .withFileFromPath("node/target/native", jar.resolveSibling("native"))
              // The launcher and the health check must stay executable: the classic builder has no
              // COPY --chmod.
              .withFileFromTransferable(
                  "docker/kvorum-node",
                  MountableFile.forHostPath(dockerfile.resolveSibling("kvorum-node"), 0755))
              .withFileFromTransferable(
                  "docker/healthcheck",
                  MountableFile.forHostPath(dockerfile.resolveSibling("healthcheck"), 0755))
              .withDockerfilePath("docker/Dockerfile");
      // The Dockerfile's own default unless the build names one (CI's is shorter).
      String trainSeconds = System.getProperty("kvorum.aot.trainSeconds");
      if (trainSeconds != null) {
        image.withBuildArg("TRAIN_SECONDS", trainSeconds);
      }
      String base = baseImage();
      if (base != null) {
        image.withBuildArg("BASE_IMAGE", base);
      }
      built = image.get();
    }
    return built;
  }

  private static String baseImage() {
    String configured = System.getProperty("kvorum.baseImage", "");
    if (!configured.isBlank()) {
      return configured;
    }
    try {
      DockerClientFactory.instance().client().inspectImageCmd(LOCAL_BASE).exec();
      return LOCAL_BASE;
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static Path existing(String property) {
    Path path = Path.of(System.getProperty(property, "")).toAbsolutePath().normalize();
    if (!Files.isRegularFile(path)) {
      throw new IllegalStateException(
          path + " (system property " + property + ") is missing; run `./mvnw verify`");
    }
    return path;
  }
}
