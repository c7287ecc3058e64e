// Package kvorum is the YCSB binding of kvorum: go-ycsb's workloads drive a cluster through its
// HTTP API (SPEC §2), as any client would.
//
// A YCSB record (ten fields of 100 bytes by default) is one kvorum value, encoded by go-ycsb's
// own RowCodec; its id is "TABLE/KEY", so that a scan of a table is a range of kvorum ids.
// Requests go to the nodes in turn (round robin over kvorum.urls), with the request's ack and
// from; an update of some of a record's fields reads the record first (the only way a key-value
// store can), an update of all of them (writeallfields=true) is one write.
package kvorum

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/magiconair/properties"
	"github.com/pingcap/go-ycsb/pkg/prop"
	"github.com/pingcap/go-ycsb/pkg/util"
	"github.com/pingcap/go-ycsb/pkg/ycsb"
)

const (
	propURLs    = "kvorum.urls"
	propAck     = "kvorum.ack"
	propFrom    = "kvorum.from"
	propTimeout = "kvorum.timeout"
)

type creator struct{}

type kvorumDB struct {
	urls       []string
	next       atomic.Uint64
	ack, from  int
	fieldCount int
	client     *http.Client
	codec      *util.RowCodec
}

func init() {
	ycsb.RegisterDBCreator("kvorum", creator{})
}

func (creator) Create(p *properties.Properties) (ycsb.DB, error) {
	urls := strings.Split(p.GetString(propURLs, "http://127.0.0.1:8080"), ",")
	for i, u := range urls {
		urls[i] = strings.TrimRight(strings.TrimSpace(u), "/")
	}
	connections := p.GetInt(prop.ThreadCount, 1) + 8
	transport := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
		MaxIdleConns:        connections * len(urls),
		MaxIdleConnsPerHost: connections,
		DisableCompression:  true,
		IdleConnTimeout:     90 * time.Second,
	}
	return &kvorumDB{
		urls:       urls,
		ack:        p.GetInt(propAck, 2),
		from:       p.GetInt(propFrom, 3),
		fieldCount: int(p.GetInt64(prop.FieldCount, prop.FieldCountDefault)),
		client:     &http.Client{Transport: transport, Timeout: p.GetDuration(propTimeout, 10*time.Second)},
		codec:      util.NewRowCodec(p),
	}, nil
}

func (db *kvorumDB) Close() error {
	db.client.CloseIdleConnections()
	return nil
}

func (db *kvorumDB) InitThread(ctx context.Context, _ int, _ int) context.Context { return ctx }

func (db *kvorumDB) CleanupThread(context.Context) {}

func (db *kvorumDB) node() string {
	return db.urls[db.next.Add(1)%uint64(len(db.urls))]
}

func (db *kvorumDB) entity(table, key string) string {
	return fmt.Sprintf("%s/v0/entity?id=%s&ack=%d&from=%d",
		db.node(), url.QueryEscape(table+"/"+key), db.ack, db.from)
}

// send sends one request and answers the response, whose body the caller must close, when its
// status is the one expected; otherwise an error with the status and the problem the node gave.
func (db *kvorumDB) send(ctx context.Context, method, target string, body []byte, accept string, expected int) (*http.Response, error) {
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	request, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return nil, err
	}
	if accept != "" {
		request.Header.Set("Accept", accept)
	}
	response, err := db.client.Do(request)
	if err != nil {
		return nil, err
	}
	if response.StatusCode != expected {
		defer response.Body.Close()
		answer, _ := io.ReadAll(response.Body)
		return nil, fmt.Errorf("%s %s: %d %s", method, target, response.StatusCode, strings.TrimSpace(string(answer)))
	}
	return response, nil
}

// do sends one request and answers its body when the status is the one expected.
func (db *kvorumDB) do(ctx context.Context, method, target string, body []byte, expected int) ([]byte, error) {
	response, err := db.send(ctx, method, target, body, "", expected)
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	return io.ReadAll(response.Body)
}

func (db *kvorumDB) Read(ctx context.Context, table string, key string, fields []string) (map[string][]byte, error) {
	value, err := db.do(ctx, http.MethodGet, db.entity(table, key), nil, http.StatusOK)
	if err != nil {
		return nil, err
	}
	return db.codec.Decode(value, fields)
}

// Scan reads count records from startKey on as one range request, framed as NDJSON so that an
// answer cut off by a failed node is told from a complete one.
func (db *kvorumDB) Scan(ctx context.Context, table string, startKey string, count int, fields []string) ([]map[string][]byte, error) {
	target := fmt.Sprintf("%s/v0/entities?start=%s&end=%s&limit=%d", db.node(),
		url.QueryEscape(table+"/"+startKey), url.QueryEscape(table+"0"), count)
	response, err := db.send(ctx, http.MethodGet, target, nil, "application/x-ndjson", http.StatusOK)
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	records, err := db.decodeRange(response.Body, fields)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err() // a run's end, not a malformed range
	}
	return records, err
}

type rangeLine struct {
	Value []byte `json:"value"`
	End   bool   `json:"end"`
}

