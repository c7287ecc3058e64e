// Command kvorum-ycsb runs go-ycsb's core workloads against kvorum (the binding in ./kvorum) or
// Apache Cassandra (go-ycsb's own binding, with the scans it lacks added by ./cassandrascan), with
// go-ycsb's client and measurements:
//
//	kvorum-ycsb load|run kvorum|cassandra -P workloads/workloada -p name=value … [-threads N] [-target N]
//
// It is go-ycsb's command without its shell and its other databases' drivers.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/magiconair/properties"
	"github.com/pingcap/go-ycsb/pkg/client"
	"github.com/pingcap/go-ycsb/pkg/measurement"
	"github.com/pingcap/go-ycsb/pkg/prop"
	_ "github.com/pingcap/go-ycsb/pkg/workload"
	"github.com/pingcap/go-ycsb/pkg/ycsb"

	"kvorum/bench/ycsb/cassandrascan"
	_ "kvorum/bench/ycsb/kvorum"
)

type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

func main() {
	if len(os.Args) < 3 || (os.Args[1] != "load" && os.Args[1] != "run") {
		fmt.Fprintln(os.Stderr, "usage: kvorum-ycsb load|run kvorum|cassandra [-P file]… [-p name=value]… [-threads N] [-target N]")
		os.Exit(2)
	}
	command, dbName := os.Args[1], os.Args[2]
	var files, values repeated
	flags := flag.NewFlagSet(command, flag.ExitOnError)
	flags.Var(&files, "P", "a workload's property file (repeatable)")
	flags.Var(&values, "p", "a property, name=value (repeatable)")
	threads := flags.Int("threads", 0, "client threads (the threadcount property)")
	target := flags.Int("target", 0, "operations per second, spread over the threads (the target property)")
	_ = flags.Parse(os.Args[3:])

	props := properties.NewProperties()
	if len(files) > 0 {
		props = properties.MustLoadFiles(files, properties.UTF8, false)
	}
	for _, value := range values {
		name, setting, ok := strings.Cut(value, "=")
		if !ok {
			fail("bad property %q, expected name=value", value)
		}
		props.MustSet(name, setting)
	}
	if *threads > 0 {
		props.MustSet(prop.ThreadCount, strconv.Itoa(*threads))
	}
	if *target > 0 {
		props.MustSet(prop.Target, strconv.Itoa(*target))
	}
	props.MustSet(prop.DoTransactions, strconv.FormatBool(command == "run"))
	props.MustSet(prop.Command, command)
	if _, ok := props.Get(prop.DebugPprof); !ok {
		props.MustSet(prop.DebugPprof, "")
	}

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	measurement.InitMeasure(props)
	workloadName := props.GetString(prop.Workload, "core")
	workload, err := ycsb.GetWorkloadCreator(workloadName).Create(props)
	if err != nil {
		fail("workload %s: %v", workloadName, err)
	}
	defer workload.Close()
	creator := ycsb.GetDBCreator(dbName)
	if dbName == "cassandra" {
		creator = cassandrascan.Creator{}
	}
	if creator == nil {
		fail("no binding named %s (kvorum, cassandra)", dbName)
	}
	db, err := creator.Create(props)
	if err != nil {
		fail("%s: %v", dbName, err)
	}
	defer db.Close()

	// go-ycsb names maxexecutiontime but does not apply it: a run that cannot keep up with its
	// target stops after that many seconds here, with what it did measured.
	if seconds := props.GetInt64(prop.MaxExecutiontime, 0); seconds > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, time.Duration(seconds)*time.Second)
		defer stop()
	}
	start := time.Now()
	client.NewClient(props, workload, client.DbWrapper{DB: db}).Run(ctx)
	fmt.Printf("%s of %s finished in %s\n", command, dbName, time.Since(start).Round(time.Millisecond))
	measurement.Output()
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}
