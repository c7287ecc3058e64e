package kvorum

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/magiconair/properties"
	"github.com/pingcap/go-ycsb/pkg/ycsb"
)

// fakeCluster answers kvorum's entity, range and batch requests (SPEC §2) from one map, through
// as many nodes as asked, and counts what each node was sent.
type fakeCluster struct {
	mu          sync.Mutex
	records     map[string][]byte
	requests    map[string]int // "node METHOD path"
	batchSizes  []int
	cutOffRange bool
}

func (c *fakeCluster) node(t *testing.T, name string) string {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.requests[name+" "+r.Method+" "+r.URL.Path]++
		query := r.URL.Query()
		switch r.URL.Path {
		case "/v0/entity":
			c.entity(w, r, query.Get("id"))
		case "/v0/entities":
			c.entities(w, query)
		case "/v0/batch":
			c.batch(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(server.Close)
	return server.URL
}

func (c *fakeCluster) entity(w http.ResponseWriter, r *http.Request, id string) {
	switch r.Method {
	case http.MethodGet:
		value, ok := c.records[id]
		if !ok {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		_, _ = w.Write(value)
	case http.MethodPut:
		c.records[id], _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusCreated)
	case http.MethodDelete:
		delete(c.records, id)
		w.WriteHeader(http.StatusAccepted)
	}
}

func (c *fakeCluster) entities(w http.ResponseWriter, query map[string][]string) {
	start, end := query["start"][0], query["end"][0]
	limit, _ := strconv.Atoi(query["limit"][0])
	var keys []string
	for key := range c.records {
		if key >= start && key < end {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	encoder := json.NewEncoder(w)
	for i, key := range keys {
		if i == limit {
			break
		}
		_ = encoder.Encode(map[string]any{"key": []byte(key), "value": c.records[key], "etag": `"1"`})
	}
	if !c.cutOffRange {
		_ = encoder.Encode(map[string]bool{"end": true})
	}
}

func (c *fakeCluster) batch(w http.ResponseWriter, r *http.Request) {
	var request struct{ Items []batchItem }
	_ = json.NewDecoder(r.Body).Decode(&request)
	seen := map[string]bool{}
	for _, item := range request.Items {
		if seen[item.ID] {
			http.Error(w, "a key twice: "+item.ID, http.StatusBadRequest)
			return
		}
		seen[item.ID] = true
	}
	c.batchSizes = append(c.batchSizes, len(request.Items))
	results := make([]map[string]any, len(request.Items))
	for i, item := range request.Items {
		result := map[string]any{"id": item.ID}
		switch item.Op {
		case "put":
			c.records[item.ID], result["status"] = item.Value, http.StatusCreated
		case "get":
			value, ok := c.records[item.ID]
			result["status"], result["value"] = http.StatusOK, value
			if !ok {
				result["status"] = http.StatusNotFound
			}
		case "delete":
			delete(c.records, item.ID)
			result["status"] = http.StatusAccepted
		}
		results[i] = result
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"results": results})
}

func newBinding(t *testing.T, nodes int) (*kvorumDB, *fakeCluster) {
	cluster := &fakeCluster{records: map[string][]byte{}, requests: map[string]int{}}
	var urls []string
	for i := 0; i < nodes; i++ {
		urls = append(urls, cluster.node(t, fmt.Sprintf("n%d", i)))
	}
	p := properties.NewProperties()
	p.MustSet(propURLs, strings.Join(urls, ","))
	p.MustSet("fieldcount", "3")
	db, err := creator{}.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db.(*kvorumDB), cluster
}

func record(values ...string) map[string][]byte {
	fields := map[string][]byte{}
	for i, value := range values {
		fields[fmt.Sprintf("field%d", i)] = []byte(value)
	}
	return fields
}

func TestARecordComesBackAsWrittenAndWhatIsDeletedIsGone(t *testing.T) {
	db, _ := newBinding(t, 1)
	ctx := context.Background()
	if err := db.Insert(ctx, "usertable", "user1", record("a", "b", "c")); err != nil {
		t.Fatal(err)
	}
	got, err := db.Read(ctx, "usertable", "user1", []string{"field1"})
	if err != nil || len(got) != 1 || string(got["field1"]) != "b" {
		t.Fatalf("read field1 = %q, %v", got, err)
	}
	if err := db.Delete(ctx, "usertable", "user1"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Read(ctx, "usertable", "user1", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("a deleted record read as %v", err)
	}
}

func TestAnUpdateOfSomeFieldsKeepsTheOthersAndOfAllIsOneWrite(t *testing.T) {
	db, cluster := newBinding(t, 1)
	ctx := context.Background()
	_ = db.Insert(ctx, "usertable", "user1", record("a", "b", "c"))
	if err := db.Update(ctx, "usertable", "user1", map[string][]byte{"field2": []byte("C")}); err != nil {
		t.Fatal(err)
	}
	got, _ := db.Read(ctx, "usertable", "user1", nil)
	if string(got["field0"]) != "a" || string(got["field2"]) != "C" {
		t.Fatalf("after a partial update: %q", got)
	}
	gets := cluster.requests["n0 GET /v0/entity"]
	if err := db.Update(ctx, "usertable", "user1", record("x", "y", "z")); err != nil {
		t.Fatal(err)
	}
	if cluster.requests["n0 GET /v0/entity"] != gets {
		t.Fatal("an update of every field read the record first")
	}
}

func TestAScanReadsTheTableInKeyOrderAndACutOffRangeFails(t *testing.T) {
	db, cluster := newBinding(t, 1)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		_ = db.Insert(ctx, "usertable", fmt.Sprintf("user%d", i), record(strconv.Itoa(i), "", ""))
	}
	_ = db.Insert(ctx, "usertable0", "user9", record("another table", "", ""))
	got, err := db.Scan(ctx, "usertable", "user2", 10, nil)
	if err != nil || len(got) != 3 || string(got[0]["field0"]) != "2" || string(got[2]["field0"]) != "4" {
		t.Fatalf("scan from user2 = %q, %v", got, err)
	}
	if got, _ := db.Scan(ctx, "usertable", "user0", 2, nil); len(got) != 2 {
		t.Fatalf("a scan of 2 answered %d records", len(got))
	}
	cluster.cutOffRange = true
	if _, err := db.Scan(ctx, "usertable", "user0", 10, nil); err == nil {
		t.Fatal("a range cut off before its last line read as complete")
	}
}

func TestBatchesHoldAtMostAHundredKeysAndNoKeyTwice(t *testing.T) {
	db, cluster := newBinding(t, 1)
	ctx := context.Background()
	var keys []string
	var values []map[string][]byte
	for i := 0; i < 250; i++ {
		keys = append(keys, fmt.Sprintf("user%d", i%200))
		values = append(values, record(strconv.Itoa(i), "", ""))
	}
	var batch ycsb.BatchDB = db
	if err := batch.BatchInsert(ctx, "usertable", keys, values); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(cluster.batchSizes) != "[100 100 50]" {
		t.Fatalf("batches of %v", cluster.batchSizes)
	}
	got, err := batch.BatchRead(ctx, "usertable", []string{"user0", "user199"}, nil)
	if err != nil || string(got[0]["field0"]) != "200" || string(got[1]["field0"]) != "199" {
		t.Fatalf("batch read = %q, %v", got, err)
	}
	if _, err := batch.BatchRead(ctx, "usertable", []string{"absent"}, nil); err == nil {
		t.Fatal("a batch read of an absent key succeeded")
	}
	if err := batch.BatchUpdate(ctx, "usertable", []string{"user0"}, []map[string][]byte{{"field0": nil}}); err == nil {
		t.Fatal("a batch update of one field of three overwrote the whole record")
	}
}

func TestRequestsGoToEveryNodeInTurn(t *testing.T) {
	db, cluster := newBinding(t, 3)
	for i := 0; i < 30; i++ {
		_ = db.Insert(context.Background(), "usertable", fmt.Sprintf("user%d", i), record("", "", ""))
	}
	for _, node := range []string{"n0", "n1", "n2"} {
		if cluster.requests[node+" PUT /v0/entity"] != 10 {
			t.Fatalf("requests per node: %v", cluster.requests)
		}
	}
}
