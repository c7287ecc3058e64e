// Package cassandrascan completes go-ycsb's Cassandra binding, which answers every scan with "scan
// is not supported", with the scan of YCSB's own Java Cassandra binding: the records from the
// start key's token on, in token order, at QUORUM, through a session of its own. Everything else
// is go-ycsb's binding as it is.
package cassandrascan

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"github.com/magiconair/properties"
	_ "github.com/pingcap/go-ycsb/db/cassandra"
	"github.com/pingcap/go-ycsb/pkg/prop"
	"github.com/pingcap/go-ycsb/pkg/ycsb"
)

// Creator makes go-ycsb's Cassandra database with scans.
type Creator struct{}

type scanningDB struct {
	ycsb.DB
	session    *gocql.Session
	keyspace   string
	fieldNames []string
}

func (Creator) Create(p *properties.Properties) (ycsb.DB, error) {
	inner, err := ycsb.GetDBCreator("cassandra").Create(p)
	if err != nil {
		return nil, err
	}
	// The same settings as go-ycsb's binding gives its own session.
	cluster := gocql.NewCluster(strings.Split(p.GetString("cassandra.cluster", "127.0.0.1:9042"), ",")...)
	cluster.Keyspace = p.GetString("cassandra.keyspace", "test")
	cluster.NumConns = p.GetInt("cassandra.connections", 2)
	cluster.Timeout = 30 * time.Second
	cluster.Consistency = gocql.Quorum
	session, err := cluster.CreateSession()
	if err != nil {
		_ = inner.Close()
		return nil, err
	}
	fieldNames := make([]string, p.GetInt64(prop.FieldCount, prop.FieldCountDefault))
	for i := range fieldNames {
		fieldNames[i] = fmt.Sprintf("field%d", i)
	}
	return &scanningDB{DB: inner, session: session, keyspace: cluster.Keyspace, fieldNames: fieldNames}, nil
}

func (db *scanningDB) Close() error {
	db.session.Close()
	return db.DB.Close()
}

func (db *scanningDB) Scan(ctx context.Context, table string, startKey string, count int, fields []string) ([]map[string][]byte, error) {
	if len(fields) == 0 {
		fields = db.fieldNames
	}
	query := fmt.Sprintf("SELECT %s FROM %s.%s WHERE token(YCSB_KEY) >= token(?) LIMIT %d",
		strings.Join(fields, ","), db.keyspace, table, count)
	iter := db.session.Query(query, startKey).WithContext(ctx).Iter()
	var records []map[string][]byte
	values := make([][]byte, len(fields))
	dest := make([]any, len(fields))
	for i := range dest {
		dest[i] = &values[i]
	}
	for iter.Scan(dest...) {
		record := make(map[string][]byte, len(fields))
		for i, field := range fields {
			record[field] = values[i]
			values[i] = nil
		}
		records = append(records, record)
	}
	return records, iter.Close()
}
