package io.kvorum.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.testing.RepositoryScripts;
import io.kvorum.node.testing.RepositoryScripts.Outcome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@code bin/find-java} chooses a Java, on fake Java homes (a {@code release} file and stub
 * executables), and that {@code bin/kvorum} and {@code ./mvnw} say in one line what to install when
 * no Java 21 or newer exists anywhere, and when the launcher uses the build's AOT cache. No JVM is
 * started: the finder reads release files.
 */
class LaunchScriptsTest {
  private static final Duration LIMIT = Duration.ofSeconds(30);

  @TempDir Path work;
  private Path repository;
  private Path jvms;

  @BeforeEach
  void setUp() throws IOException {
    repository = RepositoryScripts.repository();
    jvms = Files.createDirectories(work.resolve("jvm")).toRealPath();
  }

  @Test
  void aGoodJavaHomeIsTakenAsItIs() throws IOException {
    Path java21 = fakeJava(work.resolve("chosen"), "21.0.5", true);
    fakeJava(jvms.resolve("jdk-25"), "25.0.1", true);

    Outcome found = findJava(Map.of("JAVA_HOME", java21.toString()), Optional.empty(), "--jdk");

    assertThat(found.stdout().strip()).isEqualTo(java21.toString());
  }

  @Test
  void anOlderJavaHomeIsPassedOverForTheJavaOnThePath() throws IOException {
    Path java17 = fakeJava(work.resolve("old"), "17.0.15", true);
    Path java21 = fakeJava(work.resolve("on-path"), "21", true);

    Outcome found =
        findJava(
            Map.of("JAVA_HOME", java17.toString()),
            Optional.of(java21.resolve("bin/java")),
            "--jdk");

    assertThat(found.stdout().strip()).isEqualTo(java21.toString());
  }

  @Test
  void withNothingGoodOnThePathTheNewestInstalledJdkWinsAndARuntimeAloneDoesNotBuild()
      throws IOException {
    Path java17 = fakeJava(jvms.resolve("java-17-openjdk-amd64"), "17.0.15", true);
    Path jdk21 = fakeJava(jvms.resolve("java-21-openjdk-amd64"), "21.0.9", true);
    Path jre25 = fakeJava(jvms.resolve("temurin-25-jre"), "25.0.3", false);
    fakeJava(jvms.resolve("java-8"), "1.8.0_402", true);

    Optional<Path> onPath = Optional.of(java17.resolve("bin/java"));
    assertThat(findJava(Map.of(), onPath).stdout().strip()).isEqualTo(jre25.toString());
    assertThat(findJava(Map.of(), onPath, "--jdk").stdout().strip()).isEqualTo(jdk21.toString());
  }

  @Test
  void kvorumJavaHomeWinsAndIsRefusedWhenTooOld() throws IOException {
    Path chosen = fakeJava(work.resolve("chosen"), "22", true);
    Path old = fakeJava(work.resolve("old"), "17", true);
    fakeJava(jvms.resolve("jdk-25"), "25", true);

    assertThat(findJava(Map.of("KVORUM_JAVA_HOME", chosen.toString()), Optional.empty()).stdout())
        .isEqualTo(chosen + "\n");
    Outcome refused = findJava(Map.of("KVORUM_JAVA_HOME", old.toString()), Optional.empty());
    assertThat(refused.exitCode()).isEqualTo(1);
    assertThat(refused.stderrLines())
        .containsExactly("KVORUM_JAVA_HOME=" + old + " is not Java 21 or newer (a JDK or a JRE)");
  }

  @Test
  void withNoJava21AnywhereTheLauncherAndTheBuildSayInOneLineWhatToInstall() throws IOException {
    Path java17 = fakeJava(jvms.resolve("java-17-openjdk-amd64"), "17.0.15", true);
    Map<String, String> env = environment(Map.of(), Optional.of(java17.resolve("bin/java")));

    Outcome launcher = run(env, repository.resolve("bin/kvorum").toString(), "--help");
    Outcome build = run(env, repository.resolve("mvnw").toString(), "-v");

    assertThat(launcher.exitCode()).isEqualTo(1);
    assertThat(launcher.stdout()).isEmpty();
    assertThat(launcher.stderrLines())
        .containsExactly(
            "kvorum needs Java 21 or newer (a JDK or a JRE) and found only "
                + java17
                + " (Java 17): install one (e.g. the openjdk-21-jdk package, or Eclipse Temurin"
                + " from https://adoptium.net) or point KVORUM_JAVA_HOME at one");
    assertThat(build.exitCode()).isEqualTo(1);
    assertThat(build.stdout()).isEmpty();
    assertThat(build.stderrLines())
        .singleElement()
        .asString()
        .startsWith("kvorum needs a JDK 21 or newer and found only " + java17 + " (Java 17)");

    Path noJvms = Files.createDirectories(work.resolve("no-jvm"));
    Outcome nothing =
        run(
            environment(Map.of("KVORUM_JAVA_DIRS", noJvms.toString()), Optional.empty()),
            repository.resolve("bin/find-java").toString());
    assertThat(nothing.stderrLines())
        .singleElement()
        .asString()
        .startsWith("kvorum needs Java 21 or newer (a JDK or a JRE) and found none: install one");
  }

