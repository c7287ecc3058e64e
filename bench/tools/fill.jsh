// Writes records straight into node data directories with the node's own storage engine, for the
// benchmarks that need a node of a given size fast (bench/tools/snapshot.sh,
// bench/tools/range.sh). Run with jshell on the node's jar; FILL is a list of DIR:PREFIX:COUNT
// separated by ';' (keys PREFIX and a ten-digit number), VALUE the value size in bytes. Every
// record is live, its version 10,000 s ago plus its number (in ms), its replica peer mask 3.
import io.kvorum.node.core.*;
import io.kvorum.node.storage.rocksdb.*;
var storage = java.util.concurrent.Executors.newFixedThreadPool(2);
var random = new java.util.Random(25);
long start = System.currentTimeMillis() - 10_000_000L;
int valueSize = Integer.parseInt(System.getenv("VALUE"));
void fill(String dir, String prefix, int count) {
  var engine = RocksDbStorageEngine.open(java.nio.file.Path.of(dir), RocksDbSettings.defaults(), storage);
  var batch = new java.util.ArrayList<Entry>();
  for (int i = 0; i < count; i++) {
    byte[] bytes = new byte[valueSize];
    random.nextBytes(bytes);
    batch.add(new Entry(Key.utf8(String.format("%s%010d", prefix, i)),
        io.kvorum.node.core.Record.value(Version.of(start + i, 0), bytes, 0, 3)));
    if (batch.size() == 512) { engine.putAll(batch).join(); batch = new java.util.ArrayList<>(); }
  }
  engine.putAll(batch).join();
  engine.close();
}
for (String target : System.getenv("FILL").split(";")) {
  String[] part = target.split(":");
  fill(part[0], part[1], Integer.parseInt(part[2]));
}
storage.shutdown();
/exit
