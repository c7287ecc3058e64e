// Runs CQL statements against the Cassandra ring of cassandra.sh, in place of cqlsh (Python, not on
// Maven Central). Single-file program: `java -cp '/tmp/kvorum-cassandra/lib/*' Cql.java STATEMENT...`
// (cassandra.sh cql does this). It uses the DataStax 3.x driver that cassandra-all already depends on
// (cassandra-driver-core, shaded). Each argument is one statement, run in order at the consistency
// level of CQL_CONSISTENCY (default QUORUM); rows of a SELECT are printed one a line, columns
// separated by " | ". Contact point: CQL_HOST (default 127.0.0.1), port 9042.

import com.datastax.driver.core.Cluster;
import com.datastax.driver.core.ColumnDefinitions;
import com.datastax.driver.core.ConsistencyLevel;
import com.datastax.driver.core.ResultSet;
import com.datastax.driver.core.Row;
import com.datastax.driver.core.Session;
import com.datastax.driver.core.SimpleStatement;

public class Cql {
    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: Cql STATEMENT...");
            System.exit(2);
        }
        String host = System.getenv().getOrDefault("CQL_HOST", "127.0.0.1");
        ConsistencyLevel cl = ConsistencyLevel.valueOf(System.getenv().getOrDefault("CQL_CONSISTENCY", "QUORUM"));
        try (Cluster cluster = Cluster.builder().addContactPoint(host).withPort(9042)
                .withoutJMXReporting().withoutMetrics().build();
             Session session = cluster.connect()) {
            for (String cql : args) {
                ResultSet rs = session.execute(new SimpleStatement(cql).setConsistencyLevel(cl));
                ColumnDefinitions cols = rs.getColumnDefinitions();
                for (Row row : rs) {
                    StringBuilder line = new StringBuilder();
                    for (int i = 0; i < cols.size(); i++) {
                        line.append(i == 0 ? "" : " | ").append(row.getObject(i));
                    }
                    System.out.println(line);
                }
            }
        }
    }
}