func (db *kvorumDB) decodeRange(body io.Reader, fields []string) ([]map[string][]byte, error) {
	var records []map[string][]byte
	lines := bufio.NewScanner(body)
	lines.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for lines.Scan() {
		var line rangeLine
		if err := json.Unmarshal(lines.Bytes(), &line); err != nil {
			return nil, err
		}
		if line.End {
			return records, nil
		}
		record, err := db.codec.Decode(line.Value, fields)
		if err != nil {
			return nil, err
		}
		records = append(records, record)
	}
	if err := lines.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("the range ended without its last line after %d records", len(records))
}

// Update writes the fields given; when they are not all of the record's, it reads the record
// first and writes it back merged (not atomic: a concurrent update of other fields can be lost,
// as in go-ycsb's other key-value bindings).
func (db *kvorumDB) Update(ctx context.Context, table string, key string, values map[string][]byte) error {
	if len(values) >= db.fieldCount {
		return db.Insert(ctx, table, key, values)
	}
	record, err := db.Read(ctx, table, key, nil)
	if err != nil {
		return err
	}
	for field, value := range values {
		record[field] = value
	}
	return db.Insert(ctx, table, key, record)
}

func (db *kvorumDB) Insert(ctx context.Context, table string, key string, values map[string][]byte) error {
	value, err := db.codec.Encode(nil, values)
	if err != nil {
		return err
	}
	_, err = db.do(ctx, http.MethodPut, db.entity(table, key), value, http.StatusCreated)
	return err
}

func (db *kvorumDB) Delete(ctx context.Context, table string, key string) error {
	_, err := db.do(ctx, http.MethodDelete, db.entity(table, key), nil, http.StatusAccepted)
	return err
}

// The batch operations (go-ycsb's batch.size) go through POST /v0/batch, at most 100 items a
// request; a key that comes back within one batch starts the next request, since kvorum refuses
// a batch that names a key twice.

type batchItem struct {
	Op    string `json:"op"`
	ID    string `json:"id"`
	Value []byte `json:"value,omitempty"`
}

type batchResult struct {
	ID     string `json:"id"`
	Status int    `json:"status"`
	Value  []byte `json:"value"`
}

const batchLimit = 100

func (db *kvorumDB) batch(ctx context.Context, items []batchItem, expected int) ([]batchResult, error) {
	var results []batchResult
	for len(items) > 0 {
		size, seen := 0, map[string]bool{}
		for size < len(items) && size < batchLimit && !seen[items[size].ID] {
			seen[items[size].ID] = true
			size++
		}
		body, err := json.Marshal(map[string][]batchItem{"items": items[:size]})
		if err != nil {
			return nil, err
		}
		target := fmt.Sprintf("%s/v0/batch?ack=%d&from=%d", db.node(), db.ack, db.from)
		answer, err := db.do(ctx, http.MethodPost, target, body, http.StatusOK)
		if err != nil {
			return nil, err
		}
		var decoded struct {
			Results []batchResult `json:"results"`
		}
		if err := json.Unmarshal(answer, &decoded); err != nil {
			return nil, err
		}
		for _, result := range decoded.Results {
			if result.Status != expected {
				return nil, fmt.Errorf("batch item %s: %d", result.ID, result.Status)
			}
		}
		results = append(results, decoded.Results...)
		items = items[size:]
	}
	return results, nil
}

func (db *kvorumDB) writes(ctx context.Context, table string, keys []string, values []map[string][]byte) error {
	items := make([]batchItem, len(keys))
	for i, key := range keys {
		value, err := db.codec.Encode(nil, values[i])
		if err != nil {
			return err
		}
		items[i] = batchItem{Op: "put", ID: table + "/" + key, Value: value}
	}
	_, err := db.batch(ctx, items, http.StatusCreated)
	return err
}

func (db *kvorumDB) BatchInsert(ctx context.Context, table string, keys []string, values []map[string][]byte) error {
	return db.writes(ctx, table, keys, values)
}

// BatchUpdate writes whole records: go-ycsb's batch updates carry every field only with
// writeallfields=true, and a partial one is refused rather than written as a whole record.
func (db *kvorumDB) BatchUpdate(ctx context.Context, table string, keys []string, values []map[string][]byte) error {
	for _, record := range values {
		if len(record) < db.fieldCount {
			return fmt.Errorf("a batch update of %d of %d fields needs writeallfields=true", len(record), db.fieldCount)
		}
	}
	return db.writes(ctx, table, keys, values)
}

func (db *kvorumDB) BatchRead(ctx context.Context, table string, keys []string, fields []string) ([]map[string][]byte, error) {
	items := make([]batchItem, len(keys))
	for i, key := range keys {
		items[i] = batchItem{Op: "get", ID: table + "/" + key}
	}
	results, err := db.batch(ctx, items, http.StatusOK)
	if err != nil {
		return nil, err
	}
	records := make([]map[string][]byte, len(results))
	for i, result := range results {
		if records[i], err = db.codec.Decode(result.Value, fields); err != nil {
			return nil, err
		}
	}
	return records, nil
}

func (db *kvorumDB) BatchDelete(ctx context.Context, table string, keys []string) error {
	items := make([]batchItem, len(keys))
	for i, key := range keys {
		items[i] = batchItem{Op: "delete", ID: table + "/" + key}
	}
	_, err := db.batch(ctx, items, http.StatusAccepted)
	return err
}