  @Test
  void theLauncherUsesTheBuildsAotCacheOnlyWhenFreshAndTrainedOnItsJdkForItsJar()
      throws IOException {
    Path java = fakeJava(work.resolve("jdk-25"), "25.0.1", true);
    // This java prints the flags it was given.
    Files.writeString(java.resolve("bin/java"), "#!/bin/sh\necho \"$@\"\n");
    Path copy = Files.createDirectories(work.resolve("kvorum"));
    Files.createDirectories(copy.resolve("bin"));
    for (String script : new String[] {"bin/kvorum", "bin/find-java"}) {
      Files.copy(repository.resolve(script), copy.resolve(script));
    }
    Path target = Files.createDirectories(copy.resolve("node/target"));
    Path jar = Files.writeString(target.resolve("kvorum-node.jar"), "a jar");
    Path cache = Files.writeString(target.resolve("kvorum-node.aot"), "a cache");
    Path trainedBy = target.resolve("kvorum-node.aot.java");
    Files.writeString(trainedBy, java + "\n" + jar.toRealPath() + "\n");
    String used = "-XX:AOTCache=" + cache;
    Map<String, String> env = environment(Map.of("JAVA_HOME", java.toString()), Optional.empty());
    String launcher = copy.resolve("bin/kvorum").toString();

    Files.setLastModifiedTime(jar, FileTime.fromMillis(1_000_000));
    assertThat(run(env, launcher, "--version").stdout()).as("a fresh cache").contains(used);

    Map<String, String> ownCache = new HashMap<>(env);
    ownCache.put("JAVA_OPTS", "-XX:AOTMode=off");
    assertThat(run(ownCache, launcher, "--version").stdout())
        .as("JAVA_OPTS choosing")
        .contains("-XX:AOTMode=off")
        .doesNotContain(used);

    Files.writeString(trainedBy, work.resolve("jdk-26") + "\n" + jar.toRealPath() + "\n");
    assertThat(run(env, launcher, "--version").stdout()).as("another JDK's").doesNotContain(used);

    Files.writeString(trainedBy, java + "\n" + work.resolve("other/kvorum-node.jar") + "\n");
    assertThat(run(env, launcher, "--version").stdout()).as("another jar's").doesNotContain(used);

    Files.writeString(trainedBy, java + "\n" + jar.toRealPath() + "\n");
    Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
    assertThat(run(env, launcher, "--version").stdout()).as("a stale cache").doesNotContain(used);
  }

  /** A Java home that only looks like one: a release file and executables that do nothing. */
  private static Path fakeJava(Path home, String version, boolean jdk) throws IOException {
    Files.createDirectories(home.resolve("bin"));
    Files.writeString(home.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
    stub(home.resolve("bin/java"));
    if (jdk) {
      stub(home.resolve("bin/javac"));
    }
    return home.toRealPath();
  }

  private static void stub(Path file) throws IOException {
    Files.writeString(file, "#!/bin/sh\nexit 0\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private Map<String, String> environment(Map<String, String> extra, Optional<Path> java)
      throws IOException {
    Map<String, String> env = new HashMap<>(RepositoryScripts.environmentWithoutJava());
    Path tools = RepositoryScripts.toolsDirectory(Files.createTempDirectory(work, "path"), java);
    env.put("PATH", tools.toString());
    env.put("KVORUM_JAVA_DIRS", jvms.toString());
    env.putAll(extra);
    return env;
  }

  private Outcome findJava(Map<String, String> extra, Optional<Path> java, String... args)
      throws IOException {
    String[] command = new String[args.length + 1];
    command[0] = repository.resolve("bin/find-java").toString();
    System.arraycopy(args, 0, command, 1, args.length);
    return run(environment(extra, java), command);
  }

  private Outcome run(Map<String, String> env, String... command) {
    return RepositoryScripts.run(repository, env, LIMIT, command);
  }
}
