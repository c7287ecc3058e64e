package io.kvorum.node.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MemoryFirstStorageEngineTest {
  private static final Key KEY = Key.utf8("k");
  private static final Record RECORD =
      Record.value(Version.of(1_000, 0), "v".getBytes(StandardCharsets.UTF_8));

  private final FaultyStorageEngine engine = new FaultyStorageEngine(new InMemoryStorageEngine());
  private final StorageEngine memoryFirst = new MemoryFirstStorageEngine(engine);

  @Test
  void aGetMemoryCanAnswerIsCompleteWhenItReturns() {
    memoryFirst.put(KEY, RECORD).join();

    assertThat(memoryFirst.get(KEY)).isCompletedWithValue(Optional.of(RECORD));
  }

  @Test
  void aGetMemoryCannotAnswerIsTheEnginesOwn() {
    memoryFirst.put(KEY, RECORD).join();
    engine.delay(Duration.ofMillis(200));

    var slow = memoryFirst.get(KEY);

    assertThat(slow).isNotDone();
    assertThat(slow).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(Optional.of(RECORD));
  }
}
