package io.kvorum.node.sim.check;

import static io.kvorum.node.sim.check.Fixtures.K;
import static io.kvorum.node.sim.check.Fixtures.N1;
import static io.kvorum.node.sim.check.Fixtures.N2;
import static io.kvorum.node.sim.check.Fixtures.ms;
import static io.kvorum.node.sim.check.Fixtures.tombstone;
import static io.kvorum.node.sim.check.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OneVersionPerValueTest {
  @Test
  void aValueAppliedAgainAtItsOwnVersionIsFine() {
    Recording recording =
        Fixtures.appliedEverywhere(5, value("a", 10), tombstone(12), value("b", 20))
            .applied(K, value("a", 10), N1, ms(30))
            .build();

    assertThat(new OneVersionPerValue().check(recording)).isEmpty();
  }

  @Test
  void aValueAppliedUnderAnotherVersionIsAForgedWrite() {
    Recording recording =
        Recording.recorder()
            .applied(K, value("a", 10), N1, ms(5))
            .applied(K, value("b", 20), N2, ms(6))
            .applied(K, value("a", 21), N2, ms(7))
            .build();

    assertThat(new OneVersionPerValue().check(recording))
        .extracting(Violation::message)
        .singleElement()
        .asString()
        .contains("'a' was applied at 10.0 on n1")
        .contains("then at 21.0 on n2");
  }
}
