package io.kvorum.node;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.net.HttpURLConnection;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import javax.net.ssl.HttpsURLConnection;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The dependency directions of the house style: inward, toward the seams and the domain. */
class ArchitectureTest {
  private static final String NODE = "io.kvorum.node";
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(NODE);
  }

  private static void check(ArchRule rule) {
    rule.check(classes);
  }

  @Test
  void theDomainDependsOnTheJdkAlone() {
    check(
        classes()
            .that()
            .resideInAPackage(NODE + ".core..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage(NODE + ".core..", "java.."));
  }

  @Test
  void thePaxosCoreIsPure() {
    check(
        classes()
            .that()
            .resideInAPackage(NODE + ".consensus.round..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage(NODE + ".consensus.round..", NODE + ".core..", "java..")
            .as("the Paxos core does no I/O and reads no clock: messages in, messages out"));
  }

  @Test
  void seamsDoNotReachOutward() {
    for (String seam :
        new String[] {
          "clock",
          "storage",
          "topology",
          "transport",
          "replica",
          "replication",
          "consensus",
          "quorum",
          "membership",
          "antientropy",
          "changes"
        }) {
      check(
          noClasses()
              .that()
              .resideInAPackage(NODE + "." + seam + "..")
              .should()
              .dependOnClassesThat()
              .resideInAnyPackage(NODE + ".gateway..", NODE + ".coordinator..", NODE + ".config..")
              .as(seam + " must not depend on the layers above it"));
    }
  }

  /**
   * The transport carries the protocols' messages without knowing them (as etcd's rafthttp carries
   * raft's): a new inter-node operation touches its protocol's package and its wire mapping.
   */
  @Test
  void theTransportImportsNoProtocol() {
    check(
        noClasses()
            .that()
            .resideInAPackage(NODE + ".transport")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                NODE + ".replica..",
                NODE + ".replication..",
                NODE + ".consensus..",
                NODE + ".antientropy..",
                NODE + ".membership..",
                NODE + ".clock..",
                NODE + ".quorum..",
                NODE + ".changes..",
                NODE + ".coordinator..")
            .as("the transport carries messages; each protocol owns its own"));
  }

  @Test
  void theCoordinatorKnowsNoEdgeAndNoAdapter() {
    for (String layer :
        new String[] {
          "coordinator",
          "replica",
          "replication",
          "consensus",
          "consensus.round",
          "quorum",
          "membership",
          "antientropy",
          "changes"
        }) {
      check(
          noClasses()
              .that()
              .resideInAPackage(NODE + "." + layer)
              .should()
              .dependOnClassesThat()
              .resideInAnyPackage(
                  NODE + ".gateway..",
                  NODE + ".config..",
                  NODE + ".storage.rocksdb..",
                  NODE + ".transport.grpc..",
                  "io.netty..",
                  "io.grpc..",
                  "org.rocksdb.."));
    }
  }

  @Test
  void theGatewayGoesThroughTheCoordinator() {
    check(
        noClasses()
            .that()
            .resideInAPackage(NODE + ".gateway..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                NODE + ".storage..",
                NODE + ".replication..",
                NODE + ".membership..",
                NODE + ".antientropy..",
                NODE + ".transport..",
                NODE + ".clock..",
                "org.rocksdb.."));
  }

  @Test
  void onlyTheServerWiresAdapters() {
    check(
        noClasses()
            .that()
            .resideOutsideOfPackages(
                NODE + ".storage.rocksdb..",
                NODE + ".consensus.rocksdb..",
                NODE + ".transport.grpc..",
                NODE + ".server..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                NODE + ".storage.rocksdb..",
                NODE + ".consensus.rocksdb..",
                NODE + ".transport.grpc.."));
  }

  @Test
  void technologyStaysInItsAdapter() {
    check(
        noClasses()
            .that()
            .resideOutsideOfPackages(NODE + ".storage.rocksdb..", NODE + ".consensus.rocksdb..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("org.rocksdb..")
            .as("RocksDB stays in the storage engine and the acceptors' store beside it"));
    check(
        noClasses()
            .that()
            .resideOutsideOfPackages(NODE + ".transport.grpc..", NODE + ".tls..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.kvorum.proto..", "io.grpc..")
            .as("gRPC stays in its adapter; the TLS material uses gRPC's reloading managers"));
    check(
        noClasses()
            .that()
            .resideOutsideOfPackages(
                NODE + ".gateway..", NODE + ".transport.grpc..", NODE + ".netty..", NODE + ".tls..")
            // The backup commands' S3 client runs on loops the store owns, to close them at once.
            .and()
            .doNotHaveFullyQualifiedName(NODE + ".cli.backup.ObjectStore")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.netty..")
            .as(
                "Netty stays in the two edges, the event loops, the TLS material they share and"
                    + " the S3 client's loops"));
  }

  @Test
  void theTlsMaterialIsFilesAndKeyManagersOnly() {
    check(
        classes()
            .that()
            .resideInAPackage(NODE + ".tls..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage(
                NODE + ".tls..",
                "io.grpc.util..",
                "io.netty.handler.ssl..",
                "org.slf4j..",
                "java..",
                "javax.net.ssl..",
                "javax.security.."));
  }

  @Test
  void theSharedEventLoopsServeTheEdgesAndTheWiringAlone() {
    check(
        classes()
            .that()
            .resideInAPackage(NODE + ".netty..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage(NODE + ".netty..", "io.netty..", "java.."));
    check(
        noClasses()
            .that()
            .resideOutsideOfPackages(
                NODE + ".gateway..",
                NODE + ".transport.grpc..",
                NODE + ".netty..",
                NODE + ".server..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage(NODE + ".netty..")
            .as("the event loops are created by the wiring and used by the edges only"));
  }

  @Test
  void clientAuthenticationKnowsNothingButTheJdk() {
    check(
        classes()
            .that()
            .resideInAPackage(NODE + ".auth..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage(NODE + ".auth..", "java..", "org.slf4j..")
            .as("tokens and roles are plain values; the edges use them, not the other way"));
  }

  @Test
  void operatorCommandsKnowTheApiAlone() {
    for (String commands : new String[] {"cli.admin", "cli.data", "cli.client"}) {
      check(
          classes()
              .that()
              .resideInAPackage(NODE + "." + commands + "..")
              .should()
              .onlyDependOnClassesThat()
              .resideInAnyPackage(
                  NODE + "." + commands + "..",
                  NODE + ".cli.client..",
                  "io.kvorum.api..",
                  "java..",
                  "javax.net.ssl..",
                  "picocli..",
                  "com.fasterxml.jackson..")
              .as("the operator's and data commands are HTTP clients of a node, not parts of one"));
    }
    check(
        noClasses()
            .that()
            .resideInAnyPackage(
                NODE + ".cli.admin..",
                NODE + ".cli.data..",
                NODE + ".cli.client..",
                NODE + ".cli.load..",
                NODE + ".cli.backup..")
            .should()
            .dependOnClassesThat()
            .belongToAnyOf(
                HttpClient.class,
                HttpRequest.class,
                HttpResponse.class,
                HttpURLConnection.class,
                HttpsURLConnection.class)
            .as("the commands reach their nodes through KvorumClient, not a client of their own"));
  }

  @Test
  void noTwoPackagesDependOnEachOther() {
    check(slices().matching(NODE + ".(**)").should().beFreeOfCycles());
  }
}
